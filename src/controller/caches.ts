// The caches the reconciles read: an informer for each row of the watch table (watches.ts), whose
// events queue what the row says, the Secrets its Secret row selects, and the ConfigMaps and
// Secrets the Pod templates read; with the controller's own writes the informers have not shown
// yet, which reconciles decide on instead of the older copy.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import type { InformerEvent, KubernetesObject } from '../runtime/informer.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import type { Priority } from '../runtime/work-queue.ts';
import type { Logger } from '../runtime/logger.ts';
import { NamespacedInformers } from '../runtime/namespaced-informers.ts';
import { OwnDeploymentWrites } from '../k8s/own-deployment-writes.ts';
import { OwnWrites } from '../runtime/own-writes.ts';
import { NamedWatches } from '../runtime/named-watches.ts';
import { ConnectionCaches } from './connection-caches.ts';
import { TemplateReads } from './template-reads.ts';
import { type Watch, WatchMemory, WATCHES, type WatchView } from './watches.ts';

/** What else an event that queues a reconcile does: before its keys are queued, and after. */
export interface EventHooks<T> {
  before?(event: InformerEvent, object: T): void;
  after?(event: InformerEvent, object: T): void;
}

export interface CachesOptions {
  api: KubernetesApi;
  /** Default: every namespace. */
  namespaces?: readonly string[] | undefined;
  /** Read TemporalClusterConnections. */
  clusterConnections: boolean;
  enqueue: (key: string, priority?: Priority) => void;
  hooks: {
    workerDeployment: EventHooks<TemporalWorkerDeployment>;
    connection: EventHooks<TemporalConnection>;
    ownedResource: EventHooks<TemporalWorkerOwnedResource>;
  };
  log: Logger;
}

export class Caches {
  readonly workerDeployments: NamespacedInformers<TemporalWorkerDeployment>;
  /** Status writes the informer has not shown yet. */
  readonly ownWrites = new OwnWrites<TemporalWorkerDeployment>();
  readonly connections: ConnectionCaches;
  readonly ownedResources: NamespacedInformers<TemporalWorkerOwnedResource>;
  readonly deployments: NamespacedInformers<V1Deployment>;
  /** Scales and deletes of Deployments the informer has not shown yet. */
  readonly ownDeploymentWrites: OwnDeploymentWrites;
  readonly pods: NamespacedInformers<V1Pod>;
  readonly secrets: NamedWatches<'Secret'>;
  /** The ConfigMaps the Pod templates read. */
  readonly configMaps: NamedWatches<'ConfigMap'>;
  private readonly templateReads = new TemplateReads();
  private readsToWatch = false;

  constructor({ api, namespaces, clusterConnections, enqueue, hooks, log }: CachesOptions) {
    const view: WatchView = {
      workerDeployments: (namespace) => this.workerDeployments.list(namespace),
      connections: () => this.connections.all(),
      connectionOf: (twd) => this.connections.usedBy(twd),
      readsClusterConnections: clusterConnections,
      readers: (kind, namespace, name) => this.templateReads.readers(kind, namespace, name),
    };
    const informer = <T extends KubernetesObject>(
      row: Watch<T>,
      hook: EventHooks<T> = {},
      memory = new WatchMemory(row),
      seen?: (object: T) => void,
    ) => {
      return new NamespacedInformers<T>({
        api,
        ...(namespaces && !row.clusterScoped ? { namespaces } : {}),
        path: row.path,
        ...(row.labelSelector ? { labelSelector: row.labelSelector } : {}),
        ...(row.keep ? { keep: (object: T) => row.keep?.(object) ?? object } : {}),
        onEvent: (event, object) => {
          if (event !== 'delete') seen?.(object);
          const reads = row.reads?.(event, object);
          if (reads && this.templateReads.set(reads)) this.watchTemplateReads();
          const keys = memory.keys(event, object, view);
          if (keys.length === 0) return;
          hook.before?.(event, object);
          for (const key of keys) enqueue(key, row.priority);
          if (row.reselectsSecrets?.(event, object)) this.secrets.watchOnly(WATCHES.Secret.watched(view));
          hook.after?.(event, object);
        },
        log,
      });
    };
    this.secrets = new NamedWatches({
      api,
      kind: 'Secret',
      onChange: (namespace, name) => WATCHES.Secret.keys(namespace, name, view).forEach((key) => enqueue(key)),
      log,
    });
    this.configMaps = new NamedWatches({
      api,
      kind: 'ConfigMap',
      onChange: (namespace, name) => WATCHES.ConfigMap.keys(namespace, name, view).forEach((key) => enqueue(key)),
      log,
    });
    this.workerDeployments = informer(WATCHES.TemporalWorkerDeployment, hooks.workerDeployment, undefined, (twd) =>
      this.ownWrites.seen(twd),
    );
    this.connections = new ConnectionCaches(
      informer(WATCHES.TemporalConnection, hooks.connection),
      clusterConnections ? informer(WATCHES.TemporalClusterConnection, hooks.connection) : undefined,
    );
    this.ownedResources = informer(WATCHES.TemporalWorkerOwnedResource, hooks.ownedResource);
    const deploymentMemory = new WatchMemory(WATCHES.Deployment);
    this.deployments = informer(WATCHES.Deployment, {}, deploymentMemory);
    this.ownDeploymentWrites = new OwnDeploymentWrites(
      (namespace) => this.deployments.list(namespace),
      (created) => deploymentMemory.wrote(created),
    );
    this.pods = informer(WATCHES.Pod);
  }

  /**
   * Watches what the templates read, once the events being dispatched are: a list of many
   * Deployments at start-up changes the set once, not once per Deployment.
   */
  private watchTemplateReads(): void {
    if (this.readsToWatch) return;
    this.readsToWatch = true;
    queueMicrotask(() => {
      this.readsToWatch = false;
      this.configMaps.watchOnly(this.templateReads.objects('ConfigMap'), 'templates');
      this.secrets.watchOnly(this.templateReads.objects('Secret'), 'templates');
    });
  }

  async start(): Promise<void> {
    // Connections, Deployments and Pods first, so the first reconciles read full caches.
    await Promise.all([
      this.connections.start(),
      this.ownedResources.start(),
      this.deployments.start(),
      this.pods.start(),
    ]);
    await this.workerDeployments.start();
  }

  async stop(): Promise<void> {
    await Promise.all([
      this.workerDeployments.stop(),
      this.connections.stop(),
      this.ownedResources.stop(),
      this.deployments.stop(),
      this.pods.stop(),
      this.secrets.stop(),
      this.configMaps.stop(),
    ]);
  }
}
