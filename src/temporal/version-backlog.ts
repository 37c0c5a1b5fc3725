// One build's task queues with Temporal's figures for that version: backlog, its age, and the
// add and dispatch rates. One DescribeWorkerDeploymentVersion with task-queue stats, a budgeted read.
import type { google } from '@temporalio/proto';
import type { TaskQueueFigures, TaskQueueKind } from '../domain/backlog.ts';
import { enums, type WorkflowService } from './protocol.ts';

const { TaskQueueType } = enums;

const KINDS = new Map<number, TaskQueueKind>([
  [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, 'workflow'],
  [TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, 'activity'],
  [TaskQueueType.TASK_QUEUE_TYPE_NEXUS, 'nexus'],
]);

export interface VersionBacklogTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
}

/** Empty until Temporal has recorded the version's queues (its workers' first polls). */
export async function readVersionBacklog(
  { service, namespace, deploymentName }: VersionBacklogTarget,
  buildId: string,
): Promise<TaskQueueFigures[]> {
  const response = await service.describeWorkerDeploymentVersion({
    namespace,
    deploymentVersion: { deploymentName, buildId },
    reportTaskQueueStats: true,
  });
  return (response.versionTaskQueues ?? []).flatMap((queue) => {
    const type = KINDS.get(queue.type ?? 0);
    if (!queue.name || !type) return [];
    const stats = queue.stats ?? {};
    return [
      {
        taskQueue: queue.name,
        type,
        backlogCount: Number(stats.approximateBacklogCount ?? 0),
        backlogAgeSeconds: seconds(stats.approximateBacklogAge),
        addRate: stats.tasksAddRate ?? 0,
        dispatchRate: stats.tasksDispatchRate ?? 0,
      },
    ];
  });
}

function seconds(duration: google.protobuf.IDuration | null | undefined): number {
  return Number(duration?.seconds ?? 0) + (duration?.nanos ?? 0) / 1e9;
}
