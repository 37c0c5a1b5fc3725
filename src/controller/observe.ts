// Gathers what one reconcile decides on into one plain value, in two stages: first what Kubernetes
// says (the worker deployment and its connection from the caches, its Deployments and what its Pods
// say is wrong with them), on which the new build's Deployments may already be created; then
// Temporal's description of the Worker Deployment (read once), and, only when the planner asks, the
// workflows running on old builds and their batch operations (the pinned-workflow ladder), and the
// target's task queues, pollers and gate runs. A read that fails is reported as exactly that, and
// nothing is decided on half an answer.
import type { V1Deployment } from '@kubernetes/client-node';
import { API_VERSION, KINDS } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import {
  type DeploymentSettings,
  type TemporalWorkerDeployment,
  temporalWorkerDeployment,
} from '../api/temporal-worker-deployment.ts';
import { type FieldError, fittingPart, withDefaults } from '../api/validate.ts';
import type {
  FailedObservation,
  LadderObservation,
  Observation,
  OutcomeCounts,
  OwnedAutoscaler,
  SecretCopyState,
  TargetObservation,
} from '../domain/observation.ts';
import type { ReadCertificate } from '../domain/certificates.ts';
import type { ReadFailure } from '../domain/read-failure.ts';
import { type NotFoundAnswer, notFoundDoubtedUntil, registeredBuilds } from '../domain/temporal-not-found.ts';
import type { ObservedDeployment, TemporalDeploymentState } from '../domain/snapshot.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { buildIdOf } from '../k8s/build-id.ts';
import {
  type ConfigurationDigests,
  type ConfigurationLookup,
  type ConfigurationObject,
  readConfiguration,
  withConfigurationDigests,
} from '../k8s/configuration-digests.ts';
import { configurationReferences, objectId, readObjects } from '../k8s/configuration-references.ts';
import { poolOverlays, poolPodTemplate } from '../k8s/pool-template.ts';
import { driftOf, replacementOf } from '../k8s/deployment-drift.ts';
import { LABELS, temporalDeploymentName } from '../k8s/names.ts';
import { observeDeployment } from '../k8s/observed-deployment.ts';
import { podProblems } from '../k8s/pod-problems.ts';
import { type VersionedDeploymentInput, versionedDeployment } from '../k8s/versioned-deployment.ts';
import { type WorkerConnection, workerConnection } from '../k8s/worker-connection.ts';
import { gateWorkflowId } from '../planner/gates.ts';
import type { KubernetesPhaseFacts } from '../planner/kubernetes-phase.ts';
import { batchJobIdPrefix, batchOperationOf, type LadderReads } from '../planner/pinned-workflows.ts';
import { MOVE_ROUND_RUNS, type MoveReads } from '../planner/pinned-moves.ts';
import type { MoveObservation } from '../domain/pinned-move.ts';
import { gateQueues, readsNeeded } from '../planner/plan.ts';
import { clusterConnectionUse } from '../domain/cluster-connection-use.ts';
import { connectionNamespace, type SecretLookup } from '../domain/connection-ref.ts';
import { AUTOSCALER_KINDS, copyAccount } from '../domain/owned-resources.ts';
import { certificateSources, readCertificates } from '../temporal/certificates.ts';
import { CredentialsError, lookupSecrets, missingSecret, workerSecrets } from '../temporal/credentials.ts';
import { copyInPlace, notOurCopy, secretCopies } from '../k8s/secret-copies.ts';
import { TemporalNamespaceNotFoundError } from '../temporal/deployment-state.ts';
import type { WorkerDeploymentAddress, WorkerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import { AdmittedSpecs, deepFreeze } from './admitted-specs.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import { ownedResourceFacts } from './owned-resources.ts';
import type { DescribedAt } from './last-described.ts';
import { temporalTrouble } from './temporal-trouble.ts';

export type Observed =
  { observation: Observation; temporal: WorkerDeploymentClient; failed?: undefined } | { failed: FailedObservation };

/** What Kubernetes says, enough for the plan's first phase: the new build's Deployments, the owned resources' copies. */
export interface KubernetesFacts extends KubernetesPhaseFacts {
  temporalName: string;
  replacements: Observation['replacements'];
  /** The Deployments it owns, as cached (and as created since). */
  live: V1Deployment[];
  workers: WorkerConnection;
  secretCopies?: Observation['secretCopies'];
  /** Those of the connection's Secrets, the controller's and the workers' (none when absent). */
  certificates?: ReadCertificate[];
  /** The ConfigMaps and Secrets the spec's templates and the owned Deployments' templates read, as cached. */
  configuration: ConfigurationLookup;
  missingConfiguration?: Observation['missingConfiguration'];
}

export type SeenInKubernetes = { facts: KubernetesFacts; failed?: undefined } | { failed: FailedObservation };

/** The first stage: the spec, its connection and its Deployments, from the caches. */
export async function observeKubernetes(
  deps: ReconcilerDependencies,
  cached: TemporalWorkerDeployment,
): Promise<SeenInKubernetes> {
  const admission = admitted(cached);
  const { workerDeployment, invalid, unreadable } = admission;
  if (unreadable.length > 0 && !admission.said) {
    admission.said = true;
    await deps.recordEvent(
      { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerDeployment.kind, metadata: cached.metadata },
      {
        type: 'Warning',
        reason: 'StatusUnreadable',
        message: `the stored status does not fit this controller's schema (an older controller wrote it?): ${unreadable.map((e) => `${e.field}: ${e.message}`).join('; ')}; the controller goes on as if that part had never been written, and writes the status anew`,
      },
    );
  }
  if (invalid.length > 0) return { failed: { workerDeployment, failure: { kind: 'InvalidSpec', errors: invalid } } };
  const namespace = cached.metadata.namespace ?? '';
  const name = cached.metadata.name ?? '';
  const spec = workerDeployment.spec;
  const connectionRef = spec.workerOptions.connectionRef;
  const connectionAt = connectionNamespace(connectionRef, namespace);
  const connection = deps.connection(connectionAt, connectionRef.name);
  if (!connection)
    return {
      failed: {
        workerDeployment,
        failure: {
          kind: 'ConnectionNotFound',
          namespace: connectionAt,
          name: connectionRef.name,
          ...(connectionAt === '' && !deps.watchesClusterConnections ? { unwatched: true as const } : {}),
        },
      },
    };
  if (connectionAt === '') {
    const use = clusterConnectionUse(connection, namespace, await deps.cluster.namespaceLabels?.(namespace));
    if (!use.allowed)
      return {
        failed: {
          workerDeployment,
          failure: { kind: 'ConnectionCredentials', reason: use.reason, connection, message: use.message },
        },
      };
  }
  const secretUses = workerSecrets(connection);
  const certificateAt = certificateSources(connection);
  const secrets = await lookupSecrets([...secretUses, ...certificateAt], (secretNamespace, secretName) =>
    deps.secret(secretNamespace, secretName),
  );
  const certificates = readCertificates(certificateAt, secrets);
  const copies = await observeSecretCopies(deps, connection, cached, secrets);
  if ('conflict' in copies)
    return {
      failed: {
        workerDeployment,
        failure: { kind: 'ConnectionCredentials', reason: 'SecretCopyConflict', connection, message: copies.conflict },
        ...(certificates.length > 0 ? { certificates } : {}),
      },
    };
  const live = ownedDeployments(deps, cached);
  const specReferences = podTemplatesOf(spec).flatMap(configurationReferences);
  const configuration = await readReferenced(deps, namespace, [
    ...specReferences,
    ...live.flatMap((d) => configurationReferences(d.spec?.template)),
  ]);
  const read = readConfiguration(specReferences, configuration);
  const newBuildOnChange = spec.workerOptions.onConfigChange === 'NewBuild';
  return {
    facts: withDeployments(
      {
        workerDeployment,
        connection,
        buildId: buildIdOf(
          spec.template,
          spec.workerOptions.unsafeCustomBuildID,
          poolOverlays(spec.pools),
          newBuildOnChange ? read.digests : undefined,
        ),
        configuration,
        ...(read.missing.length > 0
          ? { missingConfiguration: read.missing.map(({ kind, name, field }) => ({ kind, name, field })) }
          : {}),
        temporalName: temporalDeploymentName(namespace, name),
        // Copies not yet in place are written by the full plan, before any Deployment.
        credentialsExist:
          missingSecret(connection, secretUses, secrets) === undefined && copies.states.every((c) => c.inPlace),
        ...(copies.states.length > 0 ? { secretCopies: copies.states } : {}),
        ...(certificates.length > 0 ? { certificates } : {}),
        workers: workerConnection(connection, secrets, name),
        ownedResources: ownedResourceFacts(deps, workerDeployment, live),
        wanted: [],
        live: [],
        deployments: [],
        replacements: {},
      },
      live,
    ),
  };
}

/** The Pod template of each pool of the build the spec asks for (the template alone without pools). */
function podTemplatesOf(spec: TemporalWorkerDeployment['spec']) {
  return (spec.pools ?? [undefined]).map((pool) => poolPodTemplate(spec.template, pool));
}

/** Each ConfigMap and Secret the references name, read once from the caches (each watched by name). */
async function readReferenced(
  deps: ReconcilerDependencies,
  namespace: string,
  references: Parameters<typeof readObjects>[0],
): Promise<ConfigurationLookup> {
  const objects = new Map<string, ConfigurationObject | undefined>();
  await Promise.all(
    readObjects(references).map(async (read) => {
      const object =
        read.kind === 'Secret' ? await deps.secret(namespace, read.name) : await deps.configMap(namespace, read.name);
      objects.set(objectId(read), object);
    }),
  );
  return (kind, name) => objects.get(objectId({ kind, name }));
}

/** The copies of a cluster connection's Secrets the Pods need, and those in place; a Secret of the user's where one goes is a conflict. */
async function observeSecretCopies(
  deps: ReconcilerDependencies,
  connection: TemporalConnection,
  workerDeployment: TemporalWorkerDeployment,
  secrets: SecretLookup,
): Promise<{ states: SecretCopyState[] } | { conflict: string }> {
  const namespace = workerDeployment.metadata.namespace ?? '';
  const states: SecretCopyState[] = [];
  for (const wanted of secretCopies(connection, workerDeployment, secrets)) {
    const name = wanted.copy.metadata?.name ?? '';
    const existing = await deps.secret(namespace, name);
    const foreign = existing && notOurCopy(existing, workerDeployment);
    if (foreign)
      return {
        conflict: `Secret ${namespace}/${name}, where the worker Pods' copy of Secret ${wanted.source} goes, is not this worker deployment's copy (${foreign}): rename or delete it; the controller neither overwrites nor deletes it`,
      };
    states.push({
      secret: wanted.copy,
      source: wanted.source,
      inPlace: copyInPlace(wanted, existing),
      outdated: existing !== undefined,
    });
  }
  return { states };
}

/**
 * Per object the cache holds (the informer puts a new object there for every change), the object
 * with its defaults and what admission would refuse of it: a poll of an unchanged worker deployment
 * does neither again. Frozen, since every reconcile of that object shares it.
 */
const admittedObjects = new WeakMap<TemporalWorkerDeployment, Admitted>();
const admittedSpecs = new AdmittedSpecs();

/** A worker deployment gone: its admitted spec (and the Deployments built from it) goes too. */
export function forgetAdmittedSpec(namespace: string, name: string): void {
  admittedSpecs.forget(namespace, name);
}

interface Admitted {
  /** With only the part of its status that fits the schema. */
  workerDeployment: TemporalWorkerDeployment;
  /** What admission would refuse of its spec and metadata. */
  invalid: FieldError[];
  /** What of its status does not fit the schema, and is left out. */
  unreadable: FieldError[];
  /** Whether a Warning said so. */
  said?: boolean;
}

function admitted(cached: TemporalWorkerDeployment): Admitted {
  const known = admittedObjects.get(cached);
  if (known) return known;
  const { status: stored, ...rest } = cached;
  const { spec, invalid } = admittedSpecs.of(rest);
  // The status is the controller's memory, written by whichever version of it ran before: what of
  // it this version cannot read is taken as never written (learnt again, from Temporal where it
  // can be), never a reason to stop, which would also keep it from being written anew.
  const statusSchema = temporalWorkerDeployment.properties.status;
  const readable = stored ? fittingPart(statusSchema, withDefaults(statusSchema, stored), 'status') : { left: [] };
  const status = readable.value as TemporalWorkerDeployment['status'];
  const workerDeployment: TemporalWorkerDeployment = deepFreeze({
    ...rest,
    metadata: structuredClone(rest.metadata),
    spec,
    ...(status ? { status } : {}),
  });
  const result = { workerDeployment, invalid, unreadable: readable.left };
  admittedObjects.set(cached, result);
  return result;
}

/**
 * Per admitted spec (one object per spec, see AdmittedSpecs), the Deployments built from it by
 * name, build, pool and connection: building one, hashes included, was a tenth of a reconcile.
 * Frozen, as every reconcile of that spec shares them.
 */
const builtDeployments = new WeakMap<object, Map<string, V1Deployment>>();

function built(input: VersionedDeploymentInput, digests: ConfigurationDigests | undefined): V1Deployment {
  const { workerDeployment, connection, buildId, pool } = input;
  const { uid, name, namespace } = workerDeployment.metadata;
  const byInput = builtDeployments.get(workerDeployment.spec) ?? new Map<string, V1Deployment>();
  builtDeployments.set(workerDeployment.spec, byInput);
  const key = JSON.stringify([uid, name, namespace, buildId, pool, connection, digests]);
  let deployment = byInput.get(key);
  if (!deployment) {
    const made = versionedDeployment(input);
    if (digests && made.spec) made.spec.template = withConfigurationDigests(made.spec.template, digests);
    byInput.set(key, (deployment = deepFreeze(made)));
  }
  return deployment;
}

/** The facts with these Deployments as the ones it owns: the cache's, or those plus what was just created. */
export function withDeployments(facts: KubernetesFacts, live: V1Deployment[]): KubernetesFacts {
  const { workerDeployment, buildId, workers } = facts;
  const spec = workerDeployment.spec;
  // With NewBuild the configuration is in the build ID instead: no Deployment carries or rolls for it.
  const rollsInPlace = spec.workerOptions.onConfigChange !== 'NewBuild';
  const wanted = (spec.pools ?? [undefined]).map((pool) => {
    const digests = rollsInPlace
      ? readConfiguration(configurationReferences(poolPodTemplate(spec.template, pool)), facts.configuration).digests
      : undefined;
    return {
      ...(pool ? { pool: pool.name } : {}),
      deployment: built({ workerDeployment, connection: workers, buildId, ...(pool ? { pool } : {}) }, digests),
    };
  });
  /**
   * The digests a Deployment's own template should carry now; undefined when not compared: with
   * NewBuild, or while an object its Pods cannot start without is missing (rolling would replace
   * running Pods with Pods that cannot start; the kubelet says what is missing to any new one).
   */
  const digestsOf = (deployment: V1Deployment): ConfigurationDigests | undefined => {
    if (!rollsInPlace) return undefined;
    const read = readConfiguration(configurationReferences(deployment.spec?.template), facts.configuration);
    return read.missing.length > 0 ? undefined : read.digests;
  };
  const deployments = observeOwn(live, buildId, wanted, workers, spec.deployment, digestsOf);
  const replacements: Record<string, V1Deployment> = {};
  for (const d of deployments) {
    if (!d.drift) continue;
    const object = live.find((l) => l.metadata?.name === d.name) ?? {};
    const own =
      d.buildId === buildId ? wanted.find((w) => w.pool === object.metadata?.labels?.[LABELS.pool]) : undefined;
    replacements[d.name] = replacementOf(object, own?.deployment, workers, spec.deployment, digestsOf(object));
  }
  return { ...facts, wanted, live, deployments, replacements };
}

/** Where the worker deployment's Worker Deployment is: its connection's server, its Temporal namespace, its name there. */
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
    const { buildIds, since, workflowTypes } = needs.analysis;
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
export function ownedDeployments(deps: ReconcilerDependencies, owner: TemporalWorkerDeployment): V1Deployment[] {
  return deps
    .deployments(owner.metadata.namespace ?? '')
    .filter((d) => d.metadata?.ownerReferences?.some((o) => o.uid === owner.metadata.uid));
}

/** What each owned Deployment says of its build, and why it must be rolled in place if it must. */
function observeOwn(
  deployments: V1Deployment[],
  buildId: string,
  wanted: Observation['wanted'],
  connection: WorkerConnection,
  settings: DeploymentSettings | undefined,
  digestsOf: (deployment: V1Deployment) => ConfigurationDigests | undefined,
): ObservedDeployment[] {
  return deployments.flatMap((object) => {
    const d = observeDeployment(object);
    if (!d) return [];
    const drift = driftOf(
      d,
      d.buildId === buildId ? wanted.find((w) => w.pool === d.pool)?.deployment : undefined,
      connection,
      settings,
      digestsOf(object),
    );
    return [drift ? { ...d, drift } : d];
  });
}

/** The autoscaler copies its owned resources' statuses say exist, with the Deployment each scales. */
function ownedAutoscalers(
  deps: ReconcilerDependencies,
  workerDeployment: TemporalWorkerDeployment,
  live: readonly V1Deployment[],
): OwnedAutoscaler[] {
  const { name, namespace = '' } = workerDeployment.metadata;
  return deps.ownedResources(namespace).flatMap((twor) => {
    const { apiVersion, kind } = twor.spec.object;
    if (twor.spec.workerRef.name !== name || !AUTOSCALER_KINDS.includes(kind)) return [];
    return (twor.status?.versions ?? []).flatMap((copy) => {
      if (!copy.applied && !copy.appliedHash) return [];
      const deployment = live.find(
        (d) => d.metadata?.labels?.[LABELS.buildId] === copy.buildID && d.metadata.labels[LABELS.pool] === copy.pool,
      );
      const account = copyAccount(
        { namespace, serviceAccountName: twor.spec.serviceAccountName },
        deps.ownedResourcesServiceAccount,
      );
      return deployment
        ? [
            {
              deployment: deployment.metadata?.name ?? '',
              deploymentUid: deployment.metadata?.uid ?? '',
              twor: twor.metadata.name ?? '',
              apiVersion,
              kind,
              name: copy.resourceName,
              account,
            },
          ]
        : [];
    });
  });
}
