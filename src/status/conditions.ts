// The conditions of a TemporalWorkerDeployment, kstatus-style: Ready, Progressing, and Stalled
// when a human must act. Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { sameJson } from '../domain/same-json.ts';

export type Condition = { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string };
type StoredConditions = NonNullable<NonNullable<TemporalWorkerDeployment['status']>['conditions']>;

export function stalled(reason: string, text: string): Condition {
  return { type: 'Stalled', status: 'True', reason, message: text };
}

export function progressing(status: Condition['status'], reason: string, text: string): Condition {
  return { type: 'Progressing', status, reason, message: text };
}

/** Says the rollout cannot go on: worth a Warning event. */
export function blocking(condition: Condition): boolean {
  return (
    (condition.type === 'Stalled' && condition.status === 'True') ||
    (condition.type === 'Progressing' && condition.status === 'False' && condition.reason !== 'Done')
  );
}

/**
 * One condition of each type, as Kubernetes expects: the first one said wins (a failure is said
 * before the summary of the rollout), and what later ones of the same status add is kept in its message.
 */
export function onePerType(conditions: Condition[]): Condition[] {
  const byType = new Map<string, Condition>();
  for (const c of conditions) {
    const first = byType.get(c.type);
    if (!first) byType.set(c.type, c);
    else if (first.status === c.status && !first.message.includes(c.message))
      byType.set(c.type, { ...first, message: `${first.message}; also ${c.message}` });
  }
  return [...byType.values()];
}

/**
 * Ready, Progressing and Stalled, always all three and consistent as kstatus reads them, from what
 * a reconcile said (see onePerType): a Stalled condition makes the other two False with its reason;
 * a failure (Progressing=False other than Done) makes Ready False with its reason and is not a stall;
 * otherwise the Ready and Progressing said stand (one made up from the other when only one was said).
 * A condition of another type (Degraded) is said beside them, as it was said, and only while said.
 */
export function conditionSet(said: Condition[]): Condition[] {
  const one = onePerType(said);
  return [...rolloutConditions(one), ...one.filter((c) => !ROLLOUT_TYPES.has(c.type))];
}

const ROLLOUT_TYPES = new Set(['Ready', 'Progressing', 'Stalled']);

function rolloutConditions(one: Condition[]): Condition[] {
  const of = (type: string) => one.find((c) => c.type === type);
  const stall = of('Stalled');
  if (stall?.status === 'True') {
    return [{ ...stall, type: 'Ready', status: 'False' }, { ...stall, type: 'Progressing', status: 'False' }, stall];
  }
  const progress = of('Progressing');
  const ready = of('Ready');
  if (progress?.status === 'False' && !WAITING_ON_PURPOSE.has(progress.reason)) {
    return [{ ...progress, type: 'Ready' }, progress, { ...progress, type: 'Stalled' }];
  }
  const summary = progress ?? ready ?? progressing('True', 'Reconciling', 'nothing said yet');
  return [
    ready ?? { ...summary, type: 'Ready', status: 'False' },
    progress ?? { ...summary, type: 'Progressing', status: ready?.status === 'True' ? 'False' : 'True' },
    { ...summary, type: 'Stalled', status: 'False' },
  ];
}

/**
 * Something an operator should look at that neither stops the rollout nor is acted on: said as
 * Degraded=True beside Ready, Progressing and Stalled, and gone once it no longer holds.
 */
export function degraded(reason: string, text: string): Condition {
  return { type: 'Degraded', status: 'True', reason, message: text };
}

/** A current or ramping build's Pods are Ready, yet Temporal remembers none of its workers polling one of its task queues. */
export const NO_POLLERS = 'NoPollers';

/** The Manual strategy leaves routing to people: a target ready for them is not progressing, nor stalled. */
export const MANUAL_PROMOTION = 'ManualPromotion';
/** spec.rollout.paused holds the rollout: not progressing, nor stalled, until resumed. */
export const PAUSED = 'Paused';
/** spec.rollout.abort stopped the target's rollout: Stalled, until the template names another build. */
export const ROLLOUT_ABORTED = 'RolloutAborted';

/** Not progressing on purpose: Done, or waiting for a person who knows it. */
const WAITING_ON_PURPOSE = new Set(['Done', MANUAL_PROMOTION, PAUSED]);

/**
 * An object's next status: what `fields` say, the conditions `said` as one consistent set (see
 * conditionSet), and the generation observed. Undefined when that is what the status says already:
 * nothing to write.
 */
export function nextStatus<S extends { conditions?: StoredConditions; observedGeneration?: number }>(
  object: { metadata: { generation?: number }; status?: S },
  said: Condition[],
  now: Date,
  fields: Omit<S, 'conditions' | 'observedGeneration'>,
): S | undefined {
  const { generation } = object.metadata;
  const conditions = mergeConditions(
    object.status?.conditions ?? [],
    conditionSet(said),
    now.toISOString(),
    generation,
  );
  const status = { ...fields, observedGeneration: generation, conditions } as S;
  return sameJson(object.status, status) ? undefined : status;
}

/** Keeps lastTransitionTime where a condition's status did not change. */
export function mergeConditions(
  previous: StoredConditions,
  next: Condition[],
  now: string,
  generation: number | undefined,
) {
  return next.map((c) => {
    const before = previous.find((p) => p.type === c.type);
    return {
      ...c,
      lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    };
  });
}
