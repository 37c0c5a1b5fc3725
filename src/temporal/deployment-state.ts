// Temporal's view of one Worker Deployment, as plain data for the planners: routing, the versions
// it lists with their status and drainage, and the conflict token every routing change must carry.
import { optionalTsToDate } from '@temporalio/common/lib/time.js';
import type { TemporalDeploymentState, TemporalVersion } from '../domain/snapshot.ts';
import { missingOf } from './call-failures.ts';
import { GrpcStatus, TemporalCallError } from './call-status.ts';
import { enums, type WorkflowService } from './protocol.ts';

const { VersionDrainageStatus } = enums;
type DescribeResponse = Awaited<ReturnType<WorkflowService['describeWorkerDeployment']>>;

/** The Temporal namespace itself is missing: nothing can register until someone creates it or fixes the spec. */
export class TemporalNamespaceNotFoundError extends Error {
  override name = 'TemporalNamespaceNotFoundError';
  readonly namespace: string;
  constructor(namespace: string, options?: ErrorOptions) {
    super(
      `Temporal namespace "${namespace}" does not exist: create it or fix spec.workerOptions.temporalNamespace`,
      options,
    );
    this.namespace = namespace;
  }
}

export async function describeDeployment(
  service: WorkflowService,
  namespace: string,
  deploymentName: string,
): Promise<TemporalDeploymentState> {
  try {
    return deploymentState(await service.describeWorkerDeployment({ namespace, deploymentName }));
  } catch (error) {
    if (!isNotFound(error)) throw error;
    // Expected until the first worker of the deployment polls, unless the namespace is what is
    // missing. Temporal's answer says which; where it does not, one more read, only while the
    // deployment is unknown, tells the two apart.
    const missing = missingOf(error);
    if (missing === 'namespace') throw new TemporalNamespaceNotFoundError(namespace, { cause: error });
    if (missing === undefined) {
      try {
        await service.describeNamespace({ namespace });
      } catch (namespaceError) {
        if (isNotFound(namespaceError)) throw new TemporalNamespaceNotFoundError(namespace, { cause: namespaceError });
        throw namespaceError;
      }
    }
    return { exists: false, versions: [] };
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND;
}

export function deploymentState(response: DescribeResponse): TemporalDeploymentState {
  const info = response.workerDeploymentInfo;
  const routing = info?.routingConfig;
  const currentBuildId = routing?.currentDeploymentVersion?.buildId || undefined;
  const rampingBuildId = routing?.rampingDeploymentVersion?.buildId || undefined;
  const versions = (info?.versionSummaries ?? []).flatMap((summary): TemporalVersion[] => {
    const buildId = summary.deploymentVersion?.buildId;
    if (!buildId) return [];
    const drainage = summary.drainageInfo?.status ?? summary.drainageStatus;
    const status =
      buildId === currentBuildId
        ? 'Current'
        : buildId === rampingBuildId
          ? 'Ramping'
          : drainage === VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINING
            ? 'Draining'
            : drainage === VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED
              ? 'Drained'
              : 'Inactive';
    const drainedSince = status === 'Drained' ? optionalTsToDate(summary.drainageInfo?.lastChangedTime) : undefined;
    const lastCurrentAt = optionalTsToDate(summary.lastCurrentTime);
    const deactivatedAt = optionalTsToDate(summary.lastDeactivationTime);
    const firstActiveAt = optionalTsToDate(summary.firstActivationTime);
    const everActive = status !== 'Inactive' || Boolean(summary.firstActivationTime) || lastCurrentAt !== undefined;
    return [
      {
        buildId,
        status,
        everActive,
        ...(drainedSince ? { drainedSince } : {}),
        ...(lastCurrentAt ? { lastCurrentAt } : {}),
        ...(deactivatedAt ? { deactivatedAt } : {}),
        ...(firstActiveAt ? { firstActiveAt } : {}),
      },
    ];
  });
  const rampChangedAt = optionalTsToDate(routing?.rampingVersionPercentageChangedTime);
  const currentChangedAt = optionalTsToDate(routing?.currentVersionChangedTime);
  return {
    exists: info !== null && info !== undefined,
    versions,
    ...(currentBuildId ? { currentBuildId } : {}),
    ...(rampingBuildId ? { rampingBuildId, rampPercentage: routing?.rampingVersionPercentage ?? 0 } : {}),
    ...(rampChangedAt && rampingBuildId ? { rampChangedAt } : {}),
    ...(currentChangedAt && currentBuildId ? { currentChangedAt } : {}),
    ...(response.conflictToken?.length ? { conflictToken: response.conflictToken } : {}),
    ...(info?.managerIdentity ? { managerIdentity: info.managerIdentity } : {}),
    ...(info?.lastModifierIdentity ? { lastModifierIdentity: info.lastModifierIdentity } : {}),
  };
}
