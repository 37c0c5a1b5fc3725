// Writes a TemporalWorkerDeployment's status once per reconcile, and only when it changed: at
// steady state a reconcile writes nothing. Every condition that says a rollout cannot go on is
// also reported as a Warning event on the object, as is each warning the report adds (a failing
// Pod). The write carries the resourceVersion the reconcile read: the status is the controller's memory (when builds were last current, gate runs,
// room made at the cap), so a write decided on a stale cache must never replace a newer one.
import { API_VERSION, KINDS } from '../api/kinds.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { sameJson } from '../domain/same-json.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import { blocking, type Condition, conditionSet, mergeConditions } from '../status/conditions.ts';
import type { ClusterClient } from '../k8s/cluster-client.ts';
import type { RecordEvent } from './events.ts';
import { rolloutNotices } from '../status/rollout-notices.ts';
import type { Notifier } from './notifications.ts';

type Status = NonNullable<TemporalWorkerDeployment['status']>;
export type VersionsStatus = Omit<Status, 'conditions' | 'observedGeneration'>;

export interface StatusWriterDependencies {
  cluster: ClusterClient;
  recordEvent: RecordEvent;
  now(): Date;
  /** Told of every status written, with the resourceVersion it replaced (see runtime/own-writes.ts). */
  wroteStatus(replaced: string | undefined, stored: TemporalWorkerDeployment): void;
  /** Told of the status each reconcile leaves (written, or already so), for the gauges of /metrics; undefined once the object is gone. */
  statusSaid?(namespace: string, name: string, status: Status | undefined): void;
  /** Told of the rollout events each status written says happened (spec.notifications); absent where nothing is sent. */
  notifier?: Pick<Notifier, 'notify'>;
}

export async function writeStatus(
  deps: StatusWriterDependencies,
  stored: TemporalWorkerDeployment,
  versions: VersionsStatus,
  conditions: Condition[],
  requeueAfterMs?: number,
  warnings: { reason: string; message: string }[] = [],
): Promise<ReconcileResult> {
  const now = deps.now().toISOString();
  const generation = stored.metadata.generation;
  const merged = mergeConditions(stored.status?.conditions ?? [], conditionSet(conditions), now, generation);
  const status = {
    ...versions,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions: merged,
  };
  const about = { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerDeployment.kind, metadata: stored.metadata };
  for (const c of conditions)
    if (blocking(c)) await deps.recordEvent(about, { type: 'Warning', reason: c.reason, message: c.message });
  for (const w of warnings) await deps.recordEvent(about, { type: 'Warning', ...w });
  if (!sameJson(stored.status ?? {}, status)) {
    // The whole status is replaced: a merge patch would keep every field this status leaves out
    // (a finished ramp's percentage, builds long deleted), and rewrite them on every reconcile.
    // Written since the cache was read (counted as a 409 in twc_kubernetes_requests_total):
    // decide again at once, on what the cache holds then.
    const written = await deps.cluster.replaceStatus({ ...stored, status });
    if (written === 'conflict') return { requeueAfterMs: 0 };
    deps.wroteStatus(stored.metadata.resourceVersion, written);
    // After the write, not before: a write refused is decided again, and its events told then, once.
    deps.notifier?.notify(written, rolloutNotices(stored.status, status));
  }
  deps.statusSaid?.(stored.metadata.namespace ?? '', stored.metadata.name ?? '', status);
  return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
}

/** What the status last said of the builds, kept while the controller cannot look again. */
export function lastKnownVersions(stored: TemporalWorkerDeployment): VersionsStatus {
  const versions = { ...stored.status };
  delete versions.conditions;
  delete versions.observedGeneration;
  return versions;
}
