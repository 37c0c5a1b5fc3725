// A reconcile past its deadline (--reconcile-timeout) has given its work-queue slot back, and its
// key runs again once it stops: from its deadline on it must change nothing. The same signal cuts
// off its Temporal calls in flight (TemporalChannel.cutOffBy); these dependencies refuse every
// call it would make after, to Kubernetes or Temporal, with the deadline as the reason, so the
// executor stops at its next action, as at any failure, and no half-done plan goes on writing.
import type { ClusterClient } from '../k8s/cluster-client.ts';
import type { WorkerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import type { ReconcilerDependencies } from './dependencies.ts';

export function fencedBy(deps: ReconcilerDependencies, signal: AbortSignal): ReconcilerDependencies {
  const fenced =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      signal.aborted ? Promise.reject(signal.reason as Error) : call(...args);
  /** Every method of an adapter (a plain object of functions), fenced. */
  const fencedMethods = <T extends object>(adapter: T): T =>
    Object.fromEntries(
      Object.entries(adapter).map(([name, method]) => [
        name,
        fenced((...args: unknown[]) => (method as (...a: unknown[]) => Promise<unknown>).apply(adapter, args)),
      ]),
    ) as T;
  return {
    ...deps,
    cluster: fencedMethods<ClusterClient>(deps.cluster),
    recordEvent: fenced(deps.recordEvent),
    temporal: fenced(async (connection, address) =>
      fencedMethods<WorkerDeploymentClient>(await deps.temporal(connection, address)),
    ),
  };
}
