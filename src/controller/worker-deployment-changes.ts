// Which informer events of a TemporalWorkerDeployment call for a reconcile. The controller's own
// status writes must not: they would bring the reconcile straight back, past the delay it asked
// for (after a rate limit, say). Nor must other managers' annotations or labels.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { ACTED_ON_ANNOTATIONS } from '../domain/annotations.ts';
import { isBeingDeleted } from '../domain/finalizer.ts';
import type { InformerEvent } from '../runtime/informer.ts';

/** What of a worker deployment a reconcile acts on: its spec (generation), its deletion, and the annotations it reads. */
export function changeOf(twd: TemporalWorkerDeployment): string {
  const annotations = twd.metadata.annotations ?? {};
  return JSON.stringify([
    twd.metadata.generation ?? null,
    isBeingDeleted(twd),
    ...ACTED_ON_ANNOTATIONS.map((name) => annotations[name] ?? null),
  ]);
}

/** Whether an informer event calls for a reconcile; `seen`: changeOf the worker deployment at its last event. */
export function callsForReconcile(
  event: InformerEvent,
  seen: string | undefined,
  twd: TemporalWorkerDeployment,
): boolean {
  return event !== 'update' || seen !== changeOf(twd);
}
