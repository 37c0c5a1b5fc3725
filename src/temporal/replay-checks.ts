// The worker library's replay check as the moves of pinned workflows run it: started pinned to the
// build moved onto, on the task queue of the runs it checks, and read back with what it says of
// each run once it completed (docs/worker-contract.md). Started and read as gates are.
import { type CheckRun, REPLAY_CHECK_WORKFLOW, type ReplayCheckResult } from '../domain/pinned-move.ts';
import { type GateTarget, readGate, startGate } from './gate-workflows.ts';
import { enums } from './protocol.ts';

const { HistoryEventFilterType } = enums;

export interface ReplayCheckStart {
  workflowId: string;
  taskQueue: string;
  runs: { workflowId: string; runId: string }[];
}

export async function startReplayCheck(target: GateTarget, onto: string, check: ReplayCheckStart): Promise<void> {
  await startGate(target, onto, {
    workflowId: check.workflowId,
    workflowType: REPLAY_CHECK_WORKFLOW,
    taskQueue: check.taskQueue,
    input: { workflows: check.runs },
  });
}

/** Undefined when none was ever started under that ID; a result that cannot be read makes the run Failed, saying why. */
export async function readReplayCheck(target: GateTarget, workflowId: string): Promise<CheckRun | undefined> {
  const run = await readGate(target, workflowId);
  if (run?.status !== 'Completed') return run;
  const history = await target.service.getWorkflowExecutionHistory({
    namespace: target.namespace,
    execution: { workflowId, ...(run.runId ? { runId: run.runId } : {}) },
    historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
  });
  const payload = history.history?.events?.[0]?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  const results = resultsOf(payload?.data);
  return results
    ? { ...run, results }
    : {
        ...run,
        status: 'Failed',
        message:
          'its result is not the JSON the worker library writes ({ results: [...] }): a payload codec on the worker may encode it',
      };
}

function resultsOf(data: Uint8Array | null | undefined): ReplayCheckResult[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(data ?? new Uint8Array()));
  } catch {
    return undefined;
  }
  const results = (parsed as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return undefined;
  // A result not as the contract says counts as a run that does not replay: it is not moved.
  return results.flatMap((r: Partial<Record<keyof ReplayCheckResult, unknown>>) =>
    typeof r.workflowId === 'string' && typeof r.runId === 'string'
      ? [
          {
            workflowId: r.workflowId,
            runId: r.runId,
            replays: r.replays === true,
            ...(typeof r.event === 'string' ? { event: r.event } : {}),
            ...(typeof r.message === 'string' ? { message: r.message } : {}),
            ...(typeof r.skipped === 'string' ? { skipped: r.skipped } : {}),
          },
        ]
      : [],
  );
}
