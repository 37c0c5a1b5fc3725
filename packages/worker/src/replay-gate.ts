// The replay gate's activity: runs on the new build's worker, finds the current build's workflows
// of the versioning behaviours asked (auto-upgrade ones by default) in visibility, fetches their
// histories and replays them against this build's workflow code with the SDK's replayer.
import { asyncLocalStorage } from '@temporalio/activity';
import { ApplicationFailure, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import type {
  Divergence,
  ReplayGateActivities,
  ReplayGateInput,
  ReplayOutcome,
  VersioningBehavior,
} from './workflow.ts';

export interface ReplayGateOptions {
  /** The Temporal namespace and Worker Deployment name of this worker. */
  namespace: string;
  deploymentName: string;
  /** This worker's build: the gate's activity replays only on a worker of the gate's own build. */
  buildId: string;
  /** A client of that namespace, made for each gate run and closed after it. */
  client: () => Promise<Client>;
  /** This build's workflow code, as its worker runs it. */
  workflowBundle: () => Promise<WorkflowBundle>;
}

const DEFAULT_WORKFLOWS = 20;
const DEFAULT_MAX_AGE_HOURS = 24;
/**
 * Only auto-upgrade workflows move to the new build (at their next workflow task) and replay their
 * history there; a pinned one stays on its build, so a change that breaks it is safe.
 */
const DEFAULT_BEHAVIORS: VersioningBehavior[] = ['AutoUpgrade'];
const BEHAVIORS = new Set<string>(['AutoUpgrade', 'Pinned'] satisfies VersioningBehavior[]);

export function replayGateActivities(options: ReplayGateOptions): ReplayGateActivities {
  return {
    async replayRecentHistories(input: ReplayGateInput = {}) {
      const behaviors = input.behaviors ?? DEFAULT_BEHAVIORS;
      if (behaviors.length === 0 || !behaviors.every((b) => BEHAVIORS.has(b)))
        throw ApplicationFailure.nonRetryable(
          `behaviors ${JSON.stringify(behaviors)}: name one or both of AutoUpgrade and Pinned`,
          'InvalidGateInput',
        );
      const client = await options.client();
      try {
        await refuseAnotherBuild(client, options.buildId, 'the replay gate');
        return await replay(client, options, input, behaviors);
      } finally {
        await client.connection.close();
      }
    },
  };
}

/** The failure type of a check's activity (the replay gate's, the replay check's) run by a worker of another build than the check's (retried). */
export const ACTIVITY_ON_ANOTHER_BUILD = 'ReplayGateActivityOnAnotherBuild';

/**
 * Replayed on a worker of another build, the histories would be checked against that build's code:
 * the current build's worker replays its own histories cleanly and passes a breaking build. A dev
 * server was seen to hand a just-registered build's gate activity to the current build's worker.
 * Refused, the activity is tried again, by then (or within its attempts) on the gate's build.
 */
export async function refuseAnotherBuild(client: Client, buildId: string, check: string): Promise<void> {
  const gate = asyncLocalStorage.getStore()?.info.workflowExecution;
  if (!gate) return;
  const { raw } = await client.workflow.getHandle(gate.workflowId, gate.runId).describe();
  const versioning = raw.workflowExecutionInfo?.versioningInfo;
  const gateBuild = versioning?.versioningOverride?.pinned?.version?.buildId || versioning?.deploymentVersion?.buildId;
  if (gateBuild && gateBuild !== buildId)
    throw ApplicationFailure.retryable(
      `${check} of build ${gateBuild} had its activity run by a worker of build ${buildId}, whose code it does not check: tried again`,
      ACTIVITY_ON_ANOTHER_BUILD,
    );
}

/**
 * The visibility query of the workflows of `behaviors` whose last workflow task ran on the build:
 * running ones, or with `closedSince` those that closed since then. The behaviours are checked
 * against the known ones before they reach a query.
 */
export function replayedWorkflowsQuery(
  deploymentName: string,
  buildId: string,
  behaviors: VersioningBehavior[],
  closedSince?: Date,
): string {
  const status = closedSince
    ? `ExecutionStatus != 'Running' AND CloseTime > '${closedSince.toISOString()}'`
    : `ExecutionStatus = 'Running'`;
  return (
    `TemporalWorkerDeploymentVersion = '${deploymentName}:${buildId}'` +
    ` AND TemporalWorkflowVersioningBehavior IN (${behaviors.map((b) => `'${b}'`).join(', ')}) AND ${status}`
  );
}

async function replay(
  client: Client,
  options: ReplayGateOptions,
  input: ReplayGateInput,
  behaviors: VersioningBehavior[],
): Promise<ReplayOutcome> {
  const described = await client.workflowService.describeWorkerDeployment({
    namespace: options.namespace,
    deploymentName: options.deploymentName,
  });
  const currentBuildId = described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
  if (!currentBuildId) return { replayed: 0, divergences: [] };
  const workflows = input.workflows ?? DEFAULT_WORKFLOWS;
  const since = new Date(Date.now() - (input.maxAgeHours ?? DEFAULT_MAX_AGE_HOURS) * 3_600_000);
  // Running workflows first: they are the ones that move to the new build and replay their history
  // there. Closed ones fill the rest: none runs again, but each went through steps of the code that
  // running ones reach later, some before traffic moves, and then replay on the new build.
  const runs: { workflowId: string; runId: string; workflowType: string }[] = [];
  for (const closedSince of [undefined, since]) {
    if (runs.length >= workflows) break;
    const query = replayedWorkflowsQuery(options.deploymentName, currentBuildId, behaviors, closedSince);
    for await (const run of client.workflow.list({ query, pageSize: workflows - runs.length })) {
      // One that closed between the two queries is in both.
      if (!runs.some((r) => r.runId === run.runId))
        runs.push({ workflowId: run.workflowId, runId: run.runId, workflowType: run.type });
      if (runs.length >= workflows) break;
    }
  }
  if (runs.length === 0) return { currentBuildId, replayed: 0, divergences: [] };
  const histories = await Promise.all(
    runs.map(async (run) => ({
      ...run,
      history: await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory(),
    })),
  );
  const divergences = await divergencesOf(
    await options.workflowBundle(),
    `replay gate of ${options.deploymentName}`,
    histories,
  );
  return { currentBuildId, replayed: histories.length, divergences };
}

interface ReplayedHistory {
  workflowId: string;
  runId: string;
  workflowType: string;
  history: History;
}

/** Replays the histories on the bundle's code: those that do not replay as they ran, each with why. */
export async function divergencesOf(
  workflowBundle: WorkflowBundle,
  replayName: string,
  histories: ReplayedHistory[],
): Promise<Divergence[]> {
  const divergences: Divergence[] = [];
  const replayed = Worker.runReplayHistories(
    { workflowBundle, replayName },
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
  return divergences;
}

/** The core SDK's own words (`[TMPRL1100] Nondeterminism error: ...`) out of the replayer's wrapping, where they are. */
export function sdkReason(message: string): string {
  return /\[TMPRL\d+\][^"]*/.exec(message)?.[0] ?? message;
}

export type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

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
