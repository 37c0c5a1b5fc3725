// A TemporalWorkerOwnedResource's own reconcile. Its copies are owned by the builds' Deployments,
// which outlive it, so it keeps the controller's finalizer until they are deleted. One whose worker
// deployment does not exist says so (the worker deployment's reconcile says everything else).
import { KINDS } from '../api/kinds.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import { hasFinalizer, isBeingDeleted } from '../domain/finalizer.ts';
import { KindNotServedError } from '../k8s/api-resources.ts';
import type { ClusterClient } from '../k8s/cluster-client.ts';
import { copiesOf } from '../k8s/owned-resource-copies.ts';
import { nextStatus, stalled } from '../status/conditions.ts';
import { removeFinalizer } from './finalizers.ts';

export interface OwnedResourceReleaseDependencies {
  cluster: ClusterClient;
  now(): Date;
}

export async function reconcileOwnedResource(
  deps: OwnedResourceReleaseDependencies,
  twor: TemporalWorkerOwnedResource,
  workerDeploymentExists: boolean,
): Promise<void> {
  if (isBeingDeleted(twor)) return release(deps, twor);
  if (workerDeploymentExists) return;
  const name = twor.spec.workerRef.name;
  const said = stalled(
    'WorkerDeploymentNotFound',
    `TemporalWorkerDeployment ${twor.metadata.namespace ?? ''}/${name} does not exist: create it, or point spec.workerRef.name at one (a new TemporalWorkerOwnedResource, as the field is immutable)`,
  );
  const { versions, appliedKind } = twor.status ?? {};
  const status = nextStatus(twor, [said], deps.now(), {
    ...(versions ? { versions } : {}),
    ...(appliedKind ? { appliedKind } : {}),
  });
  // A conflict: the twor changed since it was read, and its event brings this back.
  if (status) await deps.cluster.replaceOwnedResourceStatus({ ...twor, status });
}

async function release(deps: OwnedResourceReleaseDependencies, twor: TemporalWorkerOwnedResource): Promise<void> {
  if (!hasFinalizer(twor)) return;
  const { apiVersion, kind } = twor.spec.object;
  try {
    await deps.cluster.deleteAll(
      { apiVersion, kind },
      twor.metadata.namespace ?? '',
      copiesOf(twor.metadata.name ?? ''),
    );
  } catch (error) {
    // A kind the API server does not serve has no objects to delete.
    if (!(error instanceof KindNotServedError)) throw error;
  }
  await removeFinalizer(deps.cluster, KINDS.TemporalWorkerOwnedResource.plural, twor);
}
