// How the workflows a build closed ended, from Temporal's visibility store, for canary analysis:
// one count grouped by ExecutionStatus. A continue-as-new is not an outcome (the workflow goes on),
// so it is neither a sample nor a failure; failed, timed out and terminated runs are failures.
import type { OutcomeCounts } from '../domain/observation.ts';
import { closedWorkflowsQuery } from '../domain/visibility.ts';
import type { WorkflowService } from './protocol.ts';

export interface WorkflowOutcomesTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
}

const FAILURES = new Set(['Failed', 'TimedOut', 'Terminated']);
const NOT_AN_OUTCOME = 'ContinuedAsNew';

export async function countOutcomes(
  { service, namespace, deploymentName }: WorkflowOutcomesTarget,
  buildId: string,
  since: Date,
  workflowTypes?: string[],
): Promise<OutcomeCounts> {
  const response = await service.countWorkflowExecutions({
    namespace,
    query: closedWorkflowsQuery(deploymentName, buildId, since, workflowTypes),
  });
  const counts: OutcomeCounts = { closed: 0, failed: 0 };
  for (const group of response.groups ?? []) {
    const status = groupValue(group.groupValues?.[0]?.data);
    const count = Number(group.count ?? 0);
    if (status === NOT_AN_OUTCOME) continue;
    counts.closed += count;
    if (FAILURES.has(status)) counts.failed += count;
  }
  return counts;
}

/** A group's value is a JSON payload: the status name as a JSON string. */
function groupValue(data: Uint8Array | null | undefined): string {
  if (!data) return '';
  const value: unknown = JSON.parse(Buffer.from(data).toString('utf8'));
  return typeof value === 'string' ? value : '';
}
