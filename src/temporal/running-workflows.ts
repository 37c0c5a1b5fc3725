// Counts the workflows still running on one build, from Temporal's visibility store. Visibility
// lags the workflows themselves by up to its refresh interval: a count says what to tell people,
// never whether a build may go (Temporal's drainage status says that).
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
