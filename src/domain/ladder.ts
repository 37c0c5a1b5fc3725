// The words of the ladder of spec.sunset.pinnedWorkflows that the planner (planner/pinned-workflows.ts)
// and the status (status/pinned-workflows.ts, status/versions.ts) share: the step a build's ladder
// has reached, what the status remembers of it, and what the status shows of it. Types only.
import type { BatchOperationKind, BatchProgress } from './snapshot.ts';

/** The step a build's ladder has reached: Waiting before its first. */
export type LadderStep = 'Waiting' | BatchOperationKind;

/** What the status remembers of a build's ladder. */
export interface LadderMemory {
  running?: number;
  countedAt?: Date;
  batch?: BatchProgress;
}

export interface LadderStatus {
  running?: number;
  countedAt?: Date;
  step: LadderStep;
  nextStepAt?: Date;
  batch?: BatchProgress;
}
