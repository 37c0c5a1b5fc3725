// Temporal namespaces found lately, by server. A Worker Deployment that Temporal does not list is
// told apart from a missing namespace, where Temporal's answer does not say which, by describing
// the namespace (deployment-state.ts): a thousand worker deployments created at once in one
// namespace asked it a thousand times, a third of their reads. A namespace found is believed found
// for `rememberMs`; one missing is asked about each time. Those who ask while a description is
// under way share its answer: when the memory lapsed in the middle of the thousand, each reconcile
// running then asked again.
import { realTimers, type Timers } from '../runtime/timers.ts';
import type { WorkflowService } from './protocol.ts';
import { aroundCalls } from './service-calls.ts';

type DescribeNamespaceRequest = Parameters<WorkflowService['describeNamespace']>[0];

export class NamespacesFound {
  private readonly rememberMs: number;
  private readonly timers: Timers;
  /** By server address and namespace: when the server last described it, and its answer. */
  private readonly found = new Map<string, { at: number; answer: unknown }>();
  /** By the same key: the description under way. */
  private readonly asking = new Map<string, Promise<unknown>>();

  constructor(rememberMs: number, timers: Timers = realTimers) {
    this.rememberMs = rememberMs;
    this.timers = timers;
  }

  /** The service of Temporal at `address`, whose descriptions of namespaces go through this memory. */
  remembering(service: WorkflowService, address: string): WorkflowService {
    return aroundCalls<DescribeNamespaceRequest>(
      service,
      (method) => method === 'describeNamespace',
      async (request, call) => {
        const key = JSON.stringify([address, request.namespace]);
        const now = this.timers.now();
        for (const [k, { at }] of this.found) if (now - at >= this.rememberMs) this.found.delete(k);
        const earlier = this.found.get(key);
        if (earlier) return earlier.answer;
        const underWay = this.asking.get(key);
        if (underWay) return underWay;
        const asked = call(request).finally(() => this.asking.delete(key));
        this.asking.set(key, asked);
        const answer = await asked;
        this.found.set(key, { at: this.timers.now(), answer });
        return answer;
      },
    );
  }
}
