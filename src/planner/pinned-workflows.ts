// The ladder of spec.sunset.pinnedWorkflows: what is done to the workflows still running on a
// build that is no longer current, ramping nor the target, and when: a signal asking them to
// continue as new onto the current build, then cancellation, then termination, each after its
// delay since the build stopped being current or ramping. Each step is one batch operation in
// Temporal, on the build's running pinned workflows only, under a job ID derived from (Worker
// Deployment, build, step, the step's own spec), so a controller that restarts finds the batch it
// started instead of starting another, and an unrelated edit of the spec (a pause, a replica
// count) does not run the step again. Pure: the builds, their counts and batches in, the actions
// and the status out.
import { durationSeconds } from '../api/schema.ts';
import { CONTINUE_AS_NEW_SIGNAL, type PinnedWorkflowsLadder } from '../api/temporal-worker-deployment.ts';
import { count } from '../domain/count.ts';
import type { LadderObservation } from '../domain/observation.ts';
import type { LadderMemory, LadderStatus, LadderStep } from '../domain/ladder.ts';
import type { BatchOperationKind, BatchProgress, LadderOperation } from '../domain/snapshot.ts';
import { specHash } from '../api/spec-hash.ts';
import { runningWorkflowsQuery } from '../domain/visibility.ts';

/** The field of spec.sunset.pinnedWorkflows that sets each step's delay. */
const DELAY_FIELDS = { Signal: 'signalAfter', Cancel: 'cancelAfter', Terminate: 'terminateAfter' } as const;

export interface LadderBuild {
  buildId: string;
  /** When it stopped being current or ramping (see deactivationTimes). */
  deactivatedAt: Date;
  memory?: LadderMemory;
  /** A round of moves runs on it, or just ended: no step starts (see planner/pinned-moves.ts). */
  heldByMove?: boolean;
}

export interface LadderContext {
  now: Date;
  ladder: PinnedWorkflowsLadder | undefined;
  /** The Worker Deployment's name in Temporal. */
  temporalName: string;
  /** Builds no longer current, ramping nor the target once this plan's routing change is made, on which pinned workflows may still run. */
  builds: LadderBuild[];
  /** Builds current, ramping or the target (again), each with the batch its memory says still runs. */
  reactivated: { buildId: string; batch: BatchProgress }[];
  /**
   * A target once active and not current whose memory knows of no batch: the ladder may have
   * started one on it all the same (the status write that recorded the start can be refused, 409,
   * and the ladder's spec may have changed since, giving another job ID). Its batches are looked
   * for, by the job IDs of the ladder as it is and by Temporal's list of the build's running ones,
   * and any still running is stopped, as this plan may route to it.
   */
  suspect?: string;
  /** The batch of a round of moves under way on the suspect build: the moves' own, which they stop when they must. */
  suspectMoving?: string;
}

/** What the planner must read of Temporal before it decides. */
export interface LadderReads {
  /** Builds whose running workflows are counted. */
  count: string[];
  /** The batch operations whose progress is read. */
  batches: { jobId: string; operation: BatchOperationKind }[];
  /** Builds whose running batches Temporal lists by job ID prefix (see batchJobIdPrefix), each then read. */
  listed: string[];
}

export type LadderAction =
  | {
      action: 'startBatch';
      buildId: string;
      operation: LadderOperation;
      jobId: string;
      /** The visibility query of the workflows it acts on. */
      query: string;
      /** The signal sent, for a Signal batch. */
      signalName?: string;
      /** Recorded by Temporal with the batch and with each cancellation or termination. */
      batchReason: string;
      reason: string;
    }
  | { action: 'stopBatch'; buildId: string; jobId: string; reason: string };

export interface LadderPlan {
  actions: LadderAction[];
  /** Per laddered build. */
  status: Record<string, LadderStatus>;
  /** Batches seen to end, and reads that failed, for events. */
  notes: { type?: 'Warning'; reason: string; message: string }[];
  recheckAt?: Date;
}

/** A batch's job ID: one per Worker Deployment, build, step and that step's own spec. */
export function batchJobId(
  temporalName: string,
  buildId: string,
  operation: LadderOperation,
  ladder: PinnedWorkflowsLadder,
): string {
  return `${batchJobIdPrefix(temporalName, buildId)}${operation.toLowerCase()}/${stepHash(ladder, operation)}`;
}

/** What every job ID of the ladder's batches on the build starts with: no other build's starts so. */
export function batchJobIdPrefix(temporalName: string, buildId: string): string {
  return `temporal-worker-controller/pinned-workflows/${temporalName}/${buildId}/`;
}

/** The operation a job ID under the build's prefix names (see batchJobId, and moveJobId in pinned-moves.ts). */
export function batchOperationOf(jobId: string): BatchOperationKind | undefined {
  const segment = jobId.split('/').at(-2);
  const operations: BatchOperationKind[] = [...(Object.keys(DELAY_FIELDS) as LadderOperation[]), 'Move'];
  return operations.find((operation) => operation.toLowerCase() === segment);
}

/** What one step does: its delay, and what it sends (the signal) or records (the reason). */
function stepHash(ladder: PinnedWorkflowsLadder, operation: LadderOperation): string {
  const delay = ladder[DELAY_FIELDS[operation]];
  return specHash(
    operation === 'Signal'
      ? { delay, signalName: ladder.signalName ?? CONTINUE_AS_NEW_SIGNAL }
      : { delay, reason: ladder.reason ?? '' },
  );
}

/** The steps the ladder sets, in order, each with the time it is reached. */
function schedule(ladder: PinnedWorkflowsLadder, deactivatedAt: Date): { operation: LadderOperation; at: Date }[] {
  return (Object.keys(DELAY_FIELDS) as LadderOperation[]).flatMap((operation) => {
    const delay = ladder[DELAY_FIELDS[operation]];
    return delay === undefined
      ? []
      : [{ operation, at: new Date(deactivatedAt.getTime() + durationSeconds(delay) * 1000) }];
  });
}

/** The ladder's step a batch is of: a move's (found on a build active again) is none. */
function stepOf(operation: BatchOperationKind): LadderStep {
  return operation === 'Move' ? 'Waiting' : operation;
}

/** Whether the ladder counts and acts on old builds: it has a step, or moves workflows. */
function acts(ladder: PinnedWorkflowsLadder | undefined): ladder is PinnedWorkflowsLadder {
  return ladder !== undefined && (schedule(ladder, new Date(0)).length > 0 || ladder.moveToCurrent === true);
}

function progressOf(ladder: PinnedWorkflowsLadder, build: LadderBuild, now: Date) {
  const steps = schedule(ladder, build.deactivatedAt);
  const reached = steps.filter((s) => s.at <= now).at(-1);
  const next = steps.find((s) => s.at > now);
  return { reached, next };
}

export function ladderReads(context: LadderContext): LadderReads {
  const { ladder } = context;
  // A batch on a build active again is read whatever the spec says now: it is stopped until it ended.
  const reactivated = [
    ...context.reactivated.map(({ batch }) => ({ jobId: batch.jobId, operation: batch.operation })),
    ...suspectedBatches(context),
  ];
  // Listed too: visibility may lag a batch just started, a job ID of the ladder as it is does not.
  const listed = context.suspect === undefined ? [] : [context.suspect];
  if (!acts(ladder)) return { count: [], batches: reactivated, listed };
  const batches = context.builds.flatMap((build) => {
    const { reached } = progressOf(ladder, build, context.now);
    if (!reached) return [];
    const jobId = batchJobId(context.temporalName, build.buildId, reached.operation, ladder);
    const known = build.memory?.batch;
    // A batch that ended stays ended: no read needed.
    return known?.jobId === jobId && known.state !== 'Running' ? [] : [{ jobId, operation: reached.operation }];
  });
  return { count: context.builds.map((b) => b.buildId), batches: [...reactivated, ...batches], listed };
}

/** The batches the ladder as it is would have started on the suspect build. */
function suspectedBatches({ suspect, ladder, temporalName }: LadderContext): LadderReads['batches'] {
  if (suspect === undefined || !ladder) return [];
  return schedule(ladder, new Date(0)).map(({ operation }) => ({
    jobId: batchJobId(temporalName, suspect, operation, ladder),
    operation,
  }));
}

export function planLadder(context: LadderContext, observed: LadderObservation): LadderPlan {
  const { now, ladder } = context;
  const plan: LadderPlan = { actions: [], status: {}, notes: [] };
  for (const { buildId, batch } of context.reactivated) {
    const read = observed.batches[batch.jobId];
    // Known to have ended (or never to have existed): forgotten. Running, or not read: stopped
    // (stopping a batch that ended is no error), and remembered until Temporal says it ended.
    if (read === null || (read && read.state !== 'Running')) continue;
    plan.actions.push({
      action: 'stopBatch',
      buildId,
      jobId: batch.jobId,
      reason: `build ${buildId} is current, ramping or the target again: its ladder stops, and its running ${batch.operation} batch is stopped`,
    });
    plan.status[buildId] = { step: stepOf(batch.operation), batch: read ?? batch };
  }
  if (context.suspect !== undefined) stopSuspected(context, context.suspect, observed, plan);
  if (!acts(ladder)) return plan;
  if (observed.failure)
    plan.notes.push({ type: 'Warning', reason: 'PinnedWorkflowsUnread', message: observed.failure });
  for (const build of context.builds) {
    const { buildId, memory } = build;
    const counted = observed.running[buildId];
    const running = counted ?? memory?.running;
    const countedAt = counted === undefined ? memory?.countedAt : now;
    const { reached, next } = progressOf(ladder, build, now);
    if (next && (!plan.recheckAt || next.at < plan.recheckAt)) plan.recheckAt = next.at;
    let batch = memory?.batch;
    if (reached) {
      const jobId = batchJobId(context.temporalName, buildId, reached.operation, ladder);
      const known = memory?.batch?.jobId === jobId ? memory.batch : undefined;
      const read = observed.batches[jobId];
      if (known && known.state !== 'Running') {
        batch = known;
      } else if (read) {
        batch = read;
        if (read.state !== 'Running') plan.notes.push(finished(buildId, read));
      } else if (read === null && !observed.failure && counted !== undefined && counted > 0 && !build.heldByMove) {
        // The status says it runs once it started (see report.ts).
        plan.actions.push(start(context, ladder, build, reached, jobId, counted));
      }
    }
    plan.status[buildId] = {
      step: reached?.operation ?? 'Waiting',
      ...(running === undefined ? {} : { running }),
      ...(countedAt ? { countedAt } : {}),
      ...(next ? { nextStepAt: next.at } : {}),
      ...(batch ? { batch } : {}),
    };
  }
  return plan;
}

/** Each batch found running on the suspect build, by its job ID or in Temporal's list, is stopped. */
function stopSuspected(context: LadderContext, buildId: string, observed: LadderObservation, plan: LadderPlan): void {
  const found = new Set([...suspectedBatches(context).map((b) => b.jobId), ...(observed.listed ?? [])]);
  for (const jobId of found) {
    if (jobId === context.suspectMoving) continue;
    const read = observed.batches[jobId];
    if (read?.state !== 'Running') continue;
    plan.actions.push({
      action: 'stopBatch',
      buildId,
      jobId,
      reason: `build ${buildId} is the target again and its ${read.operation} batch ${jobId}, which the status does not remember, still runs: it is stopped`,
    });
    // One batch is remembered per build: any other is stopped by this plan all the same.
    plan.status[buildId] ??= { step: stepOf(read.operation), batch: read };
  }
}

function start(
  context: LadderContext,
  ladder: PinnedWorkflowsLadder,
  build: LadderBuild,
  reached: { operation: LadderOperation },
  jobId: string,
  running: number,
): LadderAction {
  const { buildId, deactivatedAt } = build;
  const { operation } = reached;
  const field = DELAY_FIELDS[operation];
  const since = `build ${buildId} of Worker Deployment ${context.temporalName} has not been current or ramping since ${deactivatedAt.toISOString()}, longer than spec.sunset.pinnedWorkflows.${field} (${ladder[field]})`;
  const signalName = ladder.signalName ?? CONTINUE_AS_NEW_SIGNAL;
  const workflows = `its ${count(running, 'running workflow')}`;
  const what = {
    Signal: `sending ${signalName} to ${workflows}, asking them to continue as new onto the current build`,
    Cancel: `cancelling ${workflows}`,
    Terminate: `terminating ${workflows}`,
  }[operation];
  return {
    action: 'startBatch',
    buildId,
    operation,
    jobId,
    query: runningWorkflowsQuery(context.temporalName, [buildId]),
    ...(operation === 'Signal' ? { signalName } : {}),
    batchReason: operation !== 'Signal' && ladder.reason ? ladder.reason : since,
    reason: `${since}: ${what}`,
  };
}

function finished(buildId: string, batch: BatchProgress): LadderPlan['notes'][number] {
  const counts = `${batch.completed} of ${count(batch.total, 'workflow')} done, ${batch.failed} failed`;
  return batch.state === 'Completed'
    ? {
        reason: 'BatchOperationFinished',
        message: `${batch.operation} batch ${batch.jobId} on build ${buildId} finished: ${counts}`,
      }
    : {
        type: 'Warning',
        reason: 'BatchOperationFailed',
        message: `${batch.operation} batch ${batch.jobId} on build ${buildId} failed: ${counts}; a change of that step in spec.sunset.pinnedWorkflows runs it again`,
      };
}
