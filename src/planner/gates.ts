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

/** The rollout gate stands before any traffic moves; while the target ramps at a step, that step's gate stands before the ramp advances. */
export function gateStage({
  rollout,
  targetBuildId,
  currentBuildId,
  rampingBuildId,
  rampPercentage,
}: StageInput): GateStage | undefined {
  if (currentBuildId === targetBuildId) return undefined;
  if (rollout.strategy === 'Progressive' && rampingBuildId === targetBuildId && rampPercentage !== undefined) {
    const index = stepAtOrBelow(rollout.steps ?? [], rampPercentage);
    const gate = rollout.steps?.[index]?.gate;
    return gate ? { name: `step-${index + 1}`, gate } : undefined;
  }
  return rollout.gate ? { name: 'rollout', gate: rollout.gate } : undefined;
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
  stage: GateStage | undefined;
  buildId: string;
  temporalName: string;
  generation: number;
  /** What the status said of this same target build, if anything. */
  previous: GateMemory | undefined;
}

/** Whether Temporal must be asked about the gate's runs: not when the status already tells. */
export function gateNeedsRuns({ stage, previous, generation }: GateContext): boolean {
  const failure = previous?.gateFailure;
  if (failure && failure.generation === generation) return false;
  if (!stage) return false;
  const known = (previous?.gates ?? []).filter((g) => g.stage === stage.name);
  return failure !== undefined || known.length === 0 || !known.every((g) => g.status === 'Completed');
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

/** `runs` and `taskQueues` as observed when gateNeedsRuns asked for them. */
export function decideGate(
  context: GateContext,
  observed: { taskQueues: string[]; runs: Record<string, GateRun | undefined> } | undefined,
): GateDecision {
  const { stage, previous, generation, buildId } = context;
  const failure = previous?.gateFailure;
  if (failure && failure.generation === generation) return failed(buildId, failure, previous?.gates);
  if (!stage) return { gate: 'passed', memory: {}, starts: [] };
  if (!observed) {
    const known = (previous?.gates ?? []).filter((g) => g.stage === stage.name);
    return known.length > 0 && known.every((g) => g.status === 'Completed')
      ? { gate: 'passed', memory: { gates: known }, starts: [] }
      : { gate: 'pending', memory: {}, starts: [] };
  }
  const { taskQueues, runs } = observed;
  const idOf = (taskQueue: string) => gateWorkflowId(context.temporalName, buildId, stage.name, taskQueue);
  const verdict = judgeGate({ stage: stage.name, taskQueues, runs, retry: failure !== undefined });
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
    return failed(
      buildId,
      { generation, stage: stage.name, workflowID: verdict.run.workflowId, message: verdict.reason },
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
