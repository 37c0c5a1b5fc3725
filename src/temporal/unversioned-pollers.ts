// Whether unversioned workers poll every workflow task queue of a build: then a first Progressive
// rollout has traffic to ramp from instead of promoting directly. Asked only when the answer can
// change the routing decision (see `unversionedPollersMatter`), since it costs one read per queue.
import type { WorkflowService } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { Rollout } from '../api/temporal-worker-deployment.ts';
import type { VersionStatus } from '../planner/routing.ts';

const { TaskQueueType, WorkerVersioningMode } = proto.temporal.api.enums.v1;
type Poller = proto.temporal.api.taskqueue.v1.IPollerInfo;

export interface PollersMatterInput {
  strategy: Rollout['strategy'];
  currentBuildId?: string | undefined;
  target?: { status: VersionStatus; healthy: boolean } | undefined;
}

/**
 * Only a Progressive rollout with no current build and a registered, available target decides
 * differently with unversioned pollers: Manual never routes, AllAtOnce promotes either way, with
 * a current build the question does not arise, and an unready target waits either way.
 */
export function unversionedPollersMatter({ strategy, currentBuildId, target }: PollersMatterInput): boolean {
  return (
    strategy === 'Progressive' &&
    !currentBuildId &&
    target !== undefined &&
    target.status !== 'NotRegistered' &&
    target.healthy
  );
}

/** A poller that is not a versioned worker: no deployment options, or versioning turned off. */
export function isUnversionedPoller(poller: Poller): boolean {
  return poller.deploymentOptions?.workerVersioningMode !== WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED;
}

export interface UnversionedPollersQuery {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
  buildId: string;
}

/**
 * The build's workflow task queues as Temporal registered them (the build's workers may poll
 * queues its pod template does not name), each asked for its pollers. Undefined while the build
 * lists no workflow task queue yet: Temporal records them a little after the version appears.
 */
export async function allTaskQueuesHaveUnversionedPollers(
  query: UnversionedPollersQuery,
): Promise<boolean | undefined> {
  const { service, namespace, deploymentName, buildId } = query;
  const version = await service.describeWorkerDeploymentVersion({
    namespace,
    deploymentVersion: { deploymentName, buildId },
  });
  const queues = (version.workerDeploymentVersionInfo?.taskQueueInfos ?? [])
    .filter((q) => q.type === TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW && q.name)
    .map((q) => q.name ?? '');
  if (queues.length === 0) return undefined;
  for (const name of queues) {
    const described = await service.describeTaskQueue({
      namespace,
      taskQueue: { name },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    if (!(described.pollers ?? []).some(isUnversionedPoller)) return false;
  }
  return true;
}

/** What the routing planner takes as `unversionedPollersConfirmed`: Temporal is asked only when it matters. */
export async function unversionedPollersConfirmed(
  query: UnversionedPollersQuery,
  input: PollersMatterInput,
): Promise<boolean | undefined> {
  return unversionedPollersMatter(input) ? allTaskQueuesHaveUnversionedPollers(query) : false;
}
