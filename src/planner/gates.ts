// Which gate stands before the next routing change, and what to do about it: start what has not
// run, wait for what runs, pass when every run completed, stop when one failed. Pure.
import type { Rollout } from '../api/temporal-worker-deployment.ts';
import { stepAtOrBelow } from './routing.ts';

export type GateStatus = 'Running' | 'Completed' | 'Failed';

export interface GateRun {
  workflowId: string;
  status: GateStatus;
  /** How a failed run ended. */
  message?: string;
}

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
