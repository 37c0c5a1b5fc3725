// The status's side of the pinned-workflow ladder: when each old build stopped being current or
// ramping, what the status remembers of each build's ladder and moves, and how both are written back.
// Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { LadderMemory, LadderStatus } from '../domain/ladder.ts';
import type { MoveMemory, MovePhase } from '../domain/pinned-move.ts';
import type {
  BatchOperationKind,
  BatchOperationState,
  BatchProgress,
  TemporalDeploymentState,
} from '../domain/snapshot.ts';

type Status = NonNullable<TemporalWorkerDeployment['status']>;
type DeprecatedVersion = NonNullable<Status['deprecatedVersions']>[number];
export type PinnedWorkflowsStatus = NonNullable<DeprecatedVersion['pinnedWorkflows']>;
type StoredBatch = NonNullable<PinnedWorkflowsStatus['batch']>;
type StoredMove = NonNullable<PinnedWorkflowsStatus['move']>;

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
    memories[v.buildID] = {
      ...(stored.running === undefined ? {} : { running: stored.running }),
      ...(stored.countedAt ? { countedAt: new Date(stored.countedAt) } : {}),
      ...(stored.batch ? { batch: batchMemory(stored.batch) } : {}),
      ...(stored.move ? { move: moveMemory(stored.move) } : {}),
    };
  }
  return memories;
}

function batchMemory(batch: StoredBatch): BatchProgress {
  return {
    jobId: batch.jobID,
    operation: batch.operation as BatchOperationKind,
    state: batch.state as BatchOperationState,
    ...(batch.startTime ? { startTime: new Date(batch.startTime) } : {}),
    ...(batch.closeTime ? { closeTime: new Date(batch.closeTime) } : {}),
    total: batch.total ?? 0,
    completed: batch.completed ?? 0,
    failed: batch.failed ?? 0,
  };
}

function moveMemory(move: StoredMove): MoveMemory {
  return {
    to: move.to,
    round: move.round,
    phase: move.phase as MovePhase,
    startedAt: new Date(move.startedAt),
    ...(move.endedAt ? { endedAt: new Date(move.endedAt) } : {}),
    checks: move.checks.map((c) => ({ taskQueue: c.taskQueue, workflowId: c.workflowID })),
    checked: move.checked,
    ...(move.batch ? { batch: batchMemory(move.batch) } : {}),
    ...(move.notMoved === undefined ? {} : { notMoved: move.notMoved }),
    ...(move.notMovedWorkflows
      ? {
          notMovedRuns: move.notMovedWorkflows.map((r) => ({
            workflowId: r.workflowID,
            runId: r.runID,
            reason: r.reason,
          })),
        }
      : {}),
    ...(move.message ? { message: move.message } : {}),
  };
}

export function pinnedWorkflowsStatus(ladder: LadderStatus): PinnedWorkflowsStatus {
  return {
    step: ladder.step,
    ...(ladder.running === undefined ? {} : { running: ladder.running }),
    ...(ladder.countedAt ? { countedAt: ladder.countedAt.toISOString() } : {}),
    ...(ladder.nextStepAt ? { nextStepAt: ladder.nextStepAt.toISOString() } : {}),
    ...(ladder.batch ? { batch: batchStatus(ladder.batch) } : {}),
    ...(ladder.move ? { move: moveStatus(ladder.move) } : {}),
  };
}

function moveStatus(move: MoveMemory): StoredMove {
  return {
    to: move.to,
    round: move.round,
    phase: move.phase,
    startedAt: move.startedAt.toISOString(),
    ...(move.endedAt ? { endedAt: move.endedAt.toISOString() } : {}),
    checks: move.checks.map((c) => ({ taskQueue: c.taskQueue, workflowID: c.workflowId })),
    checked: move.checked,
    ...(move.batch ? { batch: batchStatus(move.batch) } : {}),
    ...(move.notMoved === undefined ? {} : { notMoved: move.notMoved }),
    ...(move.notMovedRuns
      ? {
          notMovedWorkflows: move.notMovedRuns.map((r) => ({
            workflowID: r.workflowId,
            runID: r.runId,
            reason: r.reason,
          })),
        }
      : {}),
    ...(move.message ? { message: move.message } : {}),
  };
}

function batchStatus(batch: BatchProgress): StoredBatch {
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
