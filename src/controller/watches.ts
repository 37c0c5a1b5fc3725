// What the controller watches and which reconciles each event queues: a row per kind, read as the
// Go controller's SetupWithManager (For the worker deployments, Owns their Deployments, Watches
// the rest with a map function). The mapping functions are pure: the event, the object, what the
// controller remembered of it and a view of the caches in; the queue keys out, in the order they
// are queued. caches.ts makes an informer of each row; the Secrets and ConfigMaps are watched one
// by one, by name (runtime/named-watches.ts), as the Secret row selects them and as the rows that
// hold Pod templates say they read them (template-reads.ts).
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { hash } from 'node:crypto';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import { connectionNamespace, usesConnection } from '../domain/connection-ref.ts';
import { LABELS } from '../domain/labels.ts';
import { cachedDeployment, cachedPod, cachedWorkerDeployment, withoutManagedFields } from '../k8s/cached-objects.ts';
import { configurationReferences, readObjects } from '../k8s/configuration-references.ts';
import { observeDeployment } from '../k8s/observed-deployment.ts';
import { podProblems } from '../k8s/pod-problems.ts';
import { poolPodTemplate } from '../k8s/pool-template.ts';
import { secretCopyNames } from '../k8s/secret-copies.ts';
import type { InformerEvent, KubernetesObject } from '../runtime/informer.ts';
import type { Priority } from '../runtime/work-queue.ts';
import { referencedSecrets } from '../temporal/credentials.ts';
import { notificationSecrets } from './notifications.ts';
import type { HolderReads, ReadKind } from './template-reads.ts';
import { callsForReconcile, changeOf } from './worker-deployment-changes.ts';

/** What a reconcile is of: a worker deployment, a connection (namespace '' for a cluster one) or an owned resource. */
export type KeyKind = 'workerDeployment' | 'connection' | 'ownedResource';

/** A queue key is `namespace/name` after the prefix of its kind. */
const PREFIXES: Record<KeyKind, string> = { workerDeployment: '', connection: 'connection:', ownedResource: 'owned:' };

/** The queue key of one reconcile: none without a name, nor without a namespace but for a cluster connection. */
export function queueKeys(kind: KeyKind, namespace: string | undefined, name: string | undefined): string[] {
  if ((!namespace && kind !== 'connection') || !name) return [];
  return [`${PREFIXES[kind]}${namespace ?? ''}/${name}`];
}

/** What a queue key names. */
export function keyOf(key: string): { kind: KeyKind; namespace: string; name: string } {
  const kind = key.startsWith(PREFIXES.ownedResource)
    ? 'ownedResource'
    : key.startsWith(PREFIXES.connection)
      ? 'connection'
      : 'workerDeployment';
  const [namespace = '', name = ''] = key.slice(PREFIXES[kind].length).split('/');
  return { kind, namespace, name };
}

/** What the keys of an event may depend on beside the object: the caches. */
export interface WatchView {
  /** Of one namespace, or of every namespace watched. */
  workerDeployments(namespace?: string): readonly TemporalWorkerDeployment[];
  /** The TemporalConnections and, where read, the TemporalClusterConnections. */
  connections(): readonly TemporalConnection[];
  /** The connection a worker deployment names, as cached. */
  connectionOf(twd: TemporalWorkerDeployment): TemporalConnection | undefined;
  readsClusterConnections: boolean;
  /** The keys queued by a change of a ConfigMap or Secret, by the rows' `reads` of the Pod templates that read it. */
  readers(kind: ReadKind, namespace: string, name: string): string[];
}

/** One watched kind: where its informer lists and watches, and which keys an event queues. */
export interface Watch<T extends KubernetesObject> {
  /** The API path in a scope: '' for every namespace, or `/namespaces/<name>`. */
  path: (scope: string) => string;
  /** Listed and watched once, whatever namespaces the controller watches. */
  clusterScoped?: true;
  labelSelector?: string;
  /** What the cache keeps of each object (k8s/cached-objects.ts); default all of it. */
  keep?(object: T): T;
  /**
   * What the controller remembers of each object between its events, under `key`; `of` an event,
   * undefined for nothing. `keys` is given what was remembered before the event.
   */
  memory?: { key(object: T): string; of(event: InformerEvent, object: T): string | undefined };
  keys(event: InformerEvent, object: T, before: string | undefined, view: WatchView): string[];
  /** The work queue's lane its keys wait in; default high. */
  priority?: Priority;
  /** Whether the event changes which Secrets the Secret row selects. */
  reselectsSecrets?(event: InformerEvent, object: T): boolean;
  /** What the object's Pod templates read, at every event: those ConfigMaps and Secrets are watched. */
  reads?(event: InformerEvent, object: T): HolderReads;
}

/** What these templates of `namespace` read, for the holder, and the key that a change queues. */
function holderReads(
  holder: string,
  keys: string[],
  namespace: string,
  templates: Parameters<typeof configurationReferences>[0][],
): HolderReads {
  const objects = readObjects(templates.flatMap(configurationReferences)).map(({ kind, name }) => ({
    kind,
    namespace,
    name,
  }));
  return { holder, keys, objects };
}

/**
 * What the controller remembers of each object of one row between its events (Watch.memory), and
 * so which keys each event queues: the informers' side of the watch table.
 */
export class WatchMemory<T extends KubernetesObject> {
  private readonly row: Watch<T>;
  private readonly remembered = new Map<string, string>();

  constructor(row: Watch<T>) {
    this.row = row;
  }

  /** The keys an event queues; what the row remembers of the object is then what the event showed. */
  keys(event: InformerEvent, object: T, view: WatchView): string[] {
    // A row without memory remembers nothing: its key is always '', its `now` undefined.
    const memoryKey = this.row.memory?.key(object) ?? '';
    const keys = this.row.keys(event, object, this.remembered.get(memoryKey), view);
    const now = this.row.memory?.of(event, object);
    if (now === undefined) this.remembered.delete(memoryKey);
    else this.remembered.set(memoryKey, now);
    return keys;
  }

  /**
   * An object the controller itself just created, as the reconcile that created it decided with it:
   * its informer event brings nothing that reconcile did not know. Kept only while the row remembers
   * nothing of it (its event came first, or it already existed: a 409 counts as created).
   */
  wrote(object: T): void {
    const memory = this.row.memory;
    if (!memory) return;
    const key = memory.key(object);
    const now = memory.of('add', object);
    if (now !== undefined && !this.remembered.has(key)) this.remembered.set(key, now);
  }
}

/** The worker deployments using the connection `name` of `namespace` ('' for a cluster connection). */
function usersOf(namespace: string, name: string | undefined, view: WatchView): string[] {
  return view
    .workerDeployments(namespace || undefined)
    .filter((twd) => usesConnection(twd, namespace, name ?? ''))
    .flatMap((twd) => queueKeys('workerDeployment', twd.metadata.namespace, twd.metadata.name));
}

/** A connection's own check, and every worker deployment using it. */
function connectionKeys(connection: TemporalConnection, view: WatchView): string[] {
  const { namespace = '', name } = connection.metadata;
  return [...queueKeys('connection', namespace, name), ...usersOf(namespace, name, view)];
}

/** The worker deployment that controls a Deployment. */
export function ownerOf(deployment: V1Deployment): string | undefined {
  return deployment.metadata?.ownerReferences?.find(
    (o) => o.kind === KINDS.TemporalWorkerDeployment.kind && o.controller,
  )?.name;
}

/**
 * What a reconcile reads of a Deployment: its owner and what observeDeployment makes of it (build,
 * pool, replicas, whether available and since when, stuck, the hashes drift is judged by). A
 * digest of them: the watch table keeps one per Deployment between its events only to compare,
 * and their text, mostly hashes already, was ten times longer.
 */
export function deploymentFacts(deployment: V1Deployment): string {
  return hash('sha256', JSON.stringify([ownerOf(deployment) ?? null, observeDeployment(deployment) ?? null]), 'base64');
}

/** What a Pod says is wrong (see podProblems), undefined for nothing. */
function podTrouble(event: InformerEvent, pod: V1Pod): string | undefined {
  const trouble = event === 'delete' ? '[]' : JSON.stringify(podProblems(pod));
  return trouble === '[]' ? undefined : trouble;
}

const ours = (plural: string) => (scope: string) => `/apis/${GROUP}/${VERSION}${scope}/${plural}`;

export const WATCHES = {
  /** Every event but an update that changes nothing a reconcile acts on (see changeOf), as a status write. */
  TemporalWorkerDeployment: {
    path: ours(KINDS.TemporalWorkerDeployment.plural),
    keep: (twd) => cachedWorkerDeployment(twd),
    memory: {
      key: (twd) => `${twd.metadata.namespace ?? ''}/${twd.metadata.name ?? ''}`,
      of: (event, twd) => (event === 'delete' ? undefined : changeOf(twd)),
    },
    keys: (event, twd, before) => [
      ...(callsForReconcile(event, before, twd)
        ? queueKeys('workerDeployment', twd.metadata.namespace, twd.metadata.name)
        : []),
      // Gone: its connection may be unused now. Two worker deployments finalized at once each see the
      // other still holding it, so neither lets it go; the connection's own look, after both, does.
      ...(event === 'delete'
        ? queueKeys(
            'connection',
            connectionNamespace(twd.spec.workerOptions.connectionRef, twd.metadata.namespace ?? ''),
            twd.spec.workerOptions.connectionRef.name,
          )
        : []),
    ],
    // Only a worker deployment on a cluster connection has copies of its Secrets watched (checking
    // every one at each event would be quadratic at start-up).
    reselectsSecrets: (event, twd) =>
      event !== 'update' &&
      (twd.spec.workerOptions.connectionRef.kind === 'TemporalClusterConnection' ||
        notificationSecrets(twd).length > 0),
    // The spec's templates, before its build has a Deployment: with onConfigChange NewBuild they make its build ID.
    reads: (event, twd) => {
      const { namespace = '', name } = twd.metadata;
      const spec = twd.spec;
      const templates =
        event === 'delete' ? [] : (spec.pools ?? [undefined]).map((pool) => poolPodTemplate(spec.template, pool));
      return holderReads(
        `TemporalWorkerDeployment/${namespace}/${name ?? ''}`,
        queueKeys('workerDeployment', namespace, name),
        namespace,
        templates,
      );
    },
  } satisfies Watch<TemporalWorkerDeployment>,
  TemporalConnection: {
    path: ours(KINDS.TemporalConnection.plural),
    keep: (object) => withoutManagedFields(object),
    keys: (_event, connection, _before, view) => connectionKeys(connection, view),
    reselectsSecrets: () => true,
  } satisfies Watch<TemporalConnection>,
  /** Read when the controller watches every namespace, or is told to. */
  TemporalClusterConnection: {
    path: () => `/apis/${GROUP}/${VERSION}/${KINDS.TemporalClusterConnection.plural}`,
    clusterScoped: true,
    keep: (object) => withoutManagedFields(object),
    keys: (_event, connection, _before, view) => connectionKeys(connection, view),
    reselectsSecrets: () => true,
  } satisfies Watch<TemporalConnection>,
  /** The worker deployment it names, and its own copies. */
  TemporalWorkerOwnedResource: {
    path: ours(KINDS.TemporalWorkerOwnedResource.plural),
    keep: (object) => withoutManagedFields(object),
    keys: (_event, twor) => [
      ...queueKeys('workerDeployment', twor.metadata.namespace, twor.spec.workerRef.name),
      ...queueKeys('ownedResource', twor.metadata.namespace, twor.metadata.name),
    ],
  } satisfies Watch<TemporalWorkerOwnedResource>,
  /**
   * The builds' Deployments: the worker deployment that controls each, when what a reconcile reads
   * of it changed (deploymentFacts): the Deployment controller's other status updates of a new
   * build (its counts, its Progressing condition) each cost a reconcile, and with it a Temporal
   * read, that could decide nothing new. The controller's own create counts as seen (WatchMemory.wrote).
   * What is left is a build's progress (available, scaled, stuck, gone), and goes first: a rollout
   * whose build just became available finishes before other worker deployments' changes.
   */
  Deployment: {
    priority: 'top',
    path: (scope) => `/apis/apps/v1${scope}/deployments`,
    labelSelector: LABELS.buildId,
    keep: cachedDeployment,
    memory: {
      key: (deployment) => `${deployment.metadata?.namespace ?? ''}/${deployment.metadata?.name ?? ''}`,
      of: (event, deployment) => (event === 'delete' ? undefined : deploymentFacts(deployment)),
    },
    keys: (event, deployment, before) =>
      event !== 'delete' && before === deploymentFacts(deployment)
        ? []
        : queueKeys('workerDeployment', deployment.metadata?.namespace, ownerOf(deployment)),
    // Each build's own template: an old build reads what its template names, whatever the spec says now.
    reads: (event, deployment) => {
      const { namespace = '', name = '' } = deployment.metadata ?? {};
      return holderReads(
        `Deployment/${namespace}/${name}`,
        queueKeys('workerDeployment', namespace, ownerOf(deployment)),
        namespace,
        event === 'delete' ? [] : [deployment.spec?.template],
      );
    },
  } satisfies Watch<V1Deployment>,
  /**
   * Only the Pods of the builds' Deployments (both labels are on every Pod template the controller
   * makes), when what they say is wrong changes.
   */
  Pod: {
    path: (scope) => `/api/v1${scope}/pods`,
    labelSelector: `${LABELS.deploymentName},${LABELS.buildId}`,
    keep: cachedPod,
    memory: { key: (pod) => pod.metadata?.uid ?? '', of: podTrouble },
    keys: (event, pod, before) =>
      podTrouble(event, pod) === before
        ? []
        : queueKeys('workerDeployment', pod.metadata?.namespace, pod.metadata?.labels?.[LABELS.deploymentName]),
  } satisfies Watch<V1Pod>,
  /**
   * Each Secret a connection names, and each copy of a cluster connection's Secret a worker
   * deployment mounts. A change reaches the pooled Temporal client at the next check of its
   * connection and reconcile of each worker deployment using it; a copy changed or gone is written
   * again by its worker deployment.
   */
  Secret: {
    watched: (view: WatchView): { namespace: string; name: string }[] => {
      const copies = view.readsClusterConnections
        ? view.workerDeployments().flatMap((twd) => {
            const connection = view.connectionOf(twd);
            const namespace = twd.metadata.namespace ?? '';
            return connection
              ? secretCopyNames(connection, twd.metadata.name ?? '').map((name) => ({ namespace, name }))
              : [];
          })
        : [];
      // A receiver's Secret, read at every reconcile of its worker deployment (controller/notifications.ts).
      const receivers = view
        .workerDeployments()
        .flatMap((twd) => notificationSecrets(twd).map((name) => ({ namespace: twd.metadata.namespace ?? '', name })));
      return [...view.connections().flatMap((connection) => referencedSecrets(connection)), ...copies, ...receivers];
    },
    keys: (namespace: string, name: string, view: WatchView): string[] => [
      ...view.readers('Secret', namespace, name),
      ...view.workerDeployments(namespace).flatMap((twd) => {
        const connection = view.connectionOf(twd);
        return connection && secretCopyNames(connection, twd.metadata.name ?? '').includes(name)
          ? queueKeys('workerDeployment', namespace, twd.metadata.name)
          : [];
      }),
      ...view
        .workerDeployments(namespace)
        .filter((twd) => notificationSecrets(twd).includes(name))
        .flatMap((twd) => queueKeys('workerDeployment', namespace, twd.metadata.name)),
      ...view
        .connections()
        .filter((connection) =>
          referencedSecrets(connection).some((secret) => secret.namespace === namespace && secret.name === name),
        )
        .flatMap((connection) => connectionKeys(connection, view)),
    ],
  },
  /** Each ConfigMap a Pod template reads (as the rows' `reads` say): the worker deployments whose templates read it. */
  ConfigMap: {
    keys: (namespace: string, name: string, view: WatchView): string[] => view.readers('ConfigMap', namespace, name),
  },
};
