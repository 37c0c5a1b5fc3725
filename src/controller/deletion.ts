// A reconcile of a TemporalWorkerDeployment being deleted, in the same stages as any other:
// observe its Deployments and Temporal's view of its builds (with the workflows still running on
// those that may have some), plan the deletion (planner/deletion.ts), carry it out, write the
// status. The finalizer comes off only when nothing of it is left in Kubernetes or Temporal.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { FINALIZER, hasFinalizer } from '../domain/finalizer.ts';
import type { DeletionObservation } from '../domain/observation.ts';
import type { ObservedDeployment } from '../domain/snapshot.ts';
import { temporalDeploymentName } from '../k8s/names.ts';
import { observeDeployment } from '../k8s/observed-deployment.ts';
import {
  type DeletionPlan,
  planDeletion,
  planDeletionWithoutConnection,
  workflowsToCount,
} from '../planner/deletion.ts';
import { readFailureCondition } from '../status/read-failures.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import type { WorkerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { connectionNamespace } from '../domain/connection-ref.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import { type ExecutionContext, executePlan } from './execute.ts';
import { ownedDeployments } from './observe-kubernetes.ts';
import { describeInTemporal, notFoundAnswer } from './observe-temporal.ts';
import { lastKnownVersions, writeStatus } from './status-writer.ts';

export async function finalizeWorkerDeployment(
  deps: ReconcilerDependencies,
  stored: TemporalWorkerDeployment,
): Promise<ReconcileResult> {
  const namespace = stored.metadata.namespace ?? '';
  if (!hasFinalizer(stored)) {
    deps.statusSaid?.(namespace, stored.metadata.name ?? '', undefined);
    return undefined;
  }
  deps.setPinnedWorkflows(namespace, stored.metadata.name ?? '', {});
  deps.setMissingConfiguration?.(namespace, stored.metadata.name ?? '', 0);
  deps.setBuildsWithoutPollers(namespace, stored.metadata.name ?? '', undefined);
  const key = `${namespace}/${stored.metadata.name ?? ''}`;
  const temporalName = temporalDeploymentName(namespace, stored.metadata.name ?? '');
  const temporalNamespace = stored.spec.workerOptions.temporalNamespace;
  const connectionRef = stored.spec.workerOptions.connectionRef;
  const connectionName = connectionRef.name;
  const connection = deps.connection(connectionNamespace(connectionRef, namespace), connectionName);
  if (!connection) {
    const plan = planDeletionWithoutConnection({ namespace, connectionName, temporalName, temporalNamespace });
    return carryOut(deps, { key, workerDeployment: stored }, plan);
  }

  const address = { namespace: temporalNamespace, deploymentName: temporalName, identity: deps.identity };
  const described = await describeInTemporal(deps, key, connection, address);
  if ('failure' in described) {
    const condition = readFailureCondition(described.failure);
    const cannot = {
      ...condition,
      message: `the worker deployment is being deleted, but ${condition.message}; its Deployments stay until Temporal says which builds pinned workflows still need (to delete without that cleanup, remove the finalizer ${FINALIZER})`,
    };
    return writeStatus(deps, stored, lastKnownVersions(stored), [cannot], described.requeueAfterMs);
  }
  const { temporal, state } = described;
  const deployments = ownedDeployments(deps, stored)
    .map(observeDeployment)
    .filter((d): d is ObservedDeployment => d !== undefined);
  const runningWorkflows = await countWorkflows(deps, temporal, workflowsToCount({ temporal: state, deployments }));
  const notFound = notFoundAnswer(deps, key, { ...address, hostPort: connection.spec.hostPort }, state, stored);
  const observation: DeletionObservation = {
    now: deps.now(),
    workerDeployment: stored,
    temporalName,
    deployments,
    temporal: state,
    runningWorkflows,
    ...(notFound ? { notFound } : {}),
  };

  return carryOut(deps, { key, workerDeployment: stored, connection, temporal }, planDeletion(observation, deps));
}

async function carryOut(
  deps: ReconcilerDependencies,
  context: ExecutionContext,
  plan: DeletionPlan,
): Promise<ReconcileResult> {
  const warnings = plan.warning ? [{ type: 'Warning' as const, ...plan.warning }] : [];
  const execution = await executePlan(deps, context, plan.actions, warnings);
  const gone = execution.done.some((a) => a.action === 'removeFinalizer' && a.kind === 'TemporalWorkerDeployment');
  if (gone) {
    const { metadata } = context.workerDeployment;
    deps.statusSaid?.(metadata.namespace ?? '', metadata.name ?? '', undefined);
    return undefined;
  }
  const conditions = [...(execution.failed ? [execution.failed.condition] : []), ...plan.conditions];
  const allDone = execution.done.length === plan.actions.length;
  const requeueAfterMs = execution.failed?.requeueAfterMs ?? (allDone ? plan.requeueAfterMs : deps.pollIntervalMs);
  return writeStatus(deps, execution.stored, lastKnownVersions(execution.stored), conditions, requeueAfterMs);
}

/** Workflows running per build; a count that cannot be read is left out, and said so. */
async function countWorkflows(
  deps: ReconcilerDependencies,
  temporal: WorkerDeploymentClient,
  buildIds: string[],
): Promise<Record<string, number | undefined>> {
  const counts: Record<string, number | undefined> = {};
  for (const buildId of buildIds) {
    try {
      counts[buildId] = await temporal.countRunningWorkflows(buildId);
    } catch (error) {
      deps.log.warn(
        { build: buildId },
        `cannot count the workflows running on build ${buildId}: ${errorMessage(error)}`,
      );
      counts[buildId] = undefined;
    }
  }
  return counts;
}
