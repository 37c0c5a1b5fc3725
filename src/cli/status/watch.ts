// The worker deployments of a namespace (or of all) with what belongs to them, kept current by
// informers: their Kubernetes Deployments, the owned resources naming them and their events, as
// views (view.ts). What `twc status` prints and `twc dashboard` serves.
import type { CoreV1Event, V1Deployment } from '@kubernetes/client-node';
import { GROUP, KINDS, VERSION } from '../../api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../../api/temporal-worker-owned-resource.ts';
import { LABELS } from '../../domain/labels.ts';
import { errorMessage } from '../../runtime/kube/api-errors.ts';
import type { KubernetesApi } from '../../runtime/kube/api-client.ts';
import type { KubernetesObject } from '../../runtime/informer.ts';
import { NamespacedInformers } from '../../runtime/namespaced-informers.ts';
import { type CommandScope, commandCluster } from '../kube-context.ts';
import { statusView, type WorkerDeploymentView } from './view.ts';
import { byCodeUnits } from '../../domain/text-order.ts';

/** What may not be read: the message names the path and the API server's answer. */
export class WatchError extends Error {
  override name = 'WatchError';
}

export class WorkerDeploymentWatch {
  private readonly workerDeployments: NamespacedInformers<TemporalWorkerDeployment>;
  private readonly deployments: NamespacedInformers<V1Deployment>;
  private readonly ownedResources: NamespacedInformers<TemporalWorkerOwnedResource>;
  private readonly events: NamespacedInformers<CoreV1Event>;
  private readonly api: KubernetesApi;
  private readonly listeners = new Set<() => void>();

  /** `namespaces` undefined: every namespace; `name`: that worker deployment only. Both said, so that neither is forgotten. */
  constructor(api: KubernetesApi, scope: { namespaces: readonly string[] | undefined; name: string | undefined }) {
    this.api = api;
    const { namespaces, name } = scope;
    const informers = <T extends KubernetesObject>(
      path: (at: string) => string,
      selectors: { labelSelector?: string; fieldSelector?: string } = {},
    ) =>
      new NamespacedInformers<T>({
        api,
        path,
        ...(namespaces ? { namespaces } : {}),
        ...selectors,
        onEvent: () => this.changed(),
      });
    this.workerDeployments = informers(
      (at) => `/apis/${GROUP}/${VERSION}${at}/${KINDS.TemporalWorkerDeployment.plural}`,
      name ? { fieldSelector: `metadata.name=${name}` } : {},
    );
    this.deployments = informers((at) => `/apis/apps/v1${at}/deployments`, {
      labelSelector: name ? `${LABELS.deploymentName}=${name}` : LABELS.deploymentName,
    });
    this.ownedResources = informers(
      (at) => `/apis/${GROUP}/${VERSION}${at}/${KINDS.TemporalWorkerOwnedResource.plural}`,
    );
    this.events = informers((at) => `/api/v1${at}/events`, {
      fieldSelector: `involvedObject.kind=TemporalWorkerDeployment${name ? `,involvedObject.name=${name}` : ''}`,
    });
  }

  private get informers() {
    return [this.workerDeployments, this.deployments, this.ownedResources, this.events];
  }

  /** Resolves once every cache is filled; rejects with a WatchError when one may not be read. */
  async start(): Promise<void> {
    // An informer retries a refused list forever: a person is told at once what they may not read.
    await Promise.all(
      this.informers
        .flatMap((i) => i.paths)
        .map((path) =>
          this.api.get(path, { limit: 1 }).catch((error: unknown) => {
            throw new WatchError(`cannot list ${path}: ${errorMessage(error)}`, { cause: error });
          }),
        ),
    );
    await Promise.all(this.informers.map((i) => i.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Called at every change of an object watched; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** By namespace, then name. */
  views(): WorkerDeploymentView[] {
    return [...this.workerDeployments.list()]
      .sort((a, b) =>
        byCodeUnits(`${a.metadata.namespace}/${a.metadata.name}`, `${b.metadata.namespace}/${b.metadata.name}`),
      )
      .map((twd) => {
        const namespace = twd.metadata.namespace ?? '';
        return statusView({
          workerDeployment: twd,
          deployments: [...this.deployments.list(namespace)],
          ownedResources: [...this.ownedResources.list(namespace)],
          events: [...this.events.list(namespace)],
        });
      });
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The watch a command asks for (its kubeconfig, namespace or all, and maybe one name); `close` ends it and its client. */
export function commandWatch(
  scope: CommandScope,
  name: string | undefined,
): { watch: WorkerDeploymentWatch; namespace: string | undefined; close: () => Promise<void> } {
  const { api, namespace } = commandCluster(scope);
  const watch = new WorkerDeploymentWatch(api, { namespaces: namespace === undefined ? undefined : [namespace], name });
  return {
    watch,
    namespace,
    close: async () => {
      await watch.stop();
      api.close();
    },
  };
}
