// The task queues Temporal registered for a build (its workers may poll queues its pod template
// does not name), and whether unversioned workers poll them: then a first Progressive rollout has
// traffic to ramp from instead of promoting directly.
import type { temporal } from '@temporalio/proto';
import type { BuildTaskQueues } from '../domain/snapshot.ts';
import { GrpcStatus, TemporalCallError } from './call-status.ts';
import { enums, type WorkflowService } from './protocol.ts';

const { TaskQueueType, WorkerVersioningMode } = enums;
type Poller = temporal.api.taskqueue.v1.IPollerInfo;

export interface TaskQueueTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
}

/**
 * Temporal records a build's queues a little after the version appears, and may list a version
 * before its own record answers (NOT_FOUND, seen after a server restart): empty lists until then.
 */
export async function buildTaskQueues(
  { service, namespace, deploymentName }: TaskQueueTarget,
  buildId: string,
): Promise<BuildTaskQueues> {
  const version = await service
    .describeWorkerDeploymentVersion({ namespace, deploymentVersion: { deploymentName, buildId } })
    .catch((error: unknown) => {
      if (error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND) return undefined;
      throw error;
    });
  const queues = version?.workerDeploymentVersionInfo?.taskQueueInfos ?? [];
  const named = (type: temporal.api.enums.v1.TaskQueueType) =>
    queues.filter((q) => q.type === type && q.name).map((q) => q.name ?? '');
  return {
    workflow: named(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
    activity: named(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
  };
}

/** A poller that is not a versioned worker: no deployment options, or versioning turned off. */
export function isUnversionedPoller(poller: Poller): boolean {
  return poller.deploymentOptions?.workerVersioningMode !== WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED;
}

/** Every one of these workflow task queues has an unversioned poller; asked queue by queue, it stops at the first without. */
export async function unversionedPollersOnAll(
  { service, namespace }: TaskQueueTarget,
  workflowTaskQueues: string[],
): Promise<boolean> {
  for (const name of workflowTaskQueues) {
    const described = await service.describeTaskQueue({
      namespace,
      taskQueue: { name },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    if (!(described.pollers ?? []).some(isUnversionedPoller)) return false;
  }
  return true;
}

/**
 * The workers of each build of one Worker Deployment that Temporal remembers polling these
 * workflow task queues (for matching.PollerHistoryTTL, minutes by default): distinct identities,
 * as one worker polls many times. One DescribeTaskQueue per queue answers for every build at once.
 */
export async function pollersByBuild(
  { service, namespace, deploymentName }: TaskQueueTarget,
  workflowTaskQueues: readonly string[],
): Promise<Record<string, number>> {
  const identities = new Map<string, Set<string>>();
  for (const name of workflowTaskQueues) {
    const described = await service.describeTaskQueue({
      namespace,
      taskQueue: { name },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    for (const poller of described.pollers ?? []) {
      const options = poller.deploymentOptions;
      if (isUnversionedPoller(poller) || options?.deploymentName !== deploymentName || !options.buildId) continue;
      const seen = identities.get(options.buildId) ?? new Set<string>();
      seen.add(poller.identity ?? '');
      identities.set(options.buildId, seen);
    }
  }
  return Object.fromEntries([...identities].map(([buildId, seen]) => [buildId, seen.size]));
}
