// The target's ramp as it went, kept in the status for the dashboard's timeline: each share of new
// workflows Temporal gave the target, from when, and a 0 where its ramp was cleared before it was
// promoted. Temporal keeps only the latest ramp. Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { TemporalDeploymentState } from '../domain/snapshot.ts';

export interface RampStep {
  percentage: number;
  at: string;
}

/** Steps kept: more than any rollout's steps, a bound on the status's size all the same. */
export const RAMP_STEPS_KEPT = 20;

type TargetStatus = NonNullable<TemporalWorkerDeployment['status']>['targetVersion'];

export function rampHistory(
  previous: TargetStatus,
  targetBuildId: string,
  temporal: TemporalDeploymentState,
  now: Date,
): RampStep[] {
  const history = previous?.buildID === targetBuildId ? [...(previous.rampHistory ?? [])] : [];
  const ramping = temporal.rampingBuildId === targetBuildId;
  // Once current, the history ends where the current build's own time begins.
  if (!ramping && temporal.currentBuildId === targetBuildId) return history;
  const percentage = ramping ? (temporal.rampPercentage ?? 0) : 0;
  const last = history.at(-1);
  if (last ? last.percentage !== percentage : percentage > 0) {
    const at = (ramping ? temporal.rampChangedAt : undefined) ?? now;
    history.push({ percentage, at: at.toISOString() });
  }
  return history.slice(-RAMP_STEPS_KEPT);
}
