// What Temporal last said of each worker deployment's Worker Deployment, in this process, as the
// reconcile that read it left it. A reconcile that has just created a new build's Deployments
// plans on it instead of reading again (see reconciler.ts): Temporal cannot know that build
// before its Pods poll, and their Deployments becoming available brings the reconcile that reads.
import type { TemporalDeploymentState } from '../domain/snapshot.ts';
import type { WorkerDeploymentAddress } from '../temporal/worker-deployment-client.ts';

/** Where a description was read: the same worker deployment on another server, namespace or name is another Worker Deployment. */
export interface DescribedAt extends WorkerDeploymentAddress {
  hostPort: string;
}

export class LastDescribed {
  private readonly states = new Map<string, { at: string; state: TemporalDeploymentState }>();

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

  /** After a read or a change that failed, or the worker deployment gone: only a fresh read is trusted. */
  forget(key: string): void {
    this.states.delete(key);
  }
}

function placeOf(at: DescribedAt): string {
  return JSON.stringify([at.hostPort, at.namespace, at.deploymentName]);
}
