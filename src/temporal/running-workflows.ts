// Counts, and lists, the pinned workflows still running on one build, from Temporal's visibility
// store. Visibility lags the workflows themselves by up to its refresh interval: a count says what
// to tell people, never whether a build may go (Temporal's drainage status says that); a list says
// which runs a replay check is asked about, and the check reads each one itself.
import type { PinnedRun } from '../domain/pinned-move.ts';
import { runningWorkflowsQuery } from '../domain/visibility.ts';
import type { WorkflowService } from './protocol.ts';

export interface RunningWorkflowsTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
}

export async function countRunningWorkflows(target: RunningWorkflowsTarget, buildId: string): Promise<number> {
  const { service, namespace, deploymentName } = target;
  const response = await service.countWorkflowExecutions({
    namespace,
    query: runningWorkflowsQuery(deploymentName, [buildId]),
  });
  return Number(response.count ?? 0);
}

/** Up to `limit` of them (one page: at most the server's page size, 1,000 by default), with their task queue. */
export async function listPinnedRuns(
  target: RunningWorkflowsTarget,
  buildId: string,
  limit: number,
): Promise<PinnedRun[]> {
  const { service, namespace, deploymentName } = target;
  const page = await service.listWorkflowExecutions({
    namespace,
    pageSize: limit,
    query: runningWorkflowsQuery(deploymentName, [buildId]),
  });
  return (page.executions ?? []).flatMap((e) => {
    const { workflowId, runId } = e.execution ?? {};
    const taskQueue = e.taskQueue;
    return workflowId && runId && taskQueue ? [{ workflowId, runId, taskQueue }] : [];
  });
}
