export interface WorkerIdentity {
  deploymentName: string;
  buildId: string;
  behaviour: string;
  identity: string;
}

export interface SampleActivities {
  describeWorker(): Promise<WorkerIdentity>;
}

/** Activities are made per worker, so that each reports the build of the worker that ran it. */
export function createActivities(self: WorkerIdentity): SampleActivities {
  return {
    describeWorker: () => Promise.resolve(self),
  };
}
