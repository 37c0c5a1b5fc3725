// The conditions of a TemporalWorkerDeployment, kstatus-style: Ready, Progressing, and Stalled
// when a human must act. Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';

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
