// One reconcile of one TemporalWorkerDeployment: read from the caches, ask Temporal, decide
// (pure), act in a fixed order, write the status once. Connections with credentials, gates,
// events and the deletion finalizer are not handled yet.
import type { AppsV1Api, CustomObjectsApi, V1Deployment } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { WorkflowService } from '@temporalio/client';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { validate, withDefaults } from '../api/validate.ts';
import { buildIdOf } from '../k8s/build-id.ts';
import { temporalDeploymentName } from '../k8s/names.ts';
import { observeDeployment, type ObservedDeployment } from '../k8s/observed-deployment.ts';
import { versionedDeployment } from '../k8s/versioned-deployment.ts';
import { decideRouting, type RoutingDecision } from '../planner/routing.ts';
import { planVersions } from '../planner/versions.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import { joinVersions, versionsStatus } from '../status/versions.ts';
import { describeDeployment } from '../temporal/deployment-state.ts';
import { applyRouting } from '../temporal/routing.ts';
import { unversionedPollersConfirmed } from '../temporal/unversioned-pollers.ts';
import { executeVersionActions } from './kubernetes-executor.ts';

export interface ReconcilerDependencies {
  apps: AppsV1Api;
  customObjects: CustomObjectsApi;
  workerDeployment(namespace: string, name: string): TemporalWorkerDeployment | undefined;
  connection(namespace: string, name: string): TemporalConnection | undefined;
  deployments(namespace: string): V1Deployment[];
  temporal(connection: TemporalConnection): Promise<WorkflowService>;
  identity: string;
  now(): Date;
  pollIntervalMs: number;
  maxIneligibleVersions: number;
  rollbackWindowMs: number;
}

type Condition = { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string };

export async function reconcile(deps: ReconcilerDependencies, namespace: string, name: string): Promise<ReconcileResult> {
  const stored = deps.workerDeployment(namespace, name);
  if (!stored) return undefined;
  const schema = KINDS.TemporalWorkerDeployment.schema;
  const workerDeployment = withDefaults(schema, stored);
  const invalid = validate(schema, workerDeployment);
  if (invalid.length > 0) {
    return writeStatus(deps, stored, lastKnownVersions(stored), [stalled('InvalidSpec', invalid.map((e) => `${e.field}: ${e.message}`).join('; '))]);
  }
  const spec = workerDeployment.spec;
  const connection = deps.connection(namespace, spec.workerOptions.connectionRef.name);
  if (!connection) {
    return writeStatus(deps, stored, lastKnownVersions(stored), [
      stalled('ConnectionNotFound', `TemporalConnection ${namespace}/${spec.workerOptions.connectionRef.name} does not exist: create it or fix spec.workerOptions.connectionRef.name`),
    ]);
  }

  const buildId = buildIdOf(spec.template, spec.workerOptions.unsafeCustomBuildID);
  const uid = stored.metadata.uid;
  const observed = deps
    .deployments(namespace)
    .filter((d) => d.metadata?.ownerReferences?.some((o) => o.uid === uid))
    .map(observeDeployment)
    .filter((d): d is ObservedDeployment => d !== undefined);
  const deploymentName = temporalDeploymentName(namespace, name);
  let service: WorkflowService;
  let temporal;
  try {
    service = await deps.temporal(connection);
    temporal = await describeDeployment(service, spec.workerOptions.temporalNamespace, deploymentName);
  } catch (error) {
    // Nothing is deleted or scaled down while Temporal cannot say what still runs.
    return writeStatus(deps, stored, lastKnownVersions(stored), [progressing('False', 'TemporalUnreachable', `cannot read Worker Deployment ${deploymentName} from ${connection.spec.hostPort}: ${message(error)}`)], deps.pollIntervalMs);
  }

  const versions = joinVersions(observed, temporal, buildId);
  const now = deps.now();
  const plan = planVersions({
    now,
    targetBuildId: buildId,
    ...(temporal.currentBuildId ? { currentBuildId: temporal.currentBuildId } : {}),
    ...(spec.replicas === undefined ? {} : { replicas: spec.replicas }),
    sunset: { scaledownDelay: spec.sunset?.scaledownDelay ?? '1h', deleteDelay: spec.sunset?.deleteDelay ?? '24h' },
    versions,
    temporalKnowsDeployment: temporal.exists,
    maxIneligibleVersions: deps.maxIneligibleVersions,
  });
  const target = versions.find((v) => v.buildId === buildId);
  const rollout = spec.rollout ?? spec.cutover ?? { strategy: 'AllAtOnce' as const };
  const routing: RoutingDecision = decideRouting({
    now,
    rollout,
    target: { buildId, status: target?.status ?? 'NotRegistered', healthy: target?.healthy ?? false, gatePassed: rollout.gate === undefined, ...(target?.lastCurrentAt ? { lastCurrentAt: target.lastCurrentAt } : {}) },
    routing: {
      ...(temporal.currentBuildId ? { currentBuildId: temporal.currentBuildId } : {}),
      ...(temporal.rampingBuildId ? { rampingBuildId: temporal.rampingBuildId, rampPercentage: temporal.rampPercentage ?? 0 } : {}),
      ...(temporal.rampChangedAt ? { rampChangedAt: temporal.rampChangedAt } : {}),
      unversionedPollersConfirmed: await unversionedPollersConfirmed({ service, namespace: spec.workerOptions.temporalNamespace, deploymentName, buildId }, { strategy: rollout.strategy, currentBuildId: temporal.currentBuildId, target }),
    },
    rollbackWindowMs: deps.rollbackWindowMs,
  });

  const conditions: Condition[] = [];
  const executed = await executeVersionActions(deps.apps, namespace, plan.actions, (build) => [
    versionedDeployment({ workerDeployment, connection: connection.spec, buildId: build }),
  ]);
  if (executed.failed) conditions.push(progressing('False', 'KubernetesActionFailed', `${executed.failed.action.reason}: ${message(executed.failed.error)}`));
  for (const action of plan.actions) if (action.action === 'blocked') conditions.push(stalled('VersionLimitReached', action.reason));
  for (const action of plan.actions) {
    if (action.action !== 'deleteTemporalVersion') continue;
    // Refused while pollers linger; the next reconcile tries again.
    await service.deleteWorkerDeploymentVersion({ namespace: spec.workerOptions.temporalNamespace, deploymentVersion: { deploymentName, buildId: action.buildId }, identity: deps.identity }).catch(() => undefined);
  }
  let after = temporal;
  try {
    if (await applyRouting({ service, namespace: spec.workerOptions.temporalNamespace, deploymentName, identity: deps.identity }, temporal, routing)) {
      after = await describeDeployment(service, spec.workerOptions.temporalNamespace, deploymentName);
    }
  } catch (error) {
    conditions.push(stalled('RoutingChangeFailed', `${routing.reason}: ${message(error)}`));
  }

  const done = after.currentBuildId === buildId && !after.rampingBuildId;
  conditions.push(
    done ? { type: 'Ready', status: 'True', reason: 'TargetCurrent', message: `build ${buildId} is current` } : { type: 'Ready', status: 'False', reason: 'RollingOut', message: routing.reason },
    done ? progressing('False', 'Done', `build ${buildId} is current`) : progressing('True', 'RollingOut', routing.reason),
  );
  const next = [plan.recheckAt, routing.action === 'wait' ? routing.recheckAt : undefined].filter((d): d is Date => d !== undefined).map((d) => Math.max(0, d.getTime() - now.getTime()));
  return writeStatus(deps, stored, versionsStatus(joinVersions(observed, after, buildId), after, buildId), conditions, Math.min(deps.pollIntervalMs, ...next));
}

async function writeStatus(
  deps: ReconcilerDependencies,
  stored: TemporalWorkerDeployment,
  versions: Partial<NonNullable<TemporalWorkerDeployment['status']>>,
  conditions: Condition[],
  requeueAfterMs?: number,
): Promise<ReconcileResult> {
  const now = deps.now().toISOString();
  const previous = stored.status?.conditions ?? [];
  const generation = stored.metadata.generation;
  const merged = mergeConditions(previous, conditions, now, generation);
  const status = { ...versions, ...(generation === undefined ? {} : { observedGeneration: generation }), conditions: merged };
  // The goal at steady state is no write at all.
  if (JSON.stringify(stored.status ?? {}) !== JSON.stringify(status)) {
    await deps.customObjects.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace: stored.metadata.namespace ?? '', plural: KINDS.TemporalWorkerDeployment.plural, name: stored.metadata.name ?? '', body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
  return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
}

/** What the status last said of the builds, kept while the controller cannot look again. */
function lastKnownVersions(stored: TemporalWorkerDeployment): Partial<NonNullable<TemporalWorkerDeployment['status']>> {
  const versions = { ...stored.status };
  delete versions.conditions;
  delete versions.observedGeneration;
  return versions;
}

/** Keeps lastTransitionTime where a condition's status did not change. */
function mergeConditions(previous: NonNullable<NonNullable<TemporalWorkerDeployment['status']>['conditions']>, next: Condition[], now: string, generation: number | undefined) {
  return next.map((c) => {
    const before = previous.find((p) => p.type === c.type);
    return { ...c, lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now, ...(generation === undefined ? {} : { observedGeneration: generation }) };
  });
}

function stalled(reason: string, text: string): Condition {
  return { type: 'Stalled', status: 'True', reason, message: text };
}

function progressing(status: Condition['status'], reason: string, text: string): Condition {
  return { type: 'Progressing', status, reason, message: text };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
