// What Temporal last said of each worker deployment's Worker Deployment, in this process, as the
// reconcile that read it left it, and since when it has answered that it does not exist. A
// reconcile that has just created a new build's Deployments plans on it instead of reading again
// (see reconciler.ts): Temporal cannot know that build before its Pods poll, and their Deployments
// becoming available brings the reconcile that reads.
import type { TemporalDeploymentState } from '../domain/snapshot.ts';
import type { WorkerDeploymentAddress } from '../temporal/worker-deployment-client.ts';

/** Where a description was read: the same worker deployment on another server, namespace or name is another Worker Deployment. */
export interface DescribedAt extends WorkerDeploymentAddress {
  hostPort: string;
}

export class LastDescribed {
  private readonly states = new Map<string, { at: string; state: TemporalDeploymentState }>();
  private readonly notFound = new Map<string, { at: string; since: Date }>();

  remember(key: string, at: DescribedAt, state: TemporalDeploymentState): void {
    // Without its conflict token: nothing is changed on a state recalled, and the token, a view
    // into the answer it came in, would keep that whole answer in memory.
    const kept = { ...state };
    delete kept.conflictToken;
    this.states.set(key, { at: placeOf(at), state: kept });
  }

  /** The state last remembered for `key`, if read at the same place. */
  recall(key: string, at: DescribedAt): TemporalDeploymentState | undefined {
    const remembered = this.states.get(key);
    return remembered?.at === placeOf(at) ? remembered.state : undefined;
  }

  /** After a read or a change that failed: only a fresh read is trusted. */
  forget(key: string): void {
    this.states.delete(key);
  }

  /**
   * Since when Temporal has answered that the Worker Deployment does not exist, this answer (at
   * `now`) included: the run of such answers at one place, until one finds it (see domain/temporal-not-found.ts).
   */
  notFoundSince(key: string, at: DescribedAt, now: Date): Date {
    const run = this.notFound.get(key);
    if (run?.at === placeOf(at)) return run.since;
    this.notFound.set(key, { at: placeOf(at), since: now });
    return now;
  }

  /** Temporal answered with the Worker Deployment: a run of not-found answers is over. */
  found(key: string): void {
    this.notFound.delete(key);
  }

  /** The worker deployment gone: nothing of it is kept. */
  drop(key: string): void {
    this.states.delete(key);
    this.notFound.delete(key);
  }
}

function placeOf(at: DescribedAt): string {
  return JSON.stringify([at.hostPort, at.namespace, at.deploymentName]);
}
