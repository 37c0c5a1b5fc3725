// Removes a Worker Deployment from Temporal when its TemporalWorkerDeployment is deleted: new
// workflows go back to unversioned workers, then every version record and the deployment itself
// are deleted, so nothing of ours is left counting against the server's limits. Each step is
// idempotent: a cleanup that stops half-way is finished by the next attempt.
import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError } from '@temporalio/client';
import { describeDeployment } from './deployment-state.ts';
import { managedElsewhere } from '../planner/routing.ts';
import { deleteVersionRecord, type VersionRecordTarget } from './version-records.ts';

export type CleanupTarget = VersionRecordTarget;

export class ManagedElsewhereError extends Error {
  override name = 'ManagedElsewhereError';
  readonly holder: string;
  constructor(deploymentName: string, holder: string) {
    super(managedElsewhere(deploymentName, holder));
    this.holder = holder;
  }
}

export type CleanupProgress = { done: true; reason: string } | { done: false; reason: string };

export async function cleanUpDeployment(target: CleanupTarget): Promise<CleanupProgress> {
  const { service, namespace, deploymentName, identity } = target;
  let state = await describeDeployment(service, namespace, deploymentName);
  if (!state.exists) return { done: true, reason: `Temporal has no Worker Deployment ${deploymentName}` };
  if (state.managerIdentity && state.managerIdentity !== identity)
    throw new ManagedElsewhereError(deploymentName, state.managerIdentity);

  if (state.rampingBuildId) {
    await service.setWorkerDeploymentRampingVersion({
      namespace,
      deploymentName,
      buildId: '',
      percentage: 0,
      conflictToken: state.conflictToken ?? null,
      identity,
    });
    state = await describeDeployment(service, namespace, deploymentName);
  }
  if (state.currentBuildId) {
    // The deleted workers' task queues will never be polled again: do not wait for them.
    await service.setWorkerDeploymentCurrentVersion({
      namespace,
      deploymentName,
      buildId: '',
      conflictToken: state.conflictToken ?? null,
      identity,
      ignoreMissingTaskQueues: true,
    });
  }
  for (const version of state.versions) {
    const deletion = await deleteVersionRecord(target, version.buildId, { skipDrainage: true });
    if (!deletion.deleted)
      return {
        done: false,
        reason: `waiting to delete version ${version.buildId} of ${deploymentName} from Temporal: ${deletion.waitingFor}`,
      };
  }
  try {
    await service.deleteWorkerDeployment({ namespace, deploymentName, identity });
  } catch (error) {
    if (!(isGrpcServiceError(error) && error.code === GrpcStatus.NOT_FOUND)) throw error;
  }
  return {
    done: true,
    reason: `deleted Worker Deployment ${deploymentName} and its ${state.versions.length} version records from Temporal`,
  };
}
