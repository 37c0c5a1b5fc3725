// Workflow-side helpers, imported by workflow code (so only @temporalio/workflow here): the signal
// the controller sends to workflows pinned to an old build, the replay gate workflow, and the
// replay check that says which workflows of an older build replay on this one.
import {
  ApplicationFailure,
  defineSignal,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
} from '@temporalio/workflow';

/** The controller's default spec.sunset.pinnedWorkflows.signalName. */
export const CONTINUE_AS_NEW_REQUESTED = 'ContinueAsNewRequested';
export const continueAsNewRequested = defineSignal(CONTINUE_AS_NEW_REQUESTED);

/**
 * Listens for the request to continue as new onto the current build; the returned function says
 * whether it came. Await it with `condition`, then `continueAsNew` (with the versioning behaviour
 * AUTO_UPGRADE, so the next run starts on the current build).
 */
export function listenForContinueAsNewRequest(signal = continueAsNewRequested): () => boolean {
  let requested = false;
  setHandler(signal, () => void (requested = true));
  return () => requested;
}

/** `TemporalWorkflowVersioningBehavior` as visibility has it. */
export type VersioningBehavior = 'AutoUpgrade' | 'Pinned';

export interface ReplayGateInput {
  /** How many workflows of the current build to replay at most (default 20): running ones first, newest first, then closed ones. */
  workflows?: number;
  /** Closed workflows only if they closed within this many hours (default 24); running ones whatever their age. */
  maxAgeHours?: number;
  /**
   * The versioning behaviours whose workflows are replayed (default `['AutoUpgrade']`): a pinned
   * workflow never runs on another build, so a change that breaks it is what Worker Versioning
   * allows. Add `'Pinned'` to hold pinned workflows to the new code too (e.g. before moving them).
   */
  behaviors?: VersioningBehavior[];
}

/** A workflow whose history this build's code does not replay as it ran. */
export interface Divergence {
  workflowId: string;
  runId: string;
  workflowType: string;
  /** The first event that diverged, as `<id> <type>`, where the SDK's error names it. */
  event?: string;
  message: string;
}

export interface ReplayOutcome {
  /** The build whose workflows were replayed; absent when no build is current (nothing to replay). */
  currentBuildId?: string;
  replayed: number;
  divergences: Divergence[];
}

/** The activity the worker registers for the gate (see replayGateActivities). */
export interface ReplayGateActivities {
  replayRecentHistories(input: ReplayGateInput): Promise<ReplayOutcome>;
}

/**
 * A rollout gate (spec.rollout.gate.workflowType: replayGate): replays the histories of the current
 * build's auto-upgrade workflows (or of the behaviours its input names), running ones first, against
 * this build's workflow code, and fails, naming each workflow, its type and the first event that
 * diverged, if any does not replay.
 */
export async function replayGate(input: ReplayGateInput = {}): Promise<ReplayOutcome> {
  const { replayRecentHistories } = proxyActivities<ReplayGateActivities>({
    startToCloseTimeout: '10 minutes',
    retry: { maximumAttempts: 3 },
  });
  const outcome = await replayRecentHistories(input);
  const [first, ...more] = outcome.divergences;
  if (first) {
    const where = first.event ? ` at event ${first.event}` : '';
    throw ApplicationFailure.nonRetryable(
      `workflow ${first.workflowId} (${first.workflowType}) of build ${outcome.currentBuildId ?? '?'} does not replay on this build${where}: ${first.message}` +
        (more.length > 0 ? `; and ${more.length} more of ${outcome.replayed} replayed` : ''),
      'NondeterministicChange',
      outcome,
    );
  }
  return outcome;
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, replayGate);

export interface ReplayCheckInput {
  /** The runs to replay on this build's code (at most 1,000): pinned workflows of an older build, say. */
  workflows: { workflowId: string; runId: string }[];
  /** A history larger than this is not replayed, and said skipped (default 10 MiB). */
  maxHistoryBytes?: number;
}

/** What the check found of one run. */
export interface ReplayCheckResult {
  workflowId: string;
  runId: string;
  /** Absent when the run was not found. */
  workflowType?: string;
  /** Whether its history replays cleanly on this build's code: this build can carry it on. */
  replays: boolean;
  /** The first event that diverged, as `<id> <type>`, where the SDK's error names it. */
  event?: string;
  /** Why it does not replay, in the SDK's words. */
  message?: string;
  /** Why it was not replayed (gone from Temporal, too large); such a run does not replay. */
  skipped?: string;
}

export interface ReplayCheckOutcome {
  /** One per run asked, in order. */
  results: ReplayCheckResult[];
}

/** The activity the worker registers for the check (see replayCheckActivities). */
export interface ReplayCheckActivities {
  replayHistories(input: ReplayCheckInput): Promise<ReplayCheckOutcome>;
}

/**
 * Says which of the given runs this build's code replays as they ran, and of the others the first
 * event that diverged and why. Run it pinned to the build that would take them over, and move only
 * those that replay. It does not fail on a divergence: the outcome is the answer.
 */
export async function replayCheck(input: ReplayCheckInput): Promise<ReplayCheckOutcome> {
  const { replayHistories } = proxyActivities<ReplayCheckActivities>({
    startToCloseTimeout: '10 minutes',
    retry: { maximumAttempts: 3 },
  });
  return await replayHistories(input);
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, replayCheck);
