// The connections a controller reads, as caches: the TemporalConnections of the namespaces it
// watches and, when it watches every namespace (or is told to), the TemporalClusterConnections,
// which a controller of some namespaces has no right to. Looked up as a worker deployment names
// them. Their informers are rows of the watch table (watches.ts), made by caches.ts.
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { connectionNamespace } from '../domain/connection-ref.ts';
import type { NamespacedInformers } from '../runtime/namespaced-informers.ts';

export class ConnectionCaches {
  private readonly namespaced: NamespacedInformers<TemporalConnection>;
  private readonly cluster: NamespacedInformers<TemporalConnection> | undefined;

  /** `cluster`: the TemporalClusterConnections, when read. */
  constructor(
    namespaced: NamespacedInformers<TemporalConnection>,
    cluster: NamespacedInformers<TemporalConnection> | undefined,
  ) {
    this.namespaced = namespaced;
    this.cluster = cluster;
  }

  get readsClusterConnections(): boolean {
    return this.cluster !== undefined;
  }

  /** A TemporalConnection, or with namespace '' a TemporalClusterConnection. */
  get(namespace: string, name: string): TemporalConnection | undefined {
    return namespace ? this.namespaced.get(namespace, name) : this.cluster?.get('', name);
  }

  usedBy(twd: TemporalWorkerDeployment): TemporalConnection | undefined {
    const ref = twd.spec.workerOptions.connectionRef;
    return this.get(connectionNamespace(ref, twd.metadata.namespace ?? ''), ref.name);
  }

  all(): TemporalConnection[] {
    return [...this.namespaced.list(), ...(this.cluster?.list() ?? [])];
  }

  async start(): Promise<void> {
    await Promise.all([this.namespaced.start(), this.cluster?.start()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.namespaced.stop(), this.cluster?.stop()]);
  }
}
