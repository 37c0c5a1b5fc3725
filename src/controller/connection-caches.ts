// The connections a controller reads, as caches: the TemporalConnections of the namespaces it
// watches and, when it watches every namespace (or is told to), the TemporalClusterConnections,
// which a controller of some namespaces has no right to. Looked up as a worker deployment names
// them; with the Secrets whose changes matter, the copies of cluster connections' Secrets included.
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { connectionNamespace } from '../domain/connection-ref.ts';
import { secretCopyNames } from '../k8s/secret-copies.ts';
import type { InformerEvent } from '../runtime/informer.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import type { Logger } from '../runtime/logger.ts';
import { NamespacedInformers } from '../runtime/namespaced-informers.ts';
import { referencedSecrets } from '../temporal/credentials.ts';

export interface ConnectionCachesOptions {
  api: KubernetesApi;
  /** Default: every namespace. */
  namespaces?: readonly string[];
  /** Read TemporalClusterConnections. */
  cluster: boolean;
  onEvent: (event: InformerEvent, connection: TemporalConnection) => void;
  log: Logger;
}

export class ConnectionCaches {
  private readonly namespaced: NamespacedInformers<TemporalConnection>;
  private readonly cluster: NamespacedInformers<TemporalConnection> | undefined;

  constructor({ api, namespaces, cluster, onEvent, log }: ConnectionCachesOptions) {
    this.namespaced = new NamespacedInformers<TemporalConnection>({
      api,
      ...(namespaces ? { namespaces } : {}),
      path: (scope) => `/apis/${GROUP}/${VERSION}${scope}/${KINDS.TemporalConnection.plural}`,
      onEvent,
      log,
    });
    this.cluster = cluster
      ? new NamespacedInformers<TemporalConnection>({
          api,
          path: () => `/apis/${GROUP}/${VERSION}/${KINDS.TemporalClusterConnection.plural}`,
          onEvent,
          log,
        })
      : undefined;
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

  /** The Secrets the connections name, and the copies of cluster connections' Secrets these worker deployments mount. */
  secretsToWatch(workerDeployments: readonly TemporalWorkerDeployment[]): { namespace: string; name: string }[] {
    const copies = this.cluster
      ? workerDeployments.flatMap((twd) => {
          const connection = this.usedBy(twd);
          const namespace = twd.metadata.namespace ?? '';
          return connection
            ? secretCopyNames(connection, twd.metadata.name ?? '').map((name) => ({ namespace, name }))
            : [];
        })
      : [];
    return [...this.all().flatMap((connection) => referencedSecrets(connection)), ...copies];
  }

  async start(): Promise<void> {
    await Promise.all([this.namespaced.start(), this.cluster?.start()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.namespaced.stop(), this.cluster?.stop()]);
  }
}
