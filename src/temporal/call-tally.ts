// What one reconcile spent on Temporal: its calls by method (each once, however often it was tried
// again), how long they waited for a read token and for a call slot, and how long they took once
// sent. The controller adds up a rollout's reconciles from these (controller/rollout-costs.ts).
import type { WorkflowService } from './protocol.ts';
import { CALL_KINDS } from './protocol-scope.ts';
import { aroundCalls } from './service-calls.ts';

export class CallTally {
  /** By method, as the service names it: `describeWorkerDeployment`, … */
  readonly calls = new Map<string, number>();
  tokenWaitMs = 0;
  slotWaitMs = 0;
  callMs = 0;
  private readonly now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.now = now;
  }

  /** The service, whose every call is counted and timed here. */
  counting(service: WorkflowService): WorkflowService {
    return aroundCalls<unknown>(
      service,
      (method) => method in CALL_KINDS,
      async (request, call) => {
        const start = this.now();
        try {
          return await call(request);
        } finally {
          this.callMs += this.now() - start;
        }
      },
      (method) => this.calls.set(method, (this.calls.get(method) ?? 0) + 1),
    );
  }

  readonly tokenWaited = (ms: number): void => {
    this.tokenWaitMs += ms;
  };

  readonly slotWaited = (ms: number): void => {
    this.slotWaitMs += ms;
  };
}
