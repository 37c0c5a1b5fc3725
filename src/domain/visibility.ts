// How Temporal's visibility finds the workflows of a build: the search attribute Temporal sets on
// every workflow pinned to a Worker Deployment version is `<deployment name>:<build ID>`.

/** The visibility query of the workflows still running on any of `buildIds`. */
export function runningWorkflowsQuery(temporalName: string, buildIds: string[]): string {
  const versions = buildIds.map((b) => `TemporalWorkerDeploymentVersion = '${temporalName}:${b}'`).join(' OR ');
  return `(${versions}) AND ExecutionStatus = 'Running'`;
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
