// Which gate stands before the next routing change, and what to do about it: start what has not
// run, wait for what runs, pass when every run completed, stop when one failed. Pure.
import type { Rollout, TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { RETRY_GATE_ANNOTATION } from '../domain/annotations.ts';
import type { BuildTaskQueues, GateRun } from '../domain/snapshot.ts';
import { specHash } from '../api/spec-hash.ts';
import { foreignGateRun } from './gate-run-identity.ts';
import { stepAtOrBelow } from './routing.ts';

type Gate = NonNullable<Rollout['gate']>;

export interface GateStage {
  /** `rollout` for rollout.gate, `step-N` for the gate of step N. */
  name: string;
  gate: Gate;
}

export interface StageInput {
  rollout: Rollout;
  targetBuildId: string;
  currentBuildId?: string | undefined;
  rampingBuildId?: string | undefined;
  rampPercentage?: number | undefined;
}

/**
 * The gates that stand before the target's next routing change, in the order they run: the
 * rollout gate before any traffic moves, and each step's gate before that step's ramp is set, so
 * the ramp of the step before holds while it runs (all of them before the first change when no
 * build is current). Empty once the target is current.
 */
export function gateStages({
  rollout,
  targetBuildId,
  currentBuildId,
  rampingBuildId,
  rampPercentage,
}: StageInput): GateStage[] {
  if (currentBuildId === targetBuildId) return [];
  const steps = rollout.steps ?? [];
  const progressive = rollout.strategy === 'Progressive';
  const rolloutGate = rollout.gate ? [{ name: 'rollout', gate: rollout.gate }] : [];
  /** The gates of the steps before `end`, in order. */
  const stepGates = (end: number): GateStage[] =>
    steps.slice(0, end).flatMap((step, i) => (step.gate ? [{ name: `step-${i + 1}`, gate: step.gate }] : []));
  if (progressive && rampingBuildId === targetBuildId && rampPercentage !== undefined) {
    const index = stepAtOrBelow(steps, rampPercentage);
    const at = steps[index]?.rampPercentage ?? rampPercentage;
    // The gates behind the ramp stand too (passed, they are read from the status): one the spec
    // added or moved there since has not judged this build. A ramp changed by hand snaps to a
    // step: up to it needs its gate, down to it does not.
    return [...rolloutGate, ...stepGates(rampPercentage === at ? index + 2 : index + 1)];
  }
  // With no build current, the target may be promoted at once (no worker to ramp from): every
  // step's gate then stands before that first change, since no ramp comes between them.
  const upFront = progressive ? stepGates(currentBuildId === undefined ? steps.length : 1) : [];
  return [...rolloutGate, ...upFront];
}

/** The task queues a build's gates run on, or none and the queues still missing. */
export interface GateQueues {
  /** One gate run on each. */
  taskQueues: string[];
  /** Queues of the build's Deployments whose workers Temporal does not list yet for workflows and activities. */
  missing?: string[];
  /** The build's Deployments (by pool) not yet available, whose workers' queues cannot be known yet. */
  unavailable?: string[];
}

export interface GateCheck extends GateQueues {
  stage: string;
  /** The latest run per task queue; absent when none was started. */
  runs: Record<string, GateRun | undefined>;
  /** Failed runs start again: a failure of an older generation, or the retry annotation asked for it. */
  retry: boolean;
  /** Running runs that no longer count (an older generation's, or stuck ones a retry replaces): terminated, then started again. */
  replace: string[];
}

export type GateVerdict =
  | { state: 'passed'; reason: string }
  | {
      state: 'pending';
      start: string[];
      /** A run that cannot progress: its workflow task keeps failing. */
      stuck?: { taskQueue: string; run: GateRun };
      reason: string;
    }
  | { state: 'failed'; taskQueue: string; run: GateRun; reason: string };

export function judgeGate({
  stage,
  taskQueues,
  missing = [],
  unavailable = [],
  runs,
  retry,
  replace,
}: GateCheck): GateVerdict {
  if (taskQueues.length === 0)
    return {
      state: 'pending',
      start: [],
      reason:
        unavailable.length > 0
          ? `gate ${stage} waits for the Deployment of ${unavailable.join(', ')} to be available: a gate runs on the queue of every Deployment of the build or on none`
          : missing.length > 0
            ? `gate ${stage} waits for the build's workers to poll task queue ${missing.join(', ')} for workflows and activities: a gate runs on every pool's queue or on none`
            : `gate ${stage} waits for the build's workers to register a task queue for workflows and activities (a build whose workers poll no activities runs its gates on its workflow queues once its registration grace has passed)`,
    };
  const failed = taskQueues.find((q) => runs[q]?.status === 'Failed');
  const failedRun = failed === undefined ? undefined : runs[failed];
  if (failed !== undefined && failedRun && !retry) {
    return {
      state: 'failed',
      taskQueue: failed,
      run: failedRun,
      reason: `gate ${stage} failed on task queue ${failed}: workflow ${failedRun.workflowId} ${failedRun.message ?? 'failed'}`,
    };
  }
  const start = taskQueues.filter((q) => runs[q] === undefined || runs[q]?.status === 'Failed' || replace.includes(q));
  if (start.length === 0 && taskQueues.every((q) => runs[q]?.status === 'Completed'))
    return { state: 'passed', reason: `gate ${stage} completed on every task queue` };
  const running = taskQueues.filter((q) => runs[q]?.status === 'Running' && !start.includes(q));
  const stuckQueue = running.find((q) => runs[q]?.stuck !== undefined);
  const stuckRun = stuckQueue === undefined ? undefined : runs[stuckQueue];
  if (stuckQueue !== undefined && stuckRun) {
    const type = stuckRun.workflowType ? ` (${stuckRun.workflowType})` : '';
    return {
      state: 'pending',
      start,
      stuck: { taskQueue: stuckQueue, run: stuckRun },
      reason: `gate ${stage} cannot progress on task queue ${stuckQueue}: workflow ${stuckRun.workflowId}${type} runs, but ${stuckRun.stuck}`,
    };
  }
  return {
    state: 'pending',
    start,
    reason: `gate ${stage} ${start.length ? `starts on ${start.join(', ')}` : `runs on ${running.join(', ')}`}`,
  };
}

/**
 * Unique per build, stage, queue and the gate's own spec (workflow type, input): a new spec of the
 * gate has runs of its own, while any other edit of the spec changes nothing. Anyone may start a
 * run under it: which run counts is gate-run-identity.ts's to say.
 */
export function gateWorkflowId(temporalName: string, buildId: string, stage: GateStage, taskQueue: string): string {
  return `temporal-worker-controller/gate/${temporalName}/${buildId}/${stage.name}/${taskQueue}/${gateSpecHash(stage.gate)}`;
}

/**
 * The workflow task queues a build's gates run on. A queue counts once the build's workers poll it
 * for activities too: until then Temporal sends the activities of a workflow pinned to the build
 * to the queue's current build (its rule for a queue the pinned version lacks), and the gate would
 * judge the build it is to replace. A build whose workers still poll no queue for activities once
 * the registration grace has passed has no activities at all: its gates run on its workflow queues.
 */
export function gateTaskQueues(taskQueues: BuildTaskQueues, pastRegistrationGrace: boolean): string[] {
  if (pastRegistrationGrace && taskQueues.activity.length === 0) return [...taskQueues.workflow].sort();
  const withActivities = new Set(taskQueues.activity);
  return taskQueues.workflow.filter((q) => withActivities.has(q)).sort();
}

type TargetStatus = NonNullable<NonNullable<TemporalWorkerDeployment['status']>['targetVersion']>;
/** What the status remembers of the target's gates. */
export type GateMemory = Pick<
  TargetStatus,
  'gates' | 'gateFailure' | 'gateRetry' | 'gatePoolQueues' | 'gateQueuesListed'
>;
type QueuesListed = NonNullable<TargetStatus['gateQueuesListed']>;

/**
 * How long after Temporal first lists a build's queue a gate starts on it. Temporal adds the queue
 * to the build's description at once and tells the queue's partitions after (the root partition
 * first, the others from it); a partition that does not yet know the build sends the activities of
 * a workflow pinned to it to the queue's current build, so a gate started then would judge the
 * build it is to replace. Temporal states no bound on that delay: this is a margin over it, as
 * the registration grace is over a worker's start.
 */
export const QUEUE_PROPAGATION_MS = 10_000;
type GateFailure = NonNullable<TargetStatus['gateFailure']>;

export interface GateContext {
  now: Date;
  /** The gates before the next routing change, in order (see gateStages). */
  stages: GateStage[];
  /** The rollout as the spec says it now: the gate a remembered failure is judged against. */
  rollout: Rollout;
  /** The task queues the spec's pools name, sorted (none without pools): a pass counts only for that layout, once every one of them has its run. */
  expectedQueues: string[];
  buildId: string;
  temporalName: string;
  generation: number;
  /** What the status said of this same target build, if anything. */
  previous: GateMemory | undefined;
  /** The retry annotation's value, when it asks for a retry not yet acted on. */
  retry?: string | undefined;
}

/** The first gate whose runs Temporal must be asked about: none when the status tells they all completed. */
export function gateToRead(context: GateContext): GateStage | undefined {
  if (failureHolds(context)) return undefined;
  return context.stages.find((stage) => !completed(context, stage));
}

/** The hash a gate's runs are remembered under: its own spec, nothing else of the rollout. */
export function gateSpecHash(gate: Gate): string {
  return specHash(gate);
}

/**
 * Every remembered run of the stage completed, each of the gate's present spec (its workflow ID
 * says so; one of an older spec, or remembered by a controller before spec hashes, does not
 * count) and with the run ID of the run the controller started (one remembered by a controller
 * that recorded none is read again), on every queue the pools name.
 */
function completed(context: GateContext, stage: GateStage): boolean {
  const { previous, expectedQueues, temporalName, buildId } = context;
  const known = (previous?.gates ?? []).filter((g) => g.stage === stage.name);
  // Pools added or removed since the runs were read (to or from none, whose queue only Temporal knows).
  const layout = previous?.gatePoolQueues ?? [];
  return (
    layout.join(',') === expectedQueues.join(',') &&
    known.length > 0 &&
    known.every(
      (g) =>
        g.status === 'Completed' &&
        g.runID !== undefined &&
        g.workflowID === gateWorkflowId(temporalName, buildId, stage, g.taskQueue),
    ) &&
    expectedQueues.every((q) => known.some((g) => g.taskQueue === q))
  );
}

/**
 * The runs still going of the gates of a build that is no longer the target: they judge a rollout
 * that no longer happens, and its workers go (a superseded build is scaled down), so they are
 * terminated rather than left to time out and be read, were the build the target again, as failed.
 */
export function abandonedGates(
  stored: TargetStatus | undefined,
  targetBuildId: string,
): { buildId: string; stage: string; taskQueue: string; workflowId: string; runId: string }[] {
  if (!stored || stored.buildID === targetBuildId) return [];
  return (stored.gates ?? [])
    .filter((g) => g.status === 'Running')
    .map((g) => ({
      buildId: stored.buildID,
      stage: g.stage,
      taskQueue: g.taskQueue,
      workflowId: g.workflowID,
      runId: g.runID ?? '',
    }));
}

/** Every gate the spec sets, wherever the rollout stands. */
function gatesOf(rollout: Rollout): Gate[] {
  return [rollout.gate, ...(rollout.steps ?? []).map((s) => s.gate)].filter((g): g is Gate => g !== undefined);
}

/**
 * A remembered failure holds while the spec still sets the failed gate, as it was (moved to
 * another step, too), and no retry is asked: a pause, a replica count or any other edit leaves it
 * failed. One remembered without a hash holds for its generation, as it did when it was written.
 */
function failureHolds({ previous, rollout, generation, retry }: GateContext): boolean {
  const failure = previous?.gateFailure;
  if (!failure || retry !== undefined) return false;
  if (failure.specHash === undefined) return failure.generation === generation;
  return gatesOf(rollout).some((gate) => gateSpecHash(gate) === failure.specHash);
}

export interface GateStart {
  stage: string;
  taskQueue: string;
  workflowId: string;
  gate: Gate;
  /** The running run this start replaces: it is terminated first, for this reason. */
  replaces?: { runId: string; why: string };
}

export interface GateDecision {
  gate: 'passed' | 'pending' | 'failed';
  memory: GateMemory;
  /** Runs to start, one per task queue that has none (or a failed one to retry). */
  starts: GateStart[];
  /**
   * Runs the status last saw running that this decision no longer remembers: nothing will read them
   * again, so they are ended, lest one time out and be read, were the build the target again, as its failure.
   */
  ended?: GateRunToEnd[];
  /** What was learned, for an event: the gate passed. */
  passed?: string;
  /** What a pending gate waits for, when its runs were read. */
  waiting?: string;
  /** What blocks the rollout until someone acts: a failed gate, or one that cannot progress. */
  failure?: { reason: 'RolloutAborted' | 'GateFailed' | 'GateStuck'; message: string };
  /** Runs found under the gate's workflow IDs that the controller did not start: they count for nothing. */
  foreign?: string;
  /** When a gate held back until Temporal's queues learned of the build may start. */
  recheckAt?: Date;
}

export type RememberedGateRun = NonNullable<GateMemory['gates']>[number];

export interface GateRunToEnd {
  run: RememberedGateRun;
  why: string;
}

export interface ObservedGate extends GateQueues {
  stage: string;
  runs: Record<string, GateRun | undefined>;
}

/** The verdict on the gates before the next routing change; `observed`: the runs of the stage gateToRead named. */
export function decideGates(context: GateContext, observed: ObservedGate | undefined): GateDecision {
  const judged = decideStages(context, observed);
  const ended = runsToEnd(context, judged.memory.gates ?? []);
  const decided = ended.length > 0 ? { ...judged, ended } : judged;
  // The layout the remembered runs hold for: this one once runs were read under it, else the one
  // they were read under (a gate waiting for a Deployment to be available reads none).
  const layout = observed?.taskQueues.length ? context.expectedQueues : context.previous?.gatePoolQueues;
  const gateQueuesListed = decided.memory.gateQueuesListed ?? context.previous?.gateQueuesListed;
  // The retry asked is acted on by this decision (there may be nothing to retry): once per value.
  const gateRetry = context.retry ?? context.previous?.gateRetry;
  return {
    ...decided,
    memory: {
      ...decided.memory,
      ...(decided.memory.gates && layout?.length ? { gatePoolQueues: layout } : {}),
      ...(gateQueuesListed ? { gateQueuesListed } : {}),
      ...(gateRetry === undefined ? {} : { gateRetry }),
    },
  };
}

/**
 * The queues Temporal lists for the build's gates, and since when the last of them: those the
 * status remembers, and `fresh` (queues where a gate is to start for the first time) from now.
 */
function listedQueues(context: GateContext, fresh: string[]): QueuesListed | undefined {
  const before = context.previous?.gateQueuesListed;
  if (fresh.every((q) => before?.taskQueues.includes(q))) return before;
  const taskQueues = [...new Set([...(before?.taskQueues ?? []), ...fresh])].sort();
  return { taskQueues, since: context.now.toISOString() };
}

function decideStages(context: GateContext, observed: ObservedGate | undefined): GateDecision {
  const { stages, previous, buildId } = context;
  const failure = previous?.gateFailure;
  if (failure && failureHolds(context)) return failed(buildId, failure, previous?.gates);
  const gates: NonNullable<GateMemory['gates']> = [];
  let passed: string | undefined;
  for (const [index, stage] of stages.entries()) {
    if (observed?.stage === stage.name) {
      const decision = decideStage(context, stage, observed);
      gates.push(...(decision.memory.gates ?? []));
      if (decision.gate !== 'passed') return { ...decision, memory: { ...decision.memory, gates } };
      passed = decision.passed;
    } else if (completed(context, stage)) {
      gates.push(...rememberedRuns(context, stage));
    } else {
      // Not read this time (its build not registered, a read that failed): its runs, and those of the
      // stages after it, stay remembered, as only the run IDs remembered tell the controller's own
      // runs from anyone's.
      gates.push(...stages.slice(index).flatMap((s) => rememberedRuns(context, s)));
      return { gate: 'pending', memory: gates.length > 0 ? { gates } : {}, starts: [], ...(passed ? { passed } : {}) };
    }
  }
  return { gate: 'passed', memory: gates.length > 0 ? { gates } : {}, starts: [], ...(passed ? { passed } : {}) };
}

function decideStage(context: GateContext, stage: GateStage, observed: ObservedGate): GateDecision {
  const { previous, generation, buildId, retry } = context;
  const { taskQueues, missing, unavailable } = observed;
  const idOf = (taskQueue: string) => gateWorkflowId(context.temporalName, buildId, stage, taskQueue);
  const remembered = (taskQueue: string) =>
    previous?.gates?.find((g) => g.stage === stage.name && g.taskQueue === taskQueue);
  const foreign = foreignRuns(context, stage, observed);
  // Only the controller's own runs judge the build; the gate runs again where there is none.
  const runs = Object.fromEntries(Object.entries(observed.runs).filter(([q]) => !foreign.has(q)));
  const replacing = new Map<string, { runId: string; why: string }>();
  for (const taskQueue of taskQueues) {
    const run = runs[taskQueue];
    if (run?.status === 'Running' && run.stuck !== undefined && retry !== undefined)
      replacing.set(taskQueue, {
        runId: run.runId ?? '',
        why: `it cannot progress and annotation ${RETRY_GATE_ANNOTATION}=${retry} asks for a new run`,
      });
    const alien = foreign.get(taskQueue);
    if (alien?.run.status === 'Running')
      replacing.set(taskQueue, {
        runId: alien.run.runId ?? '',
        why: `it is not the run the controller started: ${alien.why}`,
      });
  }
  const judged = judgeGate({
    stage: stage.name,
    taskQueues,
    ...(missing ? { missing } : {}),
    ...(unavailable ? { unavailable } : {}),
    runs,
    retry: previous?.gateFailure !== undefined || retry !== undefined,
    replace: [...replacing.keys()],
  });
  // A gate's first run on a queue waits until the queue's partitions know the build (see
  // QUEUE_PROPAGATION_MS); a queue with a run of the controller's own, now or remembered, was listed before.
  const ranOn = (q: string) =>
    runs[q] !== undefined || previous?.gates?.some((g) => g.taskQueue === q && g.runID !== undefined);
  const fresh = judged.state === 'pending' ? judged.start.filter((q) => !ranOn(q)) : [];
  const listed = listedQueues(context, fresh);
  const startsAt = listed && new Date(Date.parse(listed.since) + QUEUE_PROPAGATION_MS);
  const held = startsAt && startsAt > context.now ? fresh : [];
  const verdict: GateVerdict =
    judged.state === 'pending' && held.length > 0
      ? {
          ...judged,
          start: judged.start.filter((q) => !held.includes(q)),
          reason: `gate ${stage.name} starts on ${held.join(', ')} at ${startsAt?.toISOString()}, ${QUEUE_PROPAGATION_MS / 1000} s after Temporal listed the queue for build ${buildId}: until each of the queue's partitions knows the build, Temporal sends the activities of a workflow pinned to it to the current build`,
        }
      : judged;
  const starts =
    verdict.state === 'pending'
      ? verdict.start.map((taskQueue) => {
          const replaces = replacing.get(taskQueue);
          return {
            stage: stage.name,
            taskQueue,
            workflowId: idOf(taskQueue),
            gate: stage.gate,
            ...(replaces ? { replaces } : {}),
          };
        })
      : [];
  const started = new Set(starts.map((s) => s.taskQueue));
  // No queue known yet (a Deployment not yet available): the runs remembered stay, unjudged.
  const gates =
    taskQueues.length === 0
      ? rememberedRuns(context, stage)
      : taskQueues.map((taskQueue) => {
          const same = remembered(taskQueue);
          const startedFor = started.has(taskQueue)
            ? generation
            : same?.workflowID === idOf(taskQueue)
              ? same.generation
              : undefined;
          // A run started now has its ID recorded once started (see report.ts).
          const runID = started.has(taskQueue) ? undefined : runs[taskQueue]?.runId;
          return {
            stage: stage.name,
            taskQueue,
            workflowID: idOf(taskQueue),
            ...(runID ? { runID } : {}),
            status: started.has(taskQueue)
              ? 'Running'
              : held.includes(taskQueue)
                ? 'Waiting'
                : (runs[taskQueue]?.status ?? 'Running'),
            ...(startedFor === undefined ? {} : { generation: startedFor }),
          };
        });
  if (verdict.state === 'failed') {
    const run = verdict.run;
    return failed(
      buildId,
      {
        generation,
        specHash: gateSpecHash(stage.gate),
        stage: stage.name,
        workflowID: run.workflowId,
        message: verdict.reason,
      },
      gates,
    );
  }
  const stuck =
    verdict.state === 'pending' && verdict.stuck
      ? {
          failure: {
            reason: 'GateStuck' as const,
            message: `${verdict.reason}; traffic stays where it is: fix the gate in the spec (a change of the gate replaces the run) or set annotation ${RETRY_GATE_ANNOTATION} to a new value to run it again`,
          },
        }
      : {};
  const reported = foreignReport(stage, foreign);
  return {
    gate: verdict.state,
    memory: { gates, ...(listed ? { gateQueuesListed: listed } : {}) },
    starts,
    ...stuck,
    ...(reported ? { foreign: reported } : {}),
    ...(verdict.state === 'passed'
      ? { passed: `${verdict.reason} for build ${buildId}` }
      : { waiting: verdict.reason }),
    ...(held.length > 0 ? { recheckAt: startsAt } : {}),
  };
}

/** The runs the status last saw running that `kept` (the memory decided) no longer holds, each with why. */
function runsToEnd(context: GateContext, kept: RememberedGateRun[]): GateRunToEnd[] {
  const { previous, stages, expectedQueues, temporalName, buildId } = context;
  const why = (g: RememberedGateRun): string => {
    const stage = stages.find((s) => s.name === g.stage);
    if (!stage) return `no rollout of build ${buildId} waits for gate ${g.stage} any more`;
    if (g.workflowID !== gateWorkflowId(temporalName, buildId, stage, g.taskQueue))
      return 'it was started for another spec of the gate, which no longer stands';
    if (expectedQueues.length > 0 && !expectedQueues.includes(g.taskQueue))
      return `no pool of build ${buildId} polls task queue ${g.taskQueue} any more`;
    return `a gate before ${g.stage} is judged again first, and ${g.stage} runs again after it`;
  };
  return (previous?.gates ?? [])
    .filter((g) => g.status === 'Running' && !kept.some((k) => k.workflowID === g.workflowID))
    .map((g) => ({ run: g, why: why(g) }));
}

/** What the status remembers of the stage's runs. */
function rememberedRuns({ previous }: GateContext, stage: GateStage): RememberedGateRun[] {
  return (previous?.gates ?? []).filter((g) => g.stage === stage.name);
}

type ForeignRuns = Map<string, { run: GateRun; why: string }>;

/**
 * The runs of the stage, by task queue, that are not the controller's own (see gate-run-identity.ts).
 * One the status does not know it started may also be of an earlier rollout of this build, or the
 * controller's own whose status write was lost: none of them counts, and the gate runs again.
 */
function foreignRuns(context: GateContext, stage: GateStage, observed: ObservedGate): ForeignRuns {
  const { previous, temporalName, buildId } = context;
  const foreign: ForeignRuns = new Map();
  for (const [taskQueue, run] of Object.entries(observed.runs)) {
    if (!run) continue;
    const remembered = previous?.gates?.find(
      (g) => g.stage === stage.name && g.taskQueue === taskQueue && g.workflowID === run.workflowId,
    );
    const why = foreignGateRun(run, {
      runId: remembered?.runID,
      workflowType: stage.gate.workflowType,
      deploymentName: temporalName,
      buildId,
    });
    if (why !== undefined) foreign.set(taskQueue, { run, why });
  }
  return foreign;
}

/**
 * What a foreign run that could have passed or held the gate is reported as. A failed one is not:
 * it passes nothing, and an earlier rollout of this build leaves such runs behind.
 */
function foreignReport(stage: GateStage, foreign: ForeignRuns): string | undefined {
  const reported = [...foreign].filter(([, { run }]) => run.status !== 'Failed');
  if (reported.length === 0) return undefined;
  const runs = reported.map(
    ([taskQueue, { run, why }]) =>
      `${run.status.toLowerCase()} run ${run.runId ?? ''} of workflow ${run.workflowId} on task queue ${taskQueue} (${why})`,
  );
  return `gate ${stage.name} found ${runs.join('; ')}: it does not count, a running one is terminated, and the gate runs again. Someone who may start workflows in the Temporal namespace started it, or the controller lost the status write that recorded its own run`;
}

function failed(buildId: string, failure: GateFailure, gates: GateMemory['gates']): GateDecision {
  const aborted = failure.stage !== 'rollout';
  const message = `${failure.message}; the rollout of build ${buildId} stops${aborted ? ' and its ramp is removed' : ''}, its Pods stay for the workflows already on it; change that gate in the spec or set annotation ${RETRY_GATE_ANNOTATION} to a new value to run the gate again`;
  return {
    gate: 'failed',
    memory: { ...(gates ? { gates } : {}), gateFailure: failure },
    starts: [],
    failure: { reason: aborted ? 'RolloutAborted' : 'GateFailed', message },
  };
}
