// The replay check's activity: runs on a worker of the check's build, fetches the histories of the
// runs it is given (pinned workflows of an older build) and replays them against this build's
// workflow code, saying of each run whether it replays, why not, or why it was not tried.
import { ApplicationFailure, type Client, WorkflowNotFoundError } from '@temporalio/client';
import { divergencesOf, type History, refuseAnotherBuild, type ReplayGateOptions } from './replay-gate.ts';
import type { ReplayCheckActivities, ReplayCheckInput, ReplayCheckOutcome, ReplayCheckResult } from './workflow.ts';

/** More would make the outcome too large for Temporal's payload limit, and a check too long for its activity's timeout. */
export const MAX_CHECKED_WORKFLOWS = 1_000;
/** Temporal warns of a history past 10 MiB; the check holds each in memory until it replays them all. */
const DEFAULT_MAX_HISTORY_BYTES = 10 * 1024 * 1024;

export function replayCheckActivities(options: ReplayGateOptions): ReplayCheckActivities {
  return {
    async replayHistories(input: ReplayCheckInput) {
      refuseInput(input);
      const client = await options.client();
      try {
        await refuseAnotherBuild(client, options.buildId, 'the replay check');
        return await check(client, options, input);
      } finally {
        await client.connection.close();
      }
    },
  };
}

function refuseInput(input: ReplayCheckInput | undefined): void {
  const workflows = input?.workflows;
  const refuse = (why: string) => {
    throw ApplicationFailure.nonRetryable(why, 'InvalidCheckInput');
  };
  if (!Array.isArray(workflows)) refuse('workflows: a list of { workflowId, runId } is required');
  else if (workflows.length > MAX_CHECKED_WORKFLOWS)
    refuse(`workflows: ${workflows.length} runs, at most ${MAX_CHECKED_WORKFLOWS} a check`);
  else {
    const bad = workflows.findIndex((w) => !nonEmpty(w?.workflowId) || !nonEmpty(w?.runId));
    if (bad >= 0) refuse(`workflows[${bad}]: workflowId and runId are required`);
  }
  const max = input?.maxHistoryBytes;
  if (max !== undefined && !(Number.isInteger(max) && max > 0))
    refuse(`maxHistoryBytes: ${JSON.stringify(max)} is not a positive integer`);
}

const nonEmpty = (value: unknown) => typeof value === 'string' && value !== '';

async function check(client: Client, options: ReplayGateOptions, input: ReplayCheckInput): Promise<ReplayCheckOutcome> {
  const maxBytes = input.maxHistoryBytes ?? DEFAULT_MAX_HISTORY_BYTES;
  const results: ReplayCheckResult[] = [];
  const histories: { workflowId: string; runId: string; workflowType: string; history: History }[] = [];
  // One at a time: a check of many runs must not take the namespace's whole read limit at once.
  for (const { workflowId, runId } of input.workflows) {
    const handle = client.workflow.getHandle(workflowId, runId);
    try {
      const { type: workflowType, historySize = 0 } = await handle.describe();
      if (historySize > maxBytes) {
        const skipped = `its history is ${historySize} bytes, more than maxHistoryBytes (${maxBytes})`;
        results.push({ workflowId, runId, workflowType, replays: false, skipped });
        continue;
      }
      histories.push({ workflowId, runId, workflowType, history: await handle.fetchHistory() });
      results.push({ workflowId, runId, workflowType, replays: true });
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      results.push({ workflowId, runId, replays: false, skipped: 'Temporal no longer has this run' });
    }
  }
  if (histories.length === 0) return { results };
  const divergences = await divergencesOf(
    await options.workflowBundle(),
    `replay check of ${options.deploymentName}`,
    histories,
  );
  return {
    results: results.map((result) => {
      const diverged = divergences.find((d) => d.runId === result.runId && d.workflowId === result.workflowId);
      if (!diverged) return result;
      return {
        ...result,
        replays: false,
        ...(diverged.event ? { event: diverged.event } : {}),
        message: diverged.message,
      };
    }),
  };
}
