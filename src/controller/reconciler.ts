// One reconcile of one TemporalWorkerDeployment: read from the caches, ask Temporal, decide
// (pure), run the gates, act in a fixed order (Kubernetes, then Temporal's version records, then
// routing, each only while the one before succeeded), write the status once.
import type { AppsV1Api, CoreV1Api, CustomObjectsApi, V1Deployment, V1Secret } from '@kubernetes/client-node';
import type { WorkflowService } from '@temporalio/client';
import { API_VERSION, KINDS } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { validate, withDefaults } from '../api/validate.ts';
import { buildIdOf } from '../k8s/build-id.ts';
import { driftOf, replacementOf } from '../k8s/deployment-drift.ts';
import { LABELS, temporalDeploymentName } from '../k8s/names.ts';
import { observeDeployment, type ObservedDeployment } from '../k8s/observed-deployment.ts';
import { versionedDeployment } from '../k8s/versioned-deployment.ts';
import { type WorkerConnection, workerConnection } from '../k8s/worker-connection.ts';
import { gateStage } from '../planner/gates.ts';
import { decideRouting, isRollback, type RoutingDecision } from '../planner/routing.ts';
import { planVersions, type VersionAction } from '../planner/versions.ts';
import type { Backoff } from '../runtime/backoff.ts';
import type { Logger } from '../runtime/logger.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import { type Condition, progressing, stalled } from '../status/conditions.ts';
import { joinVersions, rememberedCurrentTimes, versionsStatus } from '../status/versions.ts';
import { CredentialsError, referencedSecret } from '../temporal/credentials.ts';
import { describeDeployment, TemporalNamespaceNotFoundError } from '../temporal/deployment-state.ts';
import { applyRouting, ManagedElsewhereError } from '../temporal/routing.ts';
import { unversionedPollersConfirmed } from '../temporal/unversioned-pollers.ts';
import { deleteVersionRecord, type VersionRecordTarget } from '../temporal/version-records.ts';
import { finalizeWorkerDeployment } from './deletion.ts';
import type { EventTarget, RecordEvent } from './events.ts';
import { addFinalizer, isBeingDeleted } from './finalizers.ts';
import { type GateOutcome, runGates } from './gate-runner.ts';
import { executeVersionActions } from './kubernetes-executor.ts';
import { errorMessage, lastKnownVersions, writeStatus } from './status-writer.ts';
import { temporalTrouble } from './temporal-trouble.ts';

export interface ReconcilerDependencies {
  apps: AppsV1Api;
  core: CoreV1Api;
  customObjects: CustomObjectsApi;
  workerDeployment(namespace: string, name: string): TemporalWorkerDeployment | undefined;
  workerDeployments(namespace: string): readonly TemporalWorkerDeployment[];
  connection(namespace: string, name: string): TemporalConnection | undefined;
  deployments(namespace: string): V1Deployment[];
  temporal(connection: TemporalConnection): Promise<WorkflowService>;
  /** A Secret as cached, undefined when it does not exist. */
  secret(namespace: string, name: string): Promise<V1Secret | undefined>;
  identity: string;
  /** One line per routing change: rollouts are rare, and each is worth a line. */
  log: Logger;
  recordEvent: RecordEvent;
  now(): Date;
  pollIntervalMs: number;
  maxIneligibleVersions: number;
  maxVersionsInDeployment: number;
  rollbackWindowMs: number;
  /** Per `namespace/name`: how long to wait after Temporal rate-limited a reconcile. */
  temporalBackoff: Backoff<string>;
}

export async function reconcile(
  deps: ReconcilerDependencies,
  namespace: string,
  name: string,
): Promise<ReconcileResult> {
  const cached = deps.workerDeployment(namespace, name);
  if (!cached) return undefined;
  if (isBeingDeleted(cached)) return finalizeWorkerDeployment(deps, cached);
  const schema = KINDS.TemporalWorkerDeployment.schema;
  const workerDeployment = withDefaults(schema, cached);
  const invalid = validate(schema, workerDeployment);
  if (invalid.length > 0) {
    return writeStatus(deps, cached, lastKnownVersions(cached), [
      stalled('InvalidSpec', invalid.map((e) => `${e.field}: ${e.message}`).join('; ')),
    ]);
  }
  const spec = workerDeployment.spec;
  const connection = deps.connection(namespace, spec.workerOptions.connectionRef.name);
  if (!connection) {
    return writeStatus(deps, cached, lastKnownVersions(cached), [
      stalled(
        'ConnectionNotFound',
        `TemporalConnection ${namespace}/${spec.workerOptions.connectionRef.name} does not exist: create it or fix spec.workerOptions.connectionRef.name`,
      ),
    ]);
  }
  // Before anything exists in Temporal: whatever this reconcile creates there, deletion cleans up.
  // The status is written on the object as that write left it (its resourceVersion guards the status).
  const stored = await addFinalizer(deps.customObjects, KINDS.TemporalWorkerDeployment.plural, cached);
  if (!isBeingDeleted(connection)) await addFinalizer(deps.customObjects, KINDS.TemporalConnection.plural, connection);
  const about = { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerDeployment.kind, metadata: stored.metadata };

  const buildId = buildIdOf(spec.template, spec.workerOptions.unsafeCustomBuildID);
  const deploymentName = temporalDeploymentName(namespace, name);
  const key = `${namespace}/${name}`;
  let service: WorkflowService;
  let temporal;
  try {
    service = await deps.temporal(connection);
    temporal = await describeDeployment(service, spec.workerOptions.temporalNamespace, deploymentName);
  } catch (error) {
    // A Secret event brings the next reconcile: no requeue.
    if (error instanceof CredentialsError) {
      return writeStatus(deps, stored, lastKnownVersions(stored), [
        stalled(
          error.reason,
          `TemporalConnection ${namespace}/${spec.workerOptions.connectionRef.name}: ${error.message}`,
        ),
      ]);
    }
    const cannot = `cannot read Worker Deployment ${deploymentName} from ${connection.spec.hostPort}`;
    if (error instanceof TemporalNamespaceNotFoundError)
      return writeStatus(
        deps,
        stored,
        lastKnownVersions(stored),
        [stalled('TemporalNamespaceNotFound', `${cannot}: ${errorMessage(error)}`)],
        deps.pollIntervalMs,
      );
    // Nothing is deleted or scaled down while Temporal cannot say what still runs.
    const failed = temporalTrouble(deps, key, error, cannot, connection) ?? {
      condition: progressing('False', 'TemporalUnreachable', `${cannot}: ${errorMessage(error)}`),
      requeueAfterMs: deps.pollIntervalMs,
    };
    return writeStatus(deps, stored, lastKnownVersions(stored), [failed.condition], failed.requeueAfterMs);
  }

  // After the client: it has read the Secret into the cache, so this read does not wait on a watch.
  const secretName = referencedSecret(connection.spec);
  const workers = workerConnection(
    connection.spec,
    secretName === undefined ? undefined : await deps.secret(namespace, secretName),
  );
  const wanted = new Map(
    (spec.pools ?? [undefined]).map((pool) => [
      pool?.name,
      versionedDeployment({ workerDeployment, connection: workers, buildId, ...(pool ? { pool } : {}) }),
    ]),
  );
  const live = new Map(
    deps
      .deployments(namespace)
      .filter((d) => d.metadata?.ownerReferences?.some((o) => o.uid === stored.metadata.uid))
      .map((d) => [d.metadata?.name ?? '', d]),
  );
  const observed = observeOwn([...live.values()], buildId, wanted, workers);

  const now = deps.now();
  const previousTarget = stored.status?.targetVersion?.buildID === buildId ? stored.status.targetVersion : undefined;
  const versions = joinVersions(
    observed,
    temporal,
    buildId,
    [...wanted.keys()],
    rememberedCurrentTimes(stored.status, temporal.currentBuildId, now),
  );
  const plan = planVersions({
    now,
    targetBuildId: buildId,
    ...(temporal.currentBuildId ? { currentBuildId: temporal.currentBuildId } : {}),
    ...(spec.replicas === undefined ? {} : { replicas: spec.replicas }),
    ...(spec.pools
      ? {
          pools: spec.pools.map((p) => ({
            name: p.name,
            ...(p.replicas === undefined ? {} : { replicas: p.replicas }),
          })),
        }
      : {}),
    sunset: { scaledownDelay: spec.sunset?.scaledownDelay ?? '1h', deleteDelay: spec.sunset?.deleteDelay ?? '24h' },
    versions,
    temporalKnowsDeployment: temporal.exists,
    maxIneligibleVersions: deps.maxIneligibleVersions,
    maxVersionsInDeployment: deps.maxVersionsInDeployment,
    ...(previousTarget?.madeRoomAt ? { madeRoomAt: new Date(previousTarget.madeRoomAt) } : {}),
  });
  const target = versions.find((v) => v.buildId === buildId);
  const rollout = spec.rollout ?? spec.cutover ?? { strategy: 'AllAtOnce' as const };
  const conditions: Condition[] = [];
  const stage = isRollback(now, target?.lastCurrentAt, deps.rollbackWindowMs)
    ? undefined
    : gateStage({
        rollout,
        targetBuildId: buildId,
        currentBuildId: temporal.currentBuildId,
        rampingBuildId: temporal.rampingBuildId,
        rampPercentage: temporal.rampPercentage,
      });
  let gates: GateOutcome = { gate: stage ? 'pending' : 'passed', status: {} };
  if (target && target.status !== 'NotRegistered') {
    try {
      gates = await runGates({
        core: deps.core,
        recordEvent: deps.recordEvent,
        about,
        namespace,
        target: {
          service,
          namespace: spec.workerOptions.temporalNamespace,
          deploymentName,
          buildId,
          identity: deps.identity,
        },
        stage,
        generation: stored.metadata.generation ?? 0,
        previous: previousTarget,
      });
    } catch (error) {
      const what = `cannot run gate ${stage?.name ?? ''} of build ${buildId}`;
      // Temporal out of reach or over its limit: stop before acting, as for any other read.
      const failed = temporalTrouble(deps, key, error, what, connection);
      if (failed)
        return writeStatus(deps, stored, lastKnownVersions(stored), [failed.condition], failed.requeueAfterMs);
      conditions.push(progressing('False', 'GateCheckFailed', `${what}: ${errorMessage(error)}`));
    }
  }
  if (gates.condition) conditions.push(gates.condition);
  let unversionedPollers: boolean | undefined;
  try {
    unversionedPollers = await unversionedPollersConfirmed(
      { service, namespace: spec.workerOptions.temporalNamespace, deploymentName, buildId },
      { strategy: rollout.strategy, currentBuildId: temporal.currentBuildId, target },
    );
  } catch (error) {
    // Nothing has been done yet: stop here rather than act on half an answer.
    const failed = temporalTrouble(deps, key, error, `cannot read the task queues of build ${buildId}`, connection);
    if (!failed) throw error;
    return writeStatus(deps, stored, lastKnownVersions(stored), [failed.condition], failed.requeueAfterMs);
  }
  const routing: RoutingDecision = decideRouting({
    now,
    rollout,
    target: {
      buildId,
      status: target?.status ?? 'NotRegistered',
      healthy: target?.healthy ?? false,
      gate: gates.gate,
      ...(target?.lastCurrentAt ? { lastCurrentAt: target.lastCurrentAt } : {}),
    },
    routing: {
      ...(temporal.currentBuildId ? { currentBuildId: temporal.currentBuildId } : {}),
      ...(temporal.rampingBuildId
        ? { rampingBuildId: temporal.rampingBuildId, rampPercentage: temporal.rampPercentage ?? 0 }
        : {}),
      ...(temporal.rampChangedAt ? { rampChangedAt: temporal.rampChangedAt } : {}),
      unversionedPollersConfirmed: unversionedPollers,
    },
    rollbackWindowMs: deps.rollbackWindowMs,
  });

  const executed = await executeVersionActions(deps.apps, namespace, plan.actions, {
    created: (_build, pool) => {
      const deployment = wanted.get(pool);
      if (!deployment) throw new Error(`spec.pools has no pool ${pool ?? ''}`);
      return deployment;
    },
    replacement: (name) => {
      const deployment = live.get(name) ?? {};
      return replacementOf(
        deployment,
        deployment.metadata?.labels?.[LABELS.buildId] === buildId
          ? wanted.get(deployment.metadata.labels[LABELS.pool])
          : undefined,
        workers,
      );
    },
  });
  for (const action of executed.done)
    await deps.recordEvent(about, { type: 'Normal', reason: DONE_REASON[action.action], message: action.reason });
  if (executed.failed)
    conditions.push(
      progressing(
        'False',
        FAILED_REASON[executed.failed.action.action],
        `${executed.failed.action.reason}: ${errorMessage(executed.failed.error)}; nothing more is changed until it succeeds`,
      ),
    );
  for (const action of plan.actions)
    if (action.action === 'blocked') conditions.push(stalled(action.condition, action.reason));
  // A failed Kubernetes action means the plan may no longer hold: Temporal is left as it is.
  const records = executed.failed
    ? { madeRoom: false }
    : await deleteVersionRecords(
        deps,
        about,
        { service, namespace: spec.workerOptions.temporalNamespace, deploymentName, identity: deps.identity },
        plan.actions,
        { key, connection },
      );
  if (records.problem) conditions.push(records.problem.condition);
  const madeRoomAt = records.madeRoom ? now.toISOString() : previousTarget?.madeRoomAt;
  let after = temporal;
  let retryAfterMs = records.problem?.requeueAfterMs;
  const mayRoute = !executed.failed && !records.problem?.temporalTrouble;
  try {
    if (
      mayRoute &&
      routing.action !== 'none' &&
      routing.action !== 'wait' &&
      (await applyRouting(
        { service, namespace: spec.workerOptions.temporalNamespace, deploymentName, identity: deps.identity },
        temporal,
        routing,
      ))
    ) {
      await deps.recordEvent(about, {
        type: 'Normal',
        reason: ROUTING_REASON[routing.action],
        message: routing.reason,
      });
      deps.log.info({ build: buildId }, routing.reason);
      after = await describeDeployment(service, spec.workerOptions.temporalNamespace, deploymentName);
    }
  } catch (error) {
    const failed = temporalTrouble(deps, key, error, routing.reason, connection);
    retryAfterMs = failed?.requeueAfterMs;
    conditions.push(
      failed?.condition ??
        stalled(
          error instanceof ManagedElsewhereError ? 'ManagedElsewhere' : 'RoutingChangeFailed',
          `${routing.reason}: ${errorMessage(error)}`,
        ),
    );
  }

  const done = after.currentBuildId === buildId && !after.rampingBuildId;
  const stuck = observed.filter((d) => d.buildId === buildId && d.stuck);
  if (stuck.length > 0 && !done) {
    const why = stuck.map((d) => `Deployment ${d.name}: ${d.stuck}`).join('; ');
    conditions.push(
      stalled(
        'BuildNotAvailable',
        `build ${buildId} cannot become available (${why}); its Pods say why: kubectl describe pods -l ${LABELS.buildId}=${buildId}`,
      ),
    );
  }
  conditions.push(
    done
      ? { type: 'Ready', status: 'True', reason: 'TargetCurrent', message: `build ${buildId} is current` }
      : { type: 'Ready', status: 'False', reason: 'RollingOut', message: routing.reason },
    done
      ? progressing('False', 'Done', `build ${buildId} is current`)
      : progressing('True', 'RollingOut', routing.reason),
  );
  const next = [plan.recheckAt, routing.action === 'wait' ? routing.recheckAt : undefined]
    .filter((d): d is Date => d !== undefined)
    .map((d) => Math.max(0, d.getTime() - now.getTime()));
  const status = versionsStatus(
    joinVersions(
      observed,
      after,
      buildId,
      [...wanted.keys()],
      rememberedCurrentTimes(stored.status, after.currentBuildId, now),
    ),
    after,
    buildId,
  );
  if (status.targetVersion)
    status.targetVersion = { ...status.targetVersion, ...gates.status, ...(madeRoomAt ? { madeRoomAt } : {}) };
  if (retryAfterMs === undefined) deps.temporalBackoff.reset(key);
  return writeStatus(deps, stored, status, conditions, retryAfterMs ?? Math.min(deps.pollIntervalMs, ...next));
}

/** What each owned Deployment says of its build, and why it must be rolled in place if it must. */
function observeOwn(
  deployments: V1Deployment[],
  buildId: string,
  wanted: Map<string | undefined, V1Deployment>,
  connection: WorkerConnection,
): (ObservedDeployment & { drift?: string })[] {
  return deployments
    .map(observeDeployment)
    .filter((d): d is ObservedDeployment => d !== undefined)
    .map((d) => {
      const drift = driftOf(d, d.buildId === buildId ? wanted.get(d.pool) : undefined, connection);
      return drift ? { ...d, drift } : d;
    });
}

interface RecordDeletions {
  /** A record went to make room for the target at the server's cap. */
  madeRoom: boolean;
  /** What stopped the deletions; `temporalTrouble` when Temporal itself is out of reach or over its limit. */
  problem?: { condition: Condition; requeueAfterMs?: number; temporalTrouble?: true };
}

/**
 * Deletes Temporal's records of builds whose Deployments are gone, or of one that makes room for
 * the target at the server's cap. A record whose pollers the server still remembers waits (a
 * Normal event says so); any other refusal is reported and stops the deletions.
 */
async function deleteVersionRecords(
  deps: ReconcilerDependencies,
  about: EventTarget,
  target: VersionRecordTarget,
  actions: VersionAction[],
  { key, connection }: { key: string; connection: TemporalConnection },
): Promise<RecordDeletions> {
  let madeRoom = false;
  for (const action of actions) {
    if (action.action !== 'deleteTemporalVersion') continue;
    try {
      const deletion = await deleteVersionRecord(target, action.buildId);
      if (!deletion.deleted) {
        await deps.recordEvent(about, {
          type: 'Normal',
          reason: 'VersionRecordDeleteWaiting',
          message: `${deletion.waitingFor}; trying again`,
        });
        continue;
      }
      await deps.recordEvent(about, {
        type: 'Normal',
        reason: 'VersionRecordDeleted',
        message: `deleted version ${action.buildId} from Temporal: ${action.reason}`,
      });
      madeRoom ||= action.makesRoom === true;
    } catch (error) {
      const what = `cannot delete the record of build ${action.buildId} from Worker Deployment ${target.deploymentName} in Temporal (${action.reason})`;
      const trouble = temporalTrouble(deps, key, error, what, connection);
      if (trouble) return { madeRoom, problem: { ...trouble, temporalTrouble: true } };
      const advice =
        "the controller tries again at every poll; until it succeeds the record counts against the server's cap of versions";
      return {
        madeRoom,
        problem: {
          condition: progressing('False', 'VersionRecordDeleteFailed', `${what}: ${errorMessage(error)}; ${advice}`),
        },
      };
    }
  }
  return { madeRoom };
}

const DONE_REASON = {
  create: 'DeploymentCreated',
  update: 'DeploymentUpdated',
  scale: 'DeploymentScaled',
  delete: 'DeploymentDeleted',
} as const;
const FAILED_REASON = {
  create: 'DeploymentCreateFailed',
  update: 'DeploymentUpdateFailed',
  scale: 'DeploymentScaleFailed',
  delete: 'DeploymentDeleteFailed',
} as const;
const ROUTING_REASON = { setCurrent: 'VersionPromoted', setRamp: 'VersionRamped', clearRamp: 'RampCleared' } as const;
