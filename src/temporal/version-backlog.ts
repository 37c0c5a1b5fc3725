// One build's task queues as Temporal lists them for that version, with or without its figures for
// each: backlog, its age, and the add and dispatch rates. One DescribeWorkerDeploymentVersion, a
// budgeted read; without task-queue stats it is the cheaper one (the server asks matching nothing).
import type { google } from '@temporalio/proto';
import type { TaskQueueFigures, TaskQueueKind } from '../domain/backlog.ts';
import type { TaskQueueRef } from '../domain/pollers.ts';
import { GrpcStatus, TemporalCallError } from './call-status.ts';
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
export async function readVersionBacklog(target: VersionBacklogTarget, buildId: string): Promise<TaskQueueFigures[]> {
  return (await versionQueues(target, buildId, true)).map(({ name, type, stats }) => ({
    taskQueue: name,
    type,
    backlogCount: Number(stats.approximateBacklogCount ?? 0),
    backlogAgeSeconds: seconds(stats.approximateBacklogAge),
    addRate: stats.tasksAddRate ?? 0,
    dispatchRate: stats.tasksDispatchRate ?? 0,
  }));
}

/**
 * The version's queues without their figures; empty until Temporal has recorded them, and while
 * the version's own record does not answer (NOT_FOUND: not registered yet, or just after a server
 * restart).
 */
export async function readVersionTaskQueues(target: VersionBacklogTarget, buildId: string): Promise<TaskQueueRef[]> {
  const queues = await versionQueues(target, buildId, false).catch((error: unknown) => {
    if (error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND) return [];
    throw error;
  });
  return queues.map(({ name, type }) => ({ name, type }));
}

async function versionQueues(
  { service, namespace, deploymentName }: VersionBacklogTarget,
  buildId: string,
  reportTaskQueueStats: boolean,
) {
  const response = await service.describeWorkerDeploymentVersion({
    namespace,
    deploymentVersion: { deploymentName, buildId },
    ...(reportTaskQueueStats ? { reportTaskQueueStats } : {}),
  });
  return (response.versionTaskQueues ?? []).flatMap((queue) => {
    const type = KINDS.get(queue.type ?? 0);
    return queue.name && type ? [{ name: queue.name, type, stats: queue.stats ?? {} }] : [];
  });
}

function seconds(duration: google.protobuf.IDuration | null | undefined): number {
  return Number(duration?.seconds ?? 0) + (duration?.nanos ?? 0) / 1e9;
}
