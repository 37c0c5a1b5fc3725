// A TemporalWorkerOwnedResource's own reconcile. Its copies are owned by the builds' Deployments,
// which outlive it, so it keeps the controller's finalizer until they are deleted, as its
// ServiceAccount. One whose worker deployment does not exist says so (the worker deployment's
// reconcile says everything else).
import { KINDS } from '../api/kinds.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import { hasFinalizer, isBeingDeleted } from '../domain/finalizer.ts';
import { copyAccount, KindRefusedError } from '../domain/owned-resources.ts';
import { errorMessage, httpStatus } from '../runtime/kube/api-errors.ts';
import { KindNotServedError } from '../k8s/api-resources.ts';
import type { ClusterClient } from '../k8s/cluster-client.ts';
import { LABELS } from '../domain/labels.ts';
import type { Logger } from '../runtime/logger.ts';
import { nextStatus, stalled } from '../status/conditions.ts';
import { deleteCopies } from './copy-deletion.ts';
import { removeFinalizer } from './finalizers.ts';

export interface OwnedResourceReleaseDependencies {
  cluster: ClusterClient;
  now(): Date;
  log: Logger;
  /** The ServiceAccount copies are written as where a twor names none (--owned-resources-service-account). */
  ownedResourcesServiceAccount?: string | undefined;
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
  const namespace = twor.metadata.namespace ?? '';
  const account = copyAccount(
    { namespace, serviceAccountName: twor.spec.serviceAccountName },
    deps.ownedResourcesServiceAccount,
  );
  // Without an account that may delete the copies (gone with its namespace, say) the twor goes all
  // the same, never held up for the controller's rights: its copies go with their builds' Deployments.
  const leftToTheirBuilds = (why: string) =>
    deps.log.warn({ twor: twor.metadata.name, error: why }, "its copies go with their builds' Deployments");
  if ('missing' in account) leftToTheirBuilds(account.missing);
  else
    try {
      const owners = await deploymentsOf(deps.cluster, namespace, twor.spec.workerRef.name);
      await deleteCopies(deps.cluster, { apiVersion, kind }, namespace, twor.metadata.name ?? '', owners, account);
    } catch (error) {
      if (httpStatus(error) === 403) leftToTheirBuilds(errorMessage(error));
      // A kind the API server does not serve, or refused, has no copies to delete.
      else if (!(error instanceof KindNotServedError || error instanceof KindRefusedError)) throw error;
    }
  await removeFinalizer(deps.cluster, KINDS.TemporalWorkerOwnedResource.plural, twor);
}

/** The uids of the worker deployment's Deployments: labelled with its name, and owned by it. */
async function deploymentsOf(
  cluster: ClusterClient,
  namespace: string,
  workerDeployment: string,
): Promise<Set<string>> {
  const listed = await cluster.listObjects(
    { apiVersion: 'apps/v1', kind: 'Deployment' },
    namespace,
    `${LABELS.deploymentName}=${workerDeployment}`,
  );
  const owned = listed.filter((d) =>
    (d.metadata.ownerReferences ?? []).some(
      (o) => o.kind === KINDS.TemporalWorkerDeployment.kind && o.name === workerDeployment,
    ),
  );
  return new Set(owned.flatMap((d) => (d.metadata.uid ? [d.metadata.uid] : [])));
}
