// How Temporal's visibility finds the workflows of a build: the search attribute Temporal sets on
// every workflow pinned to a Worker Deployment version is `<deployment name>:<build ID>`.

/** The visibility query of the workflows still running on any of `buildIds`. */
export function runningWorkflowsQuery(temporalName: string, buildIds: string[]): string {
  const versions = buildIds.map((b) => `TemporalWorkerDeploymentVersion = '${temporalName}:${b}'`).join(' OR ');
  return `(${versions}) AND ExecutionStatus = 'Running'`;
}
