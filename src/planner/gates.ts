// Which gate stands before the next routing change, and what to do about it: start what has not
// run, wait for what runs, pass when every run completed, stop when one failed. Pure.
import type { Rollout, TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { BuildTaskQueues, GateRun } from '../domain/snapshot.ts';
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
 * the ramp of the step before holds while it runs. Empty once the target is current.
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
  const stepGate = (index: number): GateStage[] => {
    const gate = steps[index]?.gate;
    return gate ? [{ name: `step-${index + 1}`, gate }] : [];
  };
  if (progressive && rampingBuildId === targetBuildId && rampPercentage !== undefined) {
    const index = stepAtOrBelow(steps, rampPercentage);
    const at = steps[index]?.rampPercentage ?? rampPercentage;
    // A ramp changed by hand snaps to a step: up to it needs its gate, down to it does not.
    if (rampPercentage < at) return stepGate(index);
    return rampPercentage === at ? stepGate(index + 1) : [];
  }
  return [...(rollout.gate ? [{ name: 'rollout', gate: rollout.gate }] : []), ...(progressive ? stepGate(0) : [])];
}

export interface GateCheck {
  stage: string;
  /** The target's workflow task queues: one gate run on each. */
  taskQueues: string[];
  /** The latest run per task queue; absent when none was started. */
  runs: Record<string, GateRun | undefined>;
  /** A failure was reported for an older generation of the spec: failed runs start again. */
  retry: boolean;
}

export type GateVerdict =
  | { state: 'passed'; reason: string }
  | { state: 'pending'; start: string[]; reason: string }
  | { state: 'failed'; taskQueue: string; run: GateRun; reason: string };

export function judgeGate({ stage, taskQueues, runs, retry }: GateCheck): GateVerdict {
  if (taskQueues.length === 0)
    return {
      state: 'pending',
      start: [],
      reason: `gate ${stage} waits for the build's workers to register a task queue for workflows and activities`,
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
  const start = taskQueues.filter((q) => runs[q] === undefined || runs[q]?.status === 'Failed');
  if (start.length === 0 && taskQueues.every((q) => runs[q]?.status === 'Completed'))
    return { state: 'passed', reason: `gate ${stage} completed on every task queue` };
  const running = taskQueues.filter((q) => runs[q]?.status === 'Running');
  return {
    state: 'pending',
    start,
    reason: `gate ${stage} ${start.length ? `starts on ${start.join(', ')}` : `runs on ${running.join(', ')}`}`,
  };
}

/** Unique per build, stage and queue, so every gate of a rollout has its own history. */
export function gateWorkflowId(temporalName: string, buildId: string, stage: string, taskQueue: string): string {
  return `temporal-worker-controller/gate/${temporalName}/${buildId}/${stage}/${taskQueue}`;
}

/**
 * The workflow task queues a build's gates run on. A queue counts once the build's workers poll it
 * for activities too: until then Temporal sends the activities of a workflow pinned to the build
 * to the queue's current build (its rule for a queue the pinned version lacks), and the gate would
 * judge the build it is to replace.
 */
export function gateTaskQueues(taskQueues: BuildTaskQueues): string[] {
  const withActivities = new Set(taskQueues.activity);
  return taskQueues.workflow.filter((q) => withActivities.has(q)).sort();
}

type TargetStatus = NonNullable<NonNullable<TemporalWorkerDeployment['status']>['targetVersion']>;
/** What the status remembers of the target's gates. */
export type GateMemory = Pick<TargetStatus, 'gates' | 'gateFailure'>;
type GateFailure = NonNullable<TargetStatus['gateFailure']>;

export interface GateContext {
  /** The gates before the next routing change, in order (see gateStages). */
  stages: GateStage[];
  buildId: string;
  temporalName: string;
  generation: number;
  /** What the status said of this same target build, if anything. */
  previous: GateMemory | undefined;
}

/** The first gate whose runs Temporal must be asked about: none when the status tells they all completed. */
export function gateToRead({ stages, previous, generation }: GateContext): GateStage | undefined {
  const failure = previous?.gateFailure;
  if (failure && failure.generation === generation) return undefined;
  return stages.find((stage) => !completed(previous, stage));
}

function completed(previous: GateMemory | undefined, stage: GateStage): boolean {
  const known = (previous?.gates ?? []).filter((g) => g.stage === stage.name);
  return known.length > 0 && known.every((g) => g.status === 'Completed');
}

export interface GateStart {
  stage: string;
  taskQueue: string;
  workflowId: string;
  gate: Gate;
}

export interface GateDecision {
  gate: 'passed' | 'pending' | 'failed';
  memory: GateMemory;
  /** Runs to start, one per task queue that has none (or a failed one to retry). */
  starts: GateStart[];
  /** What was learned, for an event: the gate passed. */
  passed?: string;
  failure?: { reason: 'RolloutAborted' | 'GateFailed'; message: string };
}

export interface ObservedGate {
  stage: string;
  taskQueues: string[];
  runs: Record<string, GateRun | undefined>;
}

/** The verdict on the gates before the next routing change; `observed`: the runs of the stage gateToRead named. */
export function decideGates(context: GateContext, observed: ObservedGate | undefined): GateDecision {
  const { stages, previous, generation, buildId } = context;
  const failure = previous?.gateFailure;
  if (failure && failure.generation === generation) return failed(buildId, failure, previous?.gates);
  const gates: NonNullable<GateMemory['gates']> = [];
  let passed: string | undefined;
  for (const stage of stages) {
    if (observed?.stage === stage.name) {
      const decision = decideStage(context, stage, observed);
      gates.push(...(decision.memory.gates ?? []));
      if (decision.gate !== 'passed') return { ...decision, memory: { ...decision.memory, gates } };
      passed = decision.passed;
    } else if (completed(previous, stage)) {
      gates.push(...(previous?.gates ?? []).filter((g) => g.stage === stage.name));
    } else {
      return { gate: 'pending', memory: gates.length > 0 ? { gates } : {}, starts: [], ...(passed ? { passed } : {}) };
    }
  }
  return { gate: 'passed', memory: gates.length > 0 ? { gates } : {}, starts: [], ...(passed ? { passed } : {}) };
}

function decideStage(context: GateContext, stage: GateStage, observed: ObservedGate): GateDecision {
  const { previous, generation, buildId } = context;
  const { taskQueues, runs } = observed;
  const idOf = (taskQueue: string) => gateWorkflowId(context.temporalName, buildId, stage.name, taskQueue);
  const verdict = judgeGate({ stage: stage.name, taskQueues, runs, retry: previous?.gateFailure !== undefined });
  const starts =
    verdict.state === 'pending'
      ? verdict.start.map((taskQueue) => ({
          stage: stage.name,
          taskQueue,
          workflowId: idOf(taskQueue),
          gate: stage.gate,
        }))
      : [];
  const started = new Set(starts.map((s) => s.taskQueue));
  const gates = taskQueues.map((taskQueue) => ({
    stage: stage.name,
    taskQueue,
    workflowID: idOf(taskQueue),
    status: started.has(taskQueue) ? 'Running' : (runs[taskQueue]?.status ?? 'Running'),
  }));
  if (verdict.state === 'failed') {
    const run = verdict.run;
    return failed(
      buildId,
      { generation, stage: stage.name, workflowID: run.workflowId, message: verdict.reason },
      gates,
    );
  }
  return {
    gate: verdict.state,
    memory: { gates },
    starts,
    ...(verdict.state === 'passed' ? { passed: `${verdict.reason} for build ${buildId}` } : {}),
  };
}

function failed(buildId: string, failure: GateFailure, gates: GateMemory['gates']): GateDecision {
  const aborted = failure.stage !== 'rollout';
  const message = `${failure.message}; the rollout of build ${buildId} stops${aborted ? ' and its ramp is removed' : ''}, its Pods stay for the workflows already on it; change the spec to run the gate again`;
  return {
    gate: 'failed',
    memory: { ...(gates ? { gates } : {}), gateFailure: failure },
    starts: [],
    failure: { reason: aborted ? 'RolloutAborted' : 'GateFailed', message },
  };
}
