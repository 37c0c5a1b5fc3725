// Moving pinned workflows onto the current build when its code replays their histories: an old
// build's (spec.sunset.pinnedWorkflows.moveToCurrent), so it can drain and retire long before they
// end; an aborted rollout's build's (spec.rollout.onAbort: MoveToPrevious), so they leave the bad
// code; or one build's on request (spec.sunset.pinnedWorkflows.moveFrom, twc move). A move goes in
// rounds on each build asked for: up to a page of its
// running pinned workflows is listed, the worker library's replayCheck workflow, pinned to the
// current build, replays them on their task queue (one check per queue), and those that replay
// get a pinned versioning override onto the current build, as one batch operation on exactly
// those runs. The others stay and are named. A round that moved some is followed by another while
// more run than it left; one that moved none ends the moves onto that build; a failed one is tried
// again after a while. Rounds start only once a rollout has ended (the current build is the target,
// nothing ramps, no analysis window is open) or was aborted (nothing ramps), and a round under way
// stops when its build is current, ramping or an unaborted target again, when the build it moves
// onto is no longer current, or when nothing asks for it any more. The ladder waits on a build
// while its round runs, and a moment after (visibility shows a move a little late), so a workflow
// moved is never signalled, cancelled nor terminated by the old build's steps; a round waits for
// a ladder batch on its build to end. IDs are derived from (Worker Deployment, build, the build
// moved onto, round): a controller that restarts, or whose status write was refused, finds the
// check or batch it started instead of starting another. Pure: the builds, their memories and
// reads in, the actions and the status out.
import { specHash } from '../api/spec-hash.ts';
import { count } from '../domain/count.ts';
import {
  type MoveMemory,
  type MoveObservation,
  type PinnedRun,
  REPLAY_CHECK_WORKFLOW,
  type ReplayCheckResult,
} from '../domain/pinned-move.ts';
import { batchJobIdPrefix } from './pinned-workflows.ts';

/** Runs checked in one round: one page of visibility's list, and the worker library's bound of a check. */
export const MOVE_ROUND_RUNS = 1000;
/** A failed round is tried again this long after it ended. */
export const MOVE_RETRY_MS = 10 * 60_000;
/**
 * How long after a round ends its build's ladder still waits, and the next round with it:
 * visibility shows a move a little late (a second or so), and until it does the moved runs still
 * count, and are listed, on the old build.
 */
export const MOVE_SETTLE_MS = 60_000;
/** Runs left where they are that the status names, each with why. */
const NAMED_RUNS = 10;

export interface MoveBuild {
  buildId: string;
  /** Its workflows may move: an old build the ladder acts on, or the target of an aborted rollout. False: its round stops. */
  source: boolean;
  /** The field that asks for its moves, in words; undefined: none does. */
  askedBy?: string;
  memory?: MoveMemory;
  /** Its running pinned workflows as just counted; undefined: not counted. */
  running?: number;
  /** A batch of the ladder still runs on it: a round waits for its end. */
  ladderBatchRunning: boolean;
}

export interface MoveContext {
  now: Date;
  /** The Worker Deployment's name in Temporal. */
  temporalName: string;
  /** The current build, as this plan leaves routing. */
  currentBuildId?: string;
  /** The build rounds move onto, when one may start: the current build once a rollout ended or was aborted, and the workflow task queues its workers poll. */
  onto?: { buildId: string; workflowTaskQueues: string[] };
  builds: MoveBuild[];
}

export interface MoveReads {
  /** Builds whose running pinned workflows are listed, each only when more run than `above`. */
  list: { buildId: string; above: number }[];
  /** The replay checks read, by workflow ID. */
  checks: string[];
  /** The move batches read. */
  batches: { jobId: string; operation: 'Move' }[];
}

export type MoveAction =
  | {
      action: 'startReplayCheck';
      /** The old build whose workflows it checks. */
      buildId: string;
      /** The build it is pinned to and replays on. */
      onto: string;
      workflowId: string;
      taskQueue: string;
      runs: { workflowId: string; runId: string }[];
      /** What the status remembers once it started. */
      move: MoveMemory;
      reason: string;
    }
  | {
      action: 'startMoveBatch';
      buildId: string;
      onto: string;
      jobId: string;
      executions: { workflowId: string; runId: string }[];
      /** Recorded by Temporal with the batch. */
      batchReason: string;
      move: MoveMemory;
      reason: string;
    }
  | { action: 'stopBatch'; buildId: string; jobId: string; reason: string };

export interface MovePlan {
  actions: MoveAction[];
  /** Per build with a round: the round as the status remembers it (a start's own memory rides on its action). */
  status: Record<string, MoveMemory>;
  /** Builds whose ladder waits: a round runs on them or just ended. */
  holdsLadder: Set<string>;
  /** Builds with a round under way (or started by this plan): their Deployments stay until it ends. */
  underWay: Set<string>;
  notes: { type?: 'Warning'; reason: string; message: string }[];
  /** Runs that a round just ended moved and left, for the metric. */
  outcomes: { moved: number; notMoved: number; failedRounds: number };
  recheckAt?: Date;
}

/** The move batch of a round: under the ladder's prefix for the build, so a build active again finds it as it finds the ladder's. */
export function moveJobId(temporalName: string, buildId: string, onto: string, round: number): string {
  return `${batchJobIdPrefix(temporalName, buildId)}move/${specHash({ onto, round })}`;
}

export function replayCheckWorkflowId(
  temporalName: string,
  buildId: string,
  onto: string,
  round: number,
  taskQueue: string,
): string {
  return `temporal-worker-controller/replay-check/${temporalName}/${buildId}/${specHash({ onto, round, taskQueue })}`;
}

/** A round checking or moving: the ladder waits on its build, which may not retire before it ends. */
export function roundUnderWay(m: MoveMemory | undefined): boolean {
  return m?.phase === 'Checking' || m?.phase === 'Moving';
}

/** Why a round under way on the build stops now, if it does. */
function stopsBecause(context: MoveContext, build: MoveBuild, m: MoveMemory): string | undefined {
  if (!build.source)
    return `build ${build.buildId} is current, ramping or the target of a rollout again, or has no workers left`;
  if (!build.askedBy) return `nothing asks any more for the moves of build ${build.buildId}`;
  if (m.to !== context.currentBuildId) return `build ${m.to} is no longer current`;
  return undefined;
}

/** The round that may start on the build now, and above how many running workflows it is worth a list. */
function nextRound(context: MoveContext, build: MoveBuild): { round: number; above: number } | undefined {
  const { onto, now } = context;
  const m = build.memory;
  if (!build.askedBy || !onto || !build.source || onto.buildId === build.buildId || build.ladderBatchRunning)
    return undefined;
  // Until visibility shows the last round's moves, its runs would be listed on the build again.
  if (m?.endedAt && now.getTime() < m.endedAt.getTime() + MOVE_SETTLE_MS) return undefined;
  if (!m || m.to !== onto.buildId) return { round: 1, above: 0 };
  if (m.phase === 'Failed')
    return now.getTime() >= (m.endedAt?.getTime() ?? 0) + MOVE_RETRY_MS ? { round: m.round + 1, above: 0 } : undefined;
  // A round that moved none ends the moves onto that build: the same workflows would be listed again.
  if (m.phase === 'Done' && (m.batch?.completed ?? 0) > 0) return { round: m.round + 1, above: m.notMoved ?? 0 };
  return undefined;
}

export function moveReads(context: MoveContext): MoveReads {
  const reads: MoveReads = { list: [], checks: [], batches: [] };
  for (const build of context.builds) {
    const m = build.memory;
    if (m?.phase === 'Checking' && !stopsBecause(context, build, m))
      reads.checks.push(...m.checks.map((c) => c.workflowId));
    if (m?.phase === 'Moving' && m.batch) reads.batches.push({ jobId: m.batch.jobId, operation: 'Move' });
    const next = roundUnderWay(m) ? undefined : nextRound(context, build);
    if (next) reads.list.push({ buildId: build.buildId, above: next.above });
  }
  return reads;
}

export function planMoves(context: MoveContext, observed: MoveObservation): MovePlan {
  const plan: MovePlan = {
    actions: [],
    status: {},
    holdsLadder: new Set(),
    underWay: new Set(),
    notes: [],
    outcomes: { moved: 0, notMoved: 0, failedRounds: 0 },
  };
  if (observed.failure)
    plan.notes.push({ type: 'Warning', reason: 'PinnedWorkflowsUnread', message: observed.failure });
  for (const build of context.builds) {
    const m = build.memory;
    let after: MoveMemory | undefined = m;
    if (m?.phase === 'Checking') after = checking(context, build, m, observed, plan);
    else if (m?.phase === 'Moving') after = moving(context, build, m, observed, plan);
    if (!roundUnderWay(after) && build.running !== undefined && build.running > 0) {
      const next = nextRound(context, build);
      const runs = observed.runs[build.buildId];
      if (next && runs && runs.length > 0 && build.running > next.above)
        after = startRound(context, build, next.round, runs, plan) ?? after;
    }
    if (after) plan.status[build.buildId] = after;
    const settling = after?.endedAt && context.now.getTime() < after.endedAt.getTime() + MOVE_SETTLE_MS;
    const started = plan.actions.some((a) => a.buildId === build.buildId && a.action !== 'stopBatch');
    const underWay = roundUnderWay(after) || started;
    if (underWay) plan.underWay.add(build.buildId);
    if (underWay || settling) plan.holdsLadder.add(build.buildId);
    if (settling && after?.endedAt) recheck(plan, new Date(after.endedAt.getTime() + MOVE_SETTLE_MS));
    if (after?.phase === 'Failed' && after.to === context.onto?.buildId && nextRound(context, build) === undefined)
      recheck(plan, new Date((after.endedAt?.getTime() ?? 0) + MOVE_RETRY_MS));
  }
  return plan;
}

function recheck(plan: MovePlan, at: Date): void {
  if (!plan.recheckAt || at < plan.recheckAt) plan.recheckAt = at;
}

function ended(context: MoveContext, m: MoveMemory, change: Partial<MoveMemory>): MoveMemory {
  return { ...m, ...change, endedAt: context.now };
}

function failed(context: MoveContext, build: MoveBuild, m: MoveMemory, why: string, plan: MovePlan): MoveMemory {
  plan.outcomes.failedRounds++;
  plan.notes.push({
    type: 'Warning',
    reason: 'PinnedWorkflowsMoveFailed',
    message: `round ${m.round} of moving the pinned workflows of build ${build.buildId} onto build ${m.to} failed: ${why}; tried again after ${MOVE_RETRY_MS / 60_000} minutes`,
  });
  return ended(context, m, { phase: 'Failed', message: why });
}

/** A round stopped before its end: nothing more of it is done, and its batch, if any, is stopped. */
function stopped(context: MoveContext, build: MoveBuild, m: MoveMemory, why: string, plan: MovePlan): MoveMemory {
  if (m.batch)
    plan.actions.push({
      action: 'stopBatch',
      buildId: build.buildId,
      jobId: m.batch.jobId,
      reason: `${why}: the move of build ${build.buildId}'s pinned workflows onto build ${m.to} stops`,
    });
  plan.notes.push({
    reason: 'PinnedWorkflowsMoveStopped',
    message: `round ${m.round} of moving the pinned workflows of build ${build.buildId} onto build ${m.to} stopped: ${why}`,
  });
  return ended(context, m, { phase: 'Failed', message: `stopped: ${why}` });
}

function checking(
  context: MoveContext,
  build: MoveBuild,
  m: MoveMemory,
  observed: MoveObservation,
  plan: MovePlan,
): MoveMemory {
  const stop = stopsBecause(context, build, m);
  if (stop) return stopped(context, build, m, stop, plan);
  const results: ReplayCheckResult[] = [];
  for (const { workflowId } of m.checks) {
    const run = observed.checks[workflowId];
    if (run === undefined) return m;
    if (run === null) return failed(context, build, m, `replay check ${workflowId} is gone from Temporal`, plan);
    if (run.workflowType !== REPLAY_CHECK_WORKFLOW || run.pinnedTo?.buildId !== m.to)
      return failed(
        context,
        build,
        m,
        `the run under workflow ID ${workflowId} is not the controller's replay check (workflow type ${run.workflowType ?? 'unknown'}, pinned to ${run.pinnedTo?.buildId ?? 'no build'})`,
        plan,
      );
    if (run.stuck) return failed(context, build, m, `replay check ${workflowId} cannot run: ${run.stuck}`, plan);
    if (run.status === 'Failed')
      return failed(context, build, m, `replay check ${workflowId} failed: ${run.message ?? 'no reason given'}`, plan);
    if (run.status === 'Running') return m;
    results.push(...(run.results ?? []));
  }
  const replaying = results.filter((r) => r.replays && !r.skipped);
  const left = [
    ...(m.notMovedRuns ?? []),
    ...results.filter((r) => !r.replays || r.skipped).map((r) => ({ ...r, reason: whyNotMoved(r, m.to) })),
  ];
  const notMoved = (m.notMoved ?? 0) + results.length - replaying.length;
  const named = left.slice(0, NAMED_RUNS).map(({ workflowId, runId, reason }) => ({ workflowId, runId, reason }));
  const withLeft = { ...m, notMoved, ...(named.length > 0 ? { notMovedRuns: named } : {}) };
  if (replaying.length === 0) {
    plan.outcomes.notMoved += notMoved;
    plan.notes.push({
      reason: 'PinnedWorkflowsNotMoved',
      message: `none of the ${count(m.checked, 'pinned workflow')} of build ${build.buildId} checked in round ${m.round} replays on build ${m.to}: they stay on build ${build.buildId}${namedText(named)}`,
    });
    return ended(context, withLeft, { phase: 'Done' });
  }
  const jobId = moveJobId(context.temporalName, build.buildId, m.to, m.round);
  const what = `moving ${count(replaying.length, 'pinned workflow')} of build ${build.buildId} onto build ${m.to}, whose code replays their histories`;
  const stay = notMoved > 0 ? `; ${stayed(notMoved)}${namedText(named)}` : '';
  plan.actions.push({
    action: 'startMoveBatch',
    buildId: build.buildId,
    onto: m.to,
    jobId,
    executions: replaying.map(({ workflowId, runId }) => ({ workflowId, runId })),
    batchReason: `${build.askedBy ?? 'a move'} of Worker Deployment ${context.temporalName}: round ${m.round} moves the pinned workflows of build ${build.buildId} whose histories replay on build ${m.to} onto it`,
    move: {
      ...withLeft,
      phase: 'Moving',
      batch: {
        jobId,
        operation: 'Move',
        state: 'Running',
        startTime: context.now,
        total: replaying.length,
        completed: 0,
        failed: 0,
      },
    },
    reason: `${what}${stay}`,
  });
  return withLeft;
}

function moving(
  context: MoveContext,
  build: MoveBuild,
  m: MoveMemory,
  observed: MoveObservation,
  plan: MovePlan,
): MoveMemory {
  const jobId = m.batch?.jobId ?? '';
  const read = observed.batches[jobId];
  if (read?.state === 'Completed') {
    plan.outcomes.moved += read.completed;
    plan.outcomes.notMoved += (m.notMoved ?? 0) + read.failed;
    const failures = read.failed > 0 ? `; Temporal could not move ${read.failed} (closed meanwhile, or refused)` : '';
    const stay = m.notMoved ? `; ${stayed(m.notMoved)} on build ${build.buildId}` : '';
    plan.notes.push({
      reason: 'PinnedWorkflowsMoved',
      message: `round ${m.round} moved ${count(read.completed, 'pinned workflow')} of build ${build.buildId} onto build ${m.to}${failures}${stay}`,
    });
    return ended(context, m, { phase: 'Done', batch: read });
  }
  const stop = stopsBecause(context, build, m);
  if (stop) return stopped(context, build, read ? { ...m, batch: read } : m, stop, plan);
  if (read === undefined) return m;
  if (read === null) return failed(context, build, m, `move batch ${jobId} is gone from Temporal`, plan);
  if (read.state === 'Failed')
    return failed(
      context,
      build,
      { ...m, batch: read },
      `move batch ${jobId} failed after moving ${read.completed} of ${read.total}`,
      plan,
    );
  return { ...m, batch: read };
}

function startRound(
  context: MoveContext,
  build: MoveBuild,
  round: number,
  listed: PinnedRun[],
  plan: MovePlan,
): MoveMemory | undefined {
  const { onto, now, temporalName } = context;
  if (!onto) return undefined;
  const runs = listed.slice(0, MOVE_ROUND_RUNS);
  const byQueue = new Map<string, PinnedRun[]>();
  for (const run of runs) byQueue.set(run.taskQueue, [...(byQueue.get(run.taskQueue) ?? []), run]);
  const served = [...byQueue.keys()].filter((q) => onto.workflowTaskQueues.includes(q)).sort();
  const unserved = runs
    .filter((r) => !served.includes(r.taskQueue))
    .map(({ workflowId, runId, taskQueue }) => ({
      workflowId,
      runId,
      reason: `no worker of build ${onto.buildId} polls task queue ${taskQueue}`,
    }));
  let move: MoveMemory = {
    to: onto.buildId,
    round,
    phase: 'Checking',
    startedAt: now,
    checks: [],
    checked: runs.length,
    ...(unserved.length > 0
      ? { notMoved: unserved.length, notMovedRuns: unserved.slice(0, NAMED_RUNS) }
      : { notMoved: 0 }),
  };
  if (served.length === 0) {
    plan.outcomes.notMoved += unserved.length;
    plan.notes.push({
      reason: 'PinnedWorkflowsNotMoved',
      message: `the ${count(runs.length, 'pinned workflow')} of build ${build.buildId} listed in round ${round} cannot move onto build ${onto.buildId}: ${unserved[0]?.reason ?? ''}${unserved.length > 1 ? ' (and others)' : ''}`,
    });
    return { ...move, phase: 'Done', endedAt: now };
  }
  for (const taskQueue of served) {
    const queued = byQueue.get(taskQueue) ?? [];
    const workflowId = replayCheckWorkflowId(temporalName, build.buildId, onto.buildId, round, taskQueue);
    move = { ...move, checks: [...move.checks, { taskQueue, workflowId }] };
    plan.actions.push({
      action: 'startReplayCheck',
      buildId: build.buildId,
      onto: onto.buildId,
      workflowId,
      taskQueue,
      runs: queued.map(({ workflowId: id, runId }) => ({ workflowId: id, runId })),
      move,
      reason: `round ${round} of ${build.askedBy ?? 'a move'}: checking whether build ${onto.buildId}'s code replays the ${count(queued.length, 'pinned workflow')} of build ${build.buildId} on task queue ${taskQueue} (replay check ${workflowId}, pinned to build ${onto.buildId})`,
    });
  }
  // Until a check starts, the round is not remembered: the status keeps what it was.
  return build.memory;
}

function whyNotMoved(result: ReplayCheckResult, onto: string): string {
  if (result.skipped) return `not checked: ${result.skipped}`;
  const at = result.event === undefined ? '' : ` at event ${result.event}`;
  return `does not replay on build ${onto}${at}${result.message ? `: ${result.message}` : ''}`;
}

function stayed(n: number): string {
  return `${count(n, 'workflow')} ${n === 1 ? 'stays' : 'stay'}`;
}

function namedText(named: { workflowId: string; reason: string }[]): string {
  if (named.length === 0) return '';
  return ` (${named
    .slice(0, 3)
    .map((r) => `${r.workflowId}: ${r.reason}`)
    .join('; ')}${named.length > 3 ? '; …' : ''})`;
}
