// The words of spec.sunset.pinnedWorkflows.moveToCurrent that the planner (planner/pinned-moves.ts),
// the observer, the executor and the status share: a workflow listed on an old build, what a
// replay check says of it, what the reads found, and what the status remembers of a build's last
// round.
import type { BatchProgress, GateRun } from './snapshot.ts';

/** The workflow the worker library registers for the check (docs/worker-contract.md). */
export const REPLAY_CHECK_WORKFLOW = 'replayCheck';

/** A run of a pinned workflow still running on a build, as visibility lists it. */
export interface PinnedRun {
  workflowId: string;
  runId: string;
  taskQueue: string;
}

/** What the worker library's replayCheck workflow says of one run (docs/worker-contract.md). */
export interface ReplayCheckResult {
  workflowId: string;
  runId: string;
  replays: boolean;
  /** Where a run that does not replay diverged (`<event id> <event type>`), and how. */
  event?: string;
  message?: string;
  /** Why a run was not replayed (gone, history too large). */
  skipped?: string;
}

/** Checking: the replay checks run; Moving: the batch moves those that replay; then Done or Failed. */
export type MovePhase = 'Checking' | 'Moving' | 'Done' | 'Failed';

/** What the status remembers of the last round of moves on a build. */
export interface MoveMemory {
  /** The build moved onto. */
  to: string;
  round: number;
  phase: MovePhase;
  startedAt: Date;
  endedAt?: Date;
  checks: { taskQueue: string; workflowId: string }[];
  /** Runs the round checked (or found no worker for). */
  checked: number;
  batch?: BatchProgress;
  /** Runs of the round left where they are, and the first of them with why. */
  notMoved?: number;
  notMovedRuns?: { workflowId: string; runId: string; reason: string }[];
  /** Why the round failed or stopped. */
  message?: string;
}

/** A replay check as read: its latest run, with what it says of each run once it completed. */
export type CheckRun = GateRun & { results?: ReplayCheckResult[] };

/** What the moves asked to read of Temporal. */
export interface MoveObservation {
  /** Per build: its running pinned workflows, as listed. Absent: not listed. */
  runs: Record<string, PinnedRun[]>;
  /** Per check workflow ID: its latest run, or null when none was ever started. Absent: not read. */
  checks: Record<string, CheckRun | null>;
  /** Per job ID: its progress, or null when Temporal knows none. Absent: not read. */
  batches: Record<string, BatchProgress | null>;
  /** Why the reads stopped, when they did: nothing of them is kept, and no round goes on. */
  failure?: string;
}
