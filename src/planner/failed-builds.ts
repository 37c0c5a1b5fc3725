// Builds that failed a gate or an analysis, remembered per build rather than per generation, so
// that nothing but a person's word puts one back in front of new workflows: the rollback shortcut
// never promotes one (it would skip the gates and analysis that failed it), and while one is the
// target its failure holds whatever else of the spec changes (see gates.ts and analysis.ts). Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';

export type FailedBuild = NonNullable<NonNullable<TemporalWorkerDeployment['status']>['failedBuilds']>[number];

/** The most builds remembered: the oldest failures go first, gone builds' too. */
const REMEMBERED = 20;

export interface FailedBuildsInput {
  now: Date;
  stored: FailedBuild[];
  target: string;
  /** This reconcile's verdicts on the target, in words. */
  gateFailure?: string;
  analysisFailure?: string;
  /**
   * The target is current, no ramp is left, and its gates and analysis passed (or spec.rollout.promote
   * named it): it earned its place again, or a person gave it.
   */
  settledCurrent: boolean;
}

export function failedBuildsAfter(input: FailedBuildsInput): FailedBuild[] {
  const { now, target } = input;
  // A build retired (spec.sunset.unusedBuildDeleteDelay) keeps its failure: built again from the
  // same template, it is the same code.
  const kept = input.stored.filter((f) => !(input.settledCurrent && f.buildID === target));
  const seen = [
    ...(input.gateFailure ? [{ reason: 'GateFailed', message: input.gateFailure }] : []),
    ...(input.analysisFailure ? [{ reason: 'AnalysisFailed', message: input.analysisFailure }] : []),
  ];
  const added = seen
    .filter(({ reason }) => !kept.some((f) => f.buildID === target && f.reason === reason))
    .map(({ reason, message }) => ({ buildID: target, reason, message, at: now.toISOString() }));
  return [...kept, ...added].slice(-REMEMBERED);
}
