// The status's side of the pinned-workflow ladder: when each old build stopped being current or
// ramping, what the status remembers of each build's ladder, and how the ladder is written back.
// Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { LadderMemory, LadderStatus } from '../domain/ladder.ts';
import type {
  BatchOperationKind,
  BatchOperationState,
  BatchProgress,
  TemporalDeploymentState,
} from '../domain/snapshot.ts';

type Status = NonNullable<TemporalWorkerDeployment['status']>;
type DeprecatedVersion = NonNullable<Status['deprecatedVersions']>[number];
export type PinnedWorkflowsStatus = NonNullable<DeprecatedVersion['pinnedWorkflows']>;

/**
 * When each build that Temporal lists, and that is neither current nor ramping, stopped being
 * either: the server's word where it gives one, else what the status recorded, else now for a
 * build the status last called current or ramping, or that Temporal says was active once. The
 * delays of the ladder then count from when the controller first saw it inactive: later than
 * asked, never sooner.
 */
export function deactivationTimes(
  previous: TemporalWorkerDeployment['status'],
  temporal: TemporalDeploymentState,
  now: Date,
): Record<string, Date> {
  const recorded = new Map(
    (previous?.deprecatedVersions ?? []).flatMap((v) => (v.deactivatedAt ? [[v.buildID, v.deactivatedAt]] : [])),
  );
  const wasActive = new Set([
    previous?.currentVersion?.buildID,
    previous?.targetVersion?.rampPercentage === undefined ? undefined : previous.targetVersion.buildID,
  ]);
  const times: Record<string, Date> = {};
  for (const v of temporal.versions) {
    if (v.buildId === temporal.currentBuildId || v.buildId === temporal.rampingBuildId) continue;
    const stored = recorded.get(v.buildId);
    const at = v.deactivatedAt ?? (stored ? new Date(stored) : undefined);
    if (at) times[v.buildId] = at;
    else if (v.everActive || wasActive.has(v.buildId)) times[v.buildId] = now;
  }
  return times;
}

/** What the status remembers of each build's ladder: old builds', and a batch on a build active again. */
export function ladderMemories(previous: TemporalWorkerDeployment['status']): Record<string, LadderMemory> {
  const memories: Record<string, LadderMemory> = {};
  const remembered = [previous?.targetVersion, previous?.currentVersion, ...(previous?.deprecatedVersions ?? [])];
  for (const v of remembered) {
    if (!v || memories[v.buildID]) continue;
    const stored = v.pinnedWorkflows;
    if (!stored) continue;
    const batch = stored.batch;
    memories[v.buildID] = {
      ...(stored.running === undefined ? {} : { running: stored.running }),
      ...(stored.countedAt ? { countedAt: new Date(stored.countedAt) } : {}),
      ...(batch
        ? {
            batch: {
              jobId: batch.jobID,
              operation: batch.operation as BatchOperationKind,
              state: batch.state as BatchOperationState,
              ...(batch.startTime ? { startTime: new Date(batch.startTime) } : {}),
              ...(batch.closeTime ? { closeTime: new Date(batch.closeTime) } : {}),
              total: batch.total ?? 0,
              completed: batch.completed ?? 0,
              failed: batch.failed ?? 0,
            },
          }
        : {}),
    };
  }
  return memories;
}

export function pinnedWorkflowsStatus(ladder: LadderStatus): PinnedWorkflowsStatus {
  return {
    step: ladder.step,
    ...(ladder.running === undefined ? {} : { running: ladder.running }),
    ...(ladder.countedAt ? { countedAt: ladder.countedAt.toISOString() } : {}),
    ...(ladder.nextStepAt ? { nextStepAt: ladder.nextStepAt.toISOString() } : {}),
    ...(ladder.batch ? { batch: batchStatus(ladder.batch) } : {}),
  };
}

function batchStatus(batch: BatchProgress): NonNullable<PinnedWorkflowsStatus['batch']> {
  return {
    jobID: batch.jobId,
    operation: batch.operation,
    state: batch.state,
    ...(batch.startTime ? { startTime: batch.startTime.toISOString() } : {}),
    ...(batch.closeTime ? { closeTime: batch.closeTime.toISOString() } : {}),
    total: batch.total,
    completed: batch.completed,
    failed: batch.failed,
  };
}
