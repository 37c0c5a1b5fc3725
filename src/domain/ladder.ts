// The words of the ladder of spec.sunset.pinnedWorkflows that the planner (planner/pinned-workflows.ts)
// and the status (status/pinned-workflows.ts, status/versions.ts) share: the step a build's ladder
// has reached, what the status remembers of it, and what the status shows of it. Types only.
import type { MoveMemory } from './pinned-move.ts';
import type { BatchProgress, LadderOperation } from './snapshot.ts';

/** The step a build's ladder has reached: Waiting before its first. */
export type LadderStep = 'Waiting' | LadderOperation;

/** What the status remembers of a build's ladder. */
export interface LadderMemory {
  running?: number;
  countedAt?: Date;
  batch?: BatchProgress;
  /** The last round of spec.sunset.pinnedWorkflows.moveToCurrent on the build. */
  move?: MoveMemory;
}

export interface LadderStatus {
  running?: number;
  countedAt?: Date;
  step: LadderStep;
  nextStepAt?: Date;
  batch?: BatchProgress;
  move?: MoveMemory;
}
