// The replay gate's activity: runs on the new build's worker, finds the most recent workflows of
// the current build in visibility, fetches their histories and replays them against this build's
// workflow code with the SDK's replayer.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import type { Divergence, ReplayGateActivities, ReplayGateInput, ReplayOutcome } from './workflow.ts';

export interface ReplayGateOptions {
  /** The Temporal namespace and Worker Deployment name of this worker. */
  namespace: string;
  deploymentName: string;
  /** A client of that namespace, made for each gate run and closed after it. */
  client: () => Promise<Client>;
  /** This build's workflow code, as its worker runs it. */
  workflowBundle: () => Promise<WorkflowBundle>;
}

const DEFAULT_WORKFLOWS = 20;
const DEFAULT_MAX_AGE_HOURS = 24;

export function replayGateActivities(options: ReplayGateOptions): ReplayGateActivities {
  return {
    async replayRecentHistories(input: ReplayGateInput = {}) {
      const client = await options.client();
      try {
        return await replay(client, options, input);
      } finally {
        await client.connection.close();
      }
    },
  };
}

async function replay(client: Client, options: ReplayGateOptions, input: ReplayGateInput): Promise<ReplayOutcome> {
  const described = await client.workflowService.describeWorkerDeployment({
    namespace: options.namespace,
    deploymentName: options.deploymentName,
  });
  const currentBuildId = described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
  if (!currentBuildId) return { replayed: 0, divergences: [] };
  const workflows = input.workflows ?? DEFAULT_WORKFLOWS;
  const since = new Date(Date.now() - (input.maxAgeHours ?? DEFAULT_MAX_AGE_HOURS) * 3_600_000);
  const query =
    `TemporalWorkerDeploymentVersion = '${options.deploymentName}:${currentBuildId}'` +
    ` AND StartTime > '${since.toISOString()}'`;
  const runs: { workflowId: string; runId: string; workflowType: string }[] = [];
  for await (const run of client.workflow.list({ query, pageSize: workflows })) {
    runs.push({ workflowId: run.workflowId, runId: run.runId, workflowType: run.type });
    if (runs.length >= workflows) break;
  }
  const histories = await Promise.all(
    runs.map(async (run) => ({
      ...run,
      history: await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory(),
    })),
  );
  const divergences: Divergence[] = [];
  const replayed = Worker.runReplayHistories(
    { workflowBundle: await options.workflowBundle(), replayName: `replay gate of ${options.deploymentName}` },
    histories.map(({ workflowId, history }) => ({ workflowId, history })),
  );
  for await (const result of replayed) {
    if (!result.error) continue;
    const run = histories.find((h) => h.workflowId === result.workflowId && h.runId === result.runId);
    const event = divergedEvent(result.error.message, run?.history);
    divergences.push({
      workflowId: result.workflowId,
      runId: result.runId,
      workflowType: run?.workflowType ?? '?',
      ...(event ? { event } : {}),
      message: sdkReason(result.error.message),
    });
  }
  return { currentBuildId, replayed: histories.length, divergences };
}

/** The core SDK's own words (`[TMPRL1100] Nondeterminism error: ...`) out of the replayer's wrapping, where they are. */
export function sdkReason(message: string): string {
  return /\[TMPRL\d+\][^"]*/.exec(message)?.[0] ?? message;
}

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

/** `<id> <EventType>` of the event an SDK error names by its id, where it does. */
export function divergedEvent(message: string, history: History | undefined): string | undefined {
  const id = Number(/\b(?:event[_ ]?id|id)[:= ]\s*(\d+)/i.exec(message)?.[1] ?? NaN);
  if (!Number.isInteger(id)) return undefined;
  const event = history?.events?.find((e) => Number(e.eventId) === id);
  return event ? `${id} ${eventTypeName(event.eventType)}` : String(id);
}

/** EVENT_TYPE_ACTIVITY_TASK_SCHEDULED as ActivityTaskScheduled. */
function eventTypeName(type: number | null | undefined): string {
  const name = proto.temporal.api.enums.v1.EventType[type ?? 0] ?? 'EVENT_TYPE_UNSPECIFIED';
  return name
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());
}
