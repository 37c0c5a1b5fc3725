// How Temporal's visibility finds the workflows of a build: the search attribute Temporal sets on
// every versioned workflow is `<deployment name>:<build ID>` of its last workflow task, for pinned
// and auto-upgrade workflows alike; `TemporalWorkflowVersioningBehavior` tells them apart.

/**
 * The visibility query of the pinned workflows still running on any of `buildIds`. Auto-upgrade
 * workflows whose last task ran there move to the current build at their next task: they neither
 * need the build nor are the ladder's to cancel.
 */
export function runningWorkflowsQuery(temporalName: string, buildIds: string[]): string {
  const versions = buildIds.map((b) => `TemporalWorkerDeploymentVersion = '${temporalName}:${b}'`).join(' OR ');
  return `(${versions}) AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`;
}

/**
 * The visibility query of the workflows `buildId` closed since `since`, of `workflowTypes` only
 * when given, grouped by how they closed. Workflow types come from a spec that refuses quotes.
 */
export function closedWorkflowsQuery(
  temporalName: string,
  buildId: string,
  since: Date,
  workflowTypes?: string[],
): string {
  const types = workflowTypes?.length ? ` AND WorkflowType IN (${workflowTypes.map((t) => `'${t}'`).join(', ')})` : '';
  return (
    `TemporalWorkerDeploymentVersion = '${temporalName}:${buildId}' AND ExecutionStatus != 'Running'` +
    ` AND CloseTime >= '${since.toISOString()}'${types} GROUP BY ExecutionStatus`
  );
}

/**
 * The visibility query of the batch operations still running whose job ID starts with `prefix`.
 * Temporal runs each batch as a workflow of the job's ID in its batcher's division of the
 * namespace, which a query sees only when it names it.
 */
export function runningBatchesQuery(prefix: string): string {
  return `TemporalNamespaceDivision = 'TemporalBatcher' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH '${prefix}'`;
}
