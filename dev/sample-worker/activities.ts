import { Context } from '@temporalio/activity';

export interface WorkerIdentity {
  deploymentName: string;
  buildId: string;
  behaviour: string;
  identity: string;
}

export interface SampleActivities {
  describeWorker(): Promise<WorkerIdentity>;
  /** Takes this long: work in flight when a worker is told to stop. */
  work(ms: number): Promise<void>;
}

/** Activities are made per worker, so that each reports the build of the worker that ran it. */
export function createActivities(self: WorkerIdentity): SampleActivities {
  return {
    describeWorker: () => Promise.resolve(self),
    // Cancellable, as real work should be: a worker that stops without draining cancels it.
    work: (ms) => Context.current().sleep(ms),
  };
}
