// Which informer events of a TemporalWorkerDeployment call for a reconcile. The controller's own
// status writes must not: they would bring the reconcile straight back, past the delay it asked
// for (after a rate limit, say). Nor must other managers' annotations or labels. A running
// reconcile that waits on a change (SpecChanges) is told of each event that does.
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

/** The running reconciles to tell when a worker deployment has an event that calls for a reconcile. */
export class SpecChanges {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** `changed` resolves at the next such event of `namespace/name`; `stop` once no longer waited for. */
  wait(namespace: string, name: string): { changed: Promise<void>; stop(): void } {
    const key = `${namespace}/${name}`;
    const listeners = this.listeners.get(key) ?? new Set<() => void>();
    this.listeners.set(key, listeners);
    let listener = (): void => {};
    const changed = new Promise<void>((resolve) => (listener = resolve));
    listeners.add(listener);
    const stop = (): void => {
      listeners.delete(listener);
      if (listeners.size === 0) this.listeners.delete(key);
    };
    return { changed, stop };
  }

  changed(twd: TemporalWorkerDeployment): void {
    for (const listener of this.listeners.get(`${twd.metadata.namespace ?? ''}/${twd.metadata.name ?? ''}`) ?? [])
      listener();
  }
}
