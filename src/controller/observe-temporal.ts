// The second stage of a reconcile's observation: Temporal's description of the Worker Deployment
// (read once), and, only when the planner asks, the workflows running on old builds and their
// batch operations (the pinned-workflow ladder and the moves), the target's task queues, pollers
// and gate runs, and what its analysis judges by (Temporal's counts, the Prometheus queries); then
// one plain Observation of both stages. A read that fails is reported as exactly that, and nothing
// is decided on half an answer.
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type {
  FailedObservation,
  LadderObservation,
  Observation,
  OutcomeCounts,
  TargetObservation,
} from '../domain/observation.ts';
import type { ReadFailure } from '../domain/read-failure.ts';
import { type NotFoundAnswer, notFoundDoubtedUntil, registeredBuilds } from '../domain/temporal-not-found.ts';
import type { TemporalDeploymentState } from '../domain/snapshot.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { LABELS } from '../k8s/names.ts';
import { podProblems } from '../k8s/pod-problems.ts';
import { gateWorkflowId } from '../planner/gates.ts';
import { batchJobIdPrefix, batchOperationOf, type LadderReads } from '../planner/pinned-workflows.ts';
import { MOVE_ROUND_RUNS, type MoveReads } from '../planner/pinned-moves.ts';
import type { MoveObservation } from '../domain/pinned-move.ts';
import { gateQueues, readsNeeded } from '../planner/plan.ts';
import { CredentialsError } from '../temporal/credentials.ts';
import { TemporalNamespaceNotFoundError } from '../temporal/deployment-state.ts';
import type { WorkerDeploymentAddress, WorkerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import { analysisMetricsReader } from './analysis-metrics.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import type { DescribedAt } from './last-described.ts';
import { temporalTrouble } from './temporal-trouble.ts';
import { type KubernetesFacts, ownedAutoscalers } from './observe-kubernetes.ts';

export type Observed =
  { observation: Observation; temporal: WorkerDeploymentClient; failed?: undefined } | { failed: FailedObservation };

export function addressOf(deps: ReconcilerDependencies, facts: KubernetesFacts): DescribedAt {
  return {
    hostPort: facts.connection.spec.hostPort,
    namespace: facts.workerDeployment.spec.workerOptions.temporalNamespace,
    deploymentName: facts.temporalName,
    identity: deps.identity,
  };
}

/** What the planner decides on, with `state` as Temporal's description, but the reads it may ask for besides (readsNeeded). */
export function observationOn(
  deps: ReconcilerDependencies,
  facts: KubernetesFacts,
  state: TemporalDeploymentState,
): Observation {
  const { workerDeployment, connection, buildId, temporalName } = facts;
  const namespace = workerDeployment.metadata.namespace ?? '';
  const observation: Observation = {
    now: deps.now(),
    workerDeployment,
    connection,
    buildId,
    temporalName,
    deployments: facts.deployments,
    wanted: facts.wanted,
    ...(facts.secretCopies?.length ? { secretCopies: facts.secretCopies } : {}),
    ...(facts.certificates ? { certificates: facts.certificates } : {}),
    ...(facts.missingConfiguration ? { missingConfiguration: facts.missingConfiguration } : {}),
    replacements: facts.replacements,
    temporal: state,
    podProblems: deps
      .pods(namespace)
      .filter((p) => p.metadata?.labels?.[LABELS.deploymentName] === workerDeployment.metadata.name)
      .flatMap(podProblems),
    ownedAutoscalers: ownedAutoscalers(deps, workerDeployment, facts.live),
  };
  const pollers = deps.pollersSeen(namespace, workerDeployment.metadata.name ?? '');
  if (pollers) observation.pollers = pollers;
  return observation;
}

/** The second stage: Temporal's description, read once, and only what the planner asks for besides. */
export async function observeTemporal(deps: ReconcilerDependencies, facts: KubernetesFacts): Promise<Observed> {
  const { workerDeployment, connection, buildId, temporalName } = facts;
  const namespace = workerDeployment.metadata.namespace ?? '';
  const key = `${namespace}/${workerDeployment.metadata.name ?? ''}`;
  const failed = (failure: ReadFailure, requeueAfterMs?: number): Observed => ({
    failed: {
      workerDeployment,
      connection,
      failure,
      ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
      ...(facts.certificates ? { certificates: facts.certificates } : {}),
    },
  });
  /** Temporal out of reach, over its limit or refusing the credentials: say so and stop. */
  const troubled = (error: unknown, what: string): Observed | undefined => {
    const trouble = temporalTrouble(deps, key, error, what, connection);
    return trouble && failed(trouble.failure, trouble.requeueAfterMs);
  };

  const address = addressOf(deps, facts);
  const described = await describeInTemporal(deps, key, connection, address);
  if ('failure' in described) return failed(described.failure, described.requeueAfterMs);
  const { temporal, state } = described;
  const notFound = notFoundAnswer(deps, key, address, state, workerDeployment);
  const doubtedUntil = notFound && notFoundDoubtedUntil(notFound, deps.now());
  if (notFound && doubtedUntil)
    return failed(
      { kind: 'TemporalDeploymentNotFound', temporalName, ...notFound },
      Math.min(deps.pollIntervalMs, doubtedUntil.getTime() - deps.now().getTime()),
    );
  const observation = observationOn(deps, facts, state);

  const needs = readsNeeded(observation, deps);
  if (needs.ladder.count.length > 0 || needs.ladder.batches.length > 0) {
    const pinned = await readLadder(temporal, temporalName, needs.ladder);
    if ('stopped' in pinned) {
      const stopped = troubled(pinned.stopped.error, pinned.stopped.what);
      if (stopped) return stopped;
      observation.pinned = {
        running: {},
        batches: {},
        failure: `${pinned.stopped.what}: ${errorMessage(pinned.stopped.error)}`,
      };
    } else {
      observation.pinned = pinned;
    }
  }
  const { moves } = needs;
  if (moves.list.length + moves.checks.length + moves.batches.length > 0) {
    const read = await readMoves(temporal, moves, observation.pinned ?? { running: {}, batches: {} });
    if ('stopped' in read) {
      const stopped = troubled(read.stopped.error, read.stopped.what);
      if (stopped) return stopped;
      // Nothing is decided on half an answer: a round waits for the next reconcile.
      observation.moves = {
        runs: {},
        checks: {},
        batches: {},
        failure: `${read.stopped.what}: ${errorMessage(read.stopped.error)}`,
      };
    } else {
      observation.moves = read;
    }
  }
  if (needs.analysis) {
    const { buildIds, since, workflowTypes, metrics } = needs.analysis;
    const counts: Record<string, OutcomeCounts> = {};
    try {
      for (const b of buildIds) counts[b] = await temporal.countOutcomes(b, since, workflowTypes);
      observation.analysis = { counts };
    } catch (error) {
      const what = `cannot count the workflows closed on build ${buildId} for its analysis`;
      const stopped = troubled(error, what);
      if (stopped) return stopped;
      observation.analysis = { failure: `${what}: ${errorMessage(error)}` };
    }
    if (metrics && 'counts' in observation.analysis) {
      // Without a reader (models), as with no endpoint allowed: refused.
      const reader =
        deps.analysisMetrics ?? analysisMetricsReader({ endpoints: [], secret: (ns, name) => deps.secret(ns, name) });
      const read = await reader(namespace, metrics);
      observation.analysis = 'failure' in read ? read : { counts, metrics: read.answers };
    }
  }
  if (!needs.unversionedPollers && !needs.gateStage && !needs.targetTaskQueues) return { observation, temporal };
  const target: TargetObservation = { taskQueues: { workflow: [], activity: [] } };
  try {
    target.taskQueues = await temporal.taskQueues(buildId);
  } catch (error) {
    const stopped = troubled(error, `cannot read the task queues of build ${buildId}`);
    if (!stopped) throw error;
    return stopped;
  }
  if (needs.unversionedPollers && target.taskQueues.workflow.length > 0) {
    try {
      target.unversionedPollers = await temporal.unversionedPollersOnAll(target.taskQueues.workflow);
    } catch (error) {
      const stopped = troubled(error, `cannot read the pollers of build ${buildId}'s task queues`);
      if (!stopped) throw error;
      return stopped;
    }
  }
  if (needs.gateStage) {
    const stage = needs.gateStage.name;
    try {
      const runs: NonNullable<TargetObservation['gateRuns']> = {};
      for (const queue of gateQueues(observation, target.taskQueues).taskQueues)
        runs[queue] = await temporal.readGate(gateWorkflowId(temporalName, buildId, needs.gateStage, queue));
      target.gateStage = stage;
      target.gateRuns = runs;
    } catch (error) {
      const what = `cannot read gate ${stage} of build ${buildId}`;
      const stopped = troubled(error, what);
      if (stopped) return stopped;
      target.gateReadFailure = `${what}: ${errorMessage(error)}`;
    }
  }
  return { observation: { ...observation, target }, temporal };
}

/**
 * What the moves asked for, or the read that failed: each build's running pinned workflows, listed
 * only when more run than its round would leave (as the ladder's reads just counted), each check,
 * each batch (unless the ladder's reads just read it).
 */
async function readMoves(
  temporal: WorkerDeploymentClient,
  reads: MoveReads,
  ladder: Pick<LadderObservation, 'running' | 'batches'>,
): Promise<MoveObservation | { stopped: { error: unknown; what: string } }> {
  const { running } = ladder;
  const moves: MoveObservation = { runs: {}, checks: {}, batches: {} };
  let what = '';
  try {
    for (const { buildId, above } of reads.list) {
      if ((running[buildId] ?? 0) <= above) continue;
      what = `cannot list the pinned workflows running on build ${buildId}`;
      moves.runs[buildId] = await temporal.listPinnedRuns(buildId, MOVE_ROUND_RUNS);
    }
    for (const workflowId of reads.checks) {
      what = `cannot read replay check ${workflowId}`;
      moves.checks[workflowId] = (await temporal.readReplayCheck(workflowId)) ?? null;
    }
    for (const { jobId, operation } of reads.batches) {
      what = `cannot read batch operation ${jobId}`;
      // One the ladder's reads found listed on the build was just read.
      moves.batches[jobId] =
        jobId in ladder.batches
          ? (ladder.batches[jobId] ?? null)
          : ((await temporal.describeBatch(jobId, operation)) ?? null);
    }
  } catch (error) {
    return { stopped: { error, what } };
  }
  return moves;
}

/** The counts and batches the pinned-workflow ladder asked for, or the read that failed. */
async function readLadder(
  temporal: WorkerDeploymentClient,
  temporalName: string,
  reads: LadderReads,
): Promise<LadderObservation | { stopped: { error: unknown; what: string } }> {
  const pinned: LadderObservation = { running: {}, batches: {} };
  for (const buildId of reads.count) {
    try {
      pinned.running[buildId] = await temporal.countRunningWorkflows(buildId);
    } catch (error) {
      return { stopped: { error, what: `cannot count the workflows running on build ${buildId}` } };
    }
  }
  const listed: string[] = [];
  for (const buildId of reads.listed) {
    try {
      listed.push(...(await temporal.listRunningBatches(batchJobIdPrefix(temporalName, buildId))));
    } catch (error) {
      return { stopped: { error, what: `cannot list the batch operations running on build ${buildId}` } };
    }
  }
  if (listed.length > 0) pinned.listed = listed;
  // Each one listed is read too, for its progress, which the list does not say.
  const listedReads = listed.flatMap((jobId) => {
    const operation = batchOperationOf(jobId);
    return operation ? [{ jobId, operation }] : [];
  });
  for (const { jobId, operation } of [...reads.batches, ...listedReads]) {
    if (jobId in pinned.batches) continue;
    try {
      pinned.batches[jobId] = (await temporal.describeBatch(jobId, operation)) ?? null;
    } catch (error) {
      return { stopped: { error, what: `cannot read batch operation ${jobId}` } };
    }
  }
  return pinned;
}

/** Temporal's description of the Worker Deployment and a client of it, or why not. */
export async function describeInTemporal(
  deps: ReconcilerDependencies,
  key: string,
  connection: TemporalConnection,
  address: WorkerDeploymentAddress,
): Promise<
  | { temporal: WorkerDeploymentClient; state: TemporalDeploymentState }
  | { failure: ReadFailure; requeueAfterMs?: number }
> {
  try {
    const temporal = await deps.temporal(connection, address);
    return { temporal, state: await temporal.describe() };
  } catch (error) {
    // A Secret event brings the next reconcile: no requeue.
    if (error instanceof CredentialsError)
      return { failure: { kind: 'ConnectionCredentials', reason: error.reason, connection, message: error.message } };
    const what = `cannot read Worker Deployment ${address.deploymentName} from ${connection.spec.hostPort}`;
    const detail = errorMessage(error);
    if (error instanceof TemporalNamespaceNotFoundError)
      return { failure: { kind: 'TemporalNamespaceNotFound', what, detail }, requeueAfterMs: deps.pollIntervalMs };
    // Nothing is deleted or scaled down while Temporal cannot say what still runs.
    const trouble = temporalTrouble(deps, key, error, what, connection);
    return trouble
      ? { failure: trouble.failure, requeueAfterMs: trouble.requeueAfterMs }
      : {
          failure: { kind: 'Temporal', trouble: 'TemporalUnreachable', what, detail, connection },
          requeueAfterMs: deps.pollIntervalMs,
        };
  }
}

/** What a not-found answer is weighed with (see domain/temporal-not-found.ts); undefined when Temporal found it. */
export function notFoundAnswer(
  deps: ReconcilerDependencies,
  key: string,
  address: DescribedAt,
  state: TemporalDeploymentState,
  workerDeployment: TemporalWorkerDeployment,
): NotFoundAnswer | undefined {
  if (state.exists) {
    deps.lastDescribed.found(key);
    return undefined;
  }
  return {
    registered: registeredBuilds(workerDeployment),
    justDescribed: deps.lastDescribed.recall(key, address)?.exists === true,
    since: deps.lastDescribed.notFoundSince(key, address, deps.now()),
  };
}

/** The Kubernetes Deployments a worker deployment owns, from the cache. */
