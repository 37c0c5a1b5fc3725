// Writes a TemporalWorkerDeployment's status once per reconcile, and only when it changed: at
// steady state a reconcile writes nothing. Every condition that says a rollout cannot go on is
// also reported as a Warning event on the object.
import { type CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import canonicalize from 'canonicalize';
import { API_VERSION, GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import type { RecordEvent } from './events.ts';

export type Condition = { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string };
type Status = NonNullable<TemporalWorkerDeployment['status']>;
export type VersionsStatus = Omit<Status, 'conditions' | 'observedGeneration'>;

export interface StatusWriterDependencies {
  customObjects: CustomObjectsApi;
  recordEvent: RecordEvent;
  now(): Date;
}

export async function writeStatus(
  deps: StatusWriterDependencies,
  stored: TemporalWorkerDeployment,
  versions: VersionsStatus,
  conditions: Condition[],
  requeueAfterMs?: number,
): Promise<ReconcileResult> {
  const now = deps.now().toISOString();
  const generation = stored.metadata.generation;
  const merged = mergeConditions(stored.status?.conditions ?? [], conditions, now, generation);
  const status = { ...versions, ...(generation === undefined ? {} : { observedGeneration: generation }), conditions: merged };
  for (const c of conditions) {
    if (blocking(c)) await deps.recordEvent({ apiVersion: API_VERSION, kind: KINDS.TemporalWorkerDeployment.kind, metadata: stored.metadata }, { type: 'Warning', reason: c.reason, message: c.message });
  }
  // Canonical JSON: the API server returns keys in its own order, not in ours.
  if (canonicalize(stored.status ?? {}) !== canonicalize(status)) {
    // The whole status is replaced: a merge patch would keep every field this status leaves out
    // (a finished ramp's percentage, builds long deleted), and rewrite them on every reconcile.
    await deps.customObjects.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace: stored.metadata.namespace ?? '', plural: KINDS.TemporalWorkerDeployment.plural, name: stored.metadata.name ?? '', body: [{ op: 'add', path: '/status', value: status }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
  }
  return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
}

/** What the status last said of the builds, kept while the controller cannot look again. */
export function lastKnownVersions(stored: TemporalWorkerDeployment): VersionsStatus {
  const versions = { ...stored.status };
  delete versions.conditions;
  delete versions.observedGeneration;
  return versions;
}

export function stalled(reason: string, text: string): Condition {
  return { type: 'Stalled', status: 'True', reason, message: text };
}

export function progressing(status: Condition['status'], reason: string, text: string): Condition {
  return { type: 'Progressing', status, reason, message: text };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function blocking(condition: Condition): boolean {
  return (condition.type === 'Stalled' && condition.status === 'True') || (condition.type === 'Progressing' && condition.status === 'False' && condition.reason !== 'Done');
}

/** Keeps lastTransitionTime where a condition's status did not change. */
function mergeConditions(previous: NonNullable<Status['conditions']>, next: Condition[], now: string, generation: number | undefined) {
  return next.map((c) => {
    const before = previous.find((p) => p.type === c.type);
    return { ...c, lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now, ...(generation === undefined ? {} : { observedGeneration: generation }) };
  });
}
