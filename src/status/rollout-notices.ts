// What a status write tells a worker deployment's notification receivers: the rollout events that
// happened between the status it replaces and the one written, read off the two statuses alone.
// A transition is written once, so each event is told once, whichever reconcile saw it, and a
// controller restarted mid-rollout tells nothing twice. Pure.
import type { NoticeKind } from '../api/notifications.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { ROLLOUT_ABORTED } from './conditions.ts';

type Status = NonNullable<TemporalWorkerDeployment['status']>;
type Deprecated = NonNullable<Status['deprecatedVersions']>[number];

export interface RolloutNotice {
  kind: NoticeKind;
  buildId: string;
  message: string;
}

/** The Stalled reasons that are a rollout given up on the build, not one waiting for a person. */
const ABORT_REASONS = new Set([ROLLOUT_ABORTED, 'GateFailed', 'AnalysisFailed']);

export function rolloutNotices(before: Status | undefined, after: Status): RolloutNotice[] {
  return [
    ...started(before, after),
    ...stepPassed(before, after),
    ...promoted(before, after),
    ...stalledNow(before, after),
    ...batchesFinished(before, after),
    ...retired(before, after),
  ];
}

function started(before: Status | undefined, after: Status): RolloutNotice[] {
  const target = after.targetVersion?.buildID;
  if (!target || target === before?.targetVersion?.buildID || target === after.currentVersion?.buildID) return [];
  const from = after.currentVersion?.buildID;
  return [
    {
      kind: 'Started',
      buildId: target,
      message: `rollout of build ${target} started${from ? `, replacing ${from}` : ''}`,
    },
  ];
}

function stepPassed(before: Status | undefined, after: Status): RolloutNotice[] {
  const target = after.targetVersion;
  const was = before?.targetVersion;
  // The first ramp is the rollout's first step starting, not one passed; the last step passed is a promotion.
  if (!target || target.buildID !== was?.buildID) return [];
  if (target.rampPercentage === undefined || was.rampPercentage === undefined) return [];
  if (target.rampPercentage <= was.rampPercentage) return [];
  return [
    {
      kind: 'StepPassed',
      buildId: target.buildID,
      message: `build ${target.buildID} passed the step at ${was.rampPercentage}%: it now takes ${target.rampPercentage}% of new workflows`,
    },
  ];
}

function promoted(before: Status | undefined, after: Status): RolloutNotice[] {
  const current = after.currentVersion?.buildID;
  const was = before?.currentVersion?.buildID;
  if (!current || current === was) return [];
  return [
    {
      kind: 'Promoted',
      buildId: current,
      message: `build ${current} is current: new workflows go to it${was ? `; ${was} drains` : ''}`,
    },
  ];
}

function stalledNow(before: Status | undefined, after: Status): RolloutNotice[] {
  const now = stalledCondition(after);
  // Told when the reason changes: its message may name a count or a time that changes every poll.
  if (!now || now.reason === stalledCondition(before)?.reason) return [];
  return [
    {
      kind: ABORT_REASONS.has(now.reason) ? 'Aborted' : 'Stalled',
      buildId: after.targetVersion?.buildID ?? '',
      message: `${now.reason}: ${now.message}`,
    },
  ];
}

function stalledCondition(status: Status | undefined) {
  return status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');
}

function batchesFinished(before: Status | undefined, after: Status): RolloutNotice[] {
  return (after.deprecatedVersions ?? []).flatMap((build) => {
    const batch = build.pinnedWorkflows?.batch;
    if (!batch || batch.state === 'Running') return [];
    const was = deprecated(before, build.buildID)?.pinnedWorkflows?.batch;
    if (was?.jobID === batch.jobID && was.state !== 'Running') return [];
    const tally =
      batch.total === undefined
        ? ''
        : `: ${batch.completed ?? 0} of ${batch.total} workflows, ${batch.failed ?? 0} failed`;
    return [
      {
        kind: 'BatchOperationFinished' as const,
        buildId: build.buildID,
        message: `${batch.operation} batch ${batch.jobID} on the pinned workflows of build ${build.buildID} ${batch.state === 'Completed' ? 'completed' : batch.state.toLowerCase()}${tally}`,
      },
    ];
  });
}

function retired(before: Status | undefined, after: Status): RolloutNotice[] {
  const kept = new Set([
    ...(after.deprecatedVersions ?? []).map((v) => v.buildID),
    after.currentVersion?.buildID,
    after.targetVersion?.buildID,
  ]);
  return (before?.deprecatedVersions ?? [])
    .filter((v) => !kept.has(v.buildID))
    .map((v) => ({
      kind: 'OldBuildRetired' as const,
      buildId: v.buildID,
      message: `old build ${v.buildID} is retired: the controller no longer runs nor keeps it`,
    }));
}

function deprecated(status: Status | undefined, buildId: string): Deprecated | undefined {
  return status?.deprecatedVersions?.find((v) => v.buildID === buildId);
}
