// The controller's own scales and deletes of Deployments, until its informer shows them. A
// reconcile that runs before the informer has the scale to zero it just wrote sees the build still
// running, and may route traffic back to it: a failed canary going back to a build the sunset had
// just scaled down (found by the simulator, seed 7031). Its creates are told on (the watch table's
// memory takes them as seen).
import type { V1Deployment } from '@kubernetes/client-node';
import type { ClusterClient } from './cluster-client.ts';

export class OwnDeploymentWrites {
  /**
   * Per `namespace/name`: the replicas written, and the generation the cache showed then. A scale
   * changes the spec, so the API server raises the generation: a cached copy of that generation
   * or an older one was read before the write, whatever else (its status) changed since.
   */
  private readonly scaled = new Map<string, { replicas: number; generation: number }>();
  /** Per `namespace/name`: the uid of the Deployment deleted (one of that name created later is another). */
  private readonly deleted = new Map<string, string>();

  private readonly cached: (namespace: string) => readonly V1Deployment[];
  private readonly created: (deployment: V1Deployment) => void;

  /** `cached`: the informer's Deployments of a namespace; `created` hears of each Deployment created (or found there: 409). */
  constructor(
    cached: (namespace: string) => readonly V1Deployment[],
    created: (deployment: V1Deployment) => void = () => {},
  ) {
    this.cached = cached;
    this.created = created;
  }

  /** `cluster`, noting each scale and delete that succeeds. */
  noting(cluster: ClusterClient): ClusterClient {
    return {
      ...cluster,
      createDeployment: async (deployment) => {
        await cluster.createDeployment(deployment);
        this.created(deployment);
      },
      scaleDeployment: async (namespace, name, replicas) => {
        const before = this.find(namespace, name);
        await cluster.scaleDeployment(namespace, name, replicas);
        const generation = before?.metadata?.generation;
        if (generation !== undefined) this.scaled.set(`${namespace}/${name}`, { replicas, generation });
      },
      deleteDeployment: async (namespace, name) => {
        const uid = this.find(namespace, name)?.metadata?.uid;
        await cluster.deleteDeployment(namespace, name);
        if (uid) this.deleted.set(`${namespace}/${name}`, uid);
      },
    };
  }

  /** The cached Deployments of a namespace, with the controller's writes the cache does not show yet. */
  newest(namespace: string): V1Deployment[] {
    const deployments = this.cached(namespace);
    for (const [key, uid] of this.deleted)
      if (key.startsWith(`${namespace}/`) && !deployments.some((d) => d.metadata?.uid === uid && !deleting(d)))
        // Gone from the cache, or shown being deleted (a finalizer holds it): the informer saw the delete.
        this.deleted.delete(key);
    return deployments.filter((d) => !this.wasDeleted(d)).map((d) => this.withScale(d));
  }

  private wasDeleted(d: V1Deployment): boolean {
    const uid = this.deleted.get(keyOf(d));
    return uid !== undefined && d.metadata?.uid === uid;
  }

  private withScale(d: V1Deployment): V1Deployment {
    const key = keyOf(d);
    const written = this.scaled.get(key);
    if (!written) return d;
    if ((d.metadata?.generation ?? 0) > written.generation) {
      this.scaled.delete(key);
      return d;
    }
    return d.spec ? { ...d, spec: { ...d.spec, replicas: written.replicas } } : d;
  }

  private find(namespace: string, name: string): V1Deployment | undefined {
    return this.cached(namespace).find((d) => d.metadata?.name === name);
  }
}

function deleting(d: V1Deployment): boolean {
  return d.metadata?.deletionTimestamp !== undefined;
}

function keyOf(d: V1Deployment): string {
  return `${d.metadata?.namespace ?? ''}/${d.metadata?.name ?? ''}`;
}
