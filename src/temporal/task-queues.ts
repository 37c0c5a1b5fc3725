// The task queues Temporal registered for a build (its workers may poll queues its pod template
// does not name), and whether unversioned workers poll them: then a first Progressive rollout has
// traffic to ramp from instead of promoting directly.
import type { temporal } from '@temporalio/proto';
import type { PolledQueue, PolledQueueType, PollersSeen } from '../domain/pollers.ts';
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
 * Who polled these task queues, as Temporal remembers it (for matching.PollerHistoryTTL, minutes by
 * default), for the builds of one Worker Deployment: per queue, the builds with a versioned poller
 * there; per build, its workers on the workflow queues (distinct identities, as one worker polls
 * many times and many queues). One DescribeTaskQueue per queue and type answers for every build.
 */
export async function readPollers(
  { service, namespace, deploymentName }: TaskQueueTarget,
  queues: readonly { name: string; type: PolledQueueType }[],
): Promise<Pick<PollersSeen, 'workers' | 'polled'>> {
  const identities = new Map<string, Set<string>>();
  const polled: PolledQueue[] = [];
  for (const { name, type } of queues) {
    const described = await service.describeTaskQueue({
      namespace,
      taskQueue: { name },
      taskQueueType:
        type === 'workflow' ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const builds = new Set<string>();
    for (const poller of described.pollers ?? []) {
      const options = poller.deploymentOptions;
      if (isUnversionedPoller(poller) || options?.deploymentName !== deploymentName || !options.buildId) continue;
      builds.add(options.buildId);
      if (type !== 'workflow') continue;
      const seen = identities.get(options.buildId) ?? new Set<string>();
      seen.add(poller.identity ?? '');
      identities.set(options.buildId, seen);
    }
    polled.push({ name, type, builds: [...builds].sort() });
  }
  return {
    workers: Object.fromEntries([...identities].map(([buildId, seen]) => [buildId, seen.size])),
    polled,
  };
}
