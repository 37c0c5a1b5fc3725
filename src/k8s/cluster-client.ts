// Every write the controller makes to Kubernetes, and the one read it makes outside the caches
// (a gate's input), behind one interface: the reconciler depends on this, not on the HTTP client, so
// its orchestration can be driven and recorded in a test.
import type { V1Deployment } from '@kubernetes/client-node';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import { KindRefusedError, refusedKind } from '../domain/owned-resources.ts';
import type { ServiceAccountRef } from '../domain/token-policy.ts';
import { httpStatus, unless } from '../runtime/kube/api-errors.ts';
import { ApiResources } from './api-resources.ts';

export interface Finalizable {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; finalizers?: string[] };
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Any namespaced object, as an owned resource's copy is. */
export interface AnyObject {
  apiVersion: string;
  kind: string;
  /** `uid`: only that very object, not one made anew under its name. */
  metadata: { name: string; namespace: string; uid?: string };
}

/** An object as a list returns it: whose it is, by its labels and owners. */
export interface ListedObject extends AnyObject {
  metadata: AnyObject['metadata'] & { labels?: Record<string, string>; ownerReferences?: OwnerReference[] };
}

export interface KeyRef {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  key: string;
}

/** What says whether a finalizer written meanwhile by another changes anything: its spec's generation, its deletion. */
export interface StoredFinalizable extends Finalizable {
  metadata: Finalizable['metadata'] & { generation?: number; deletionTimestamp?: unknown };
}

export interface ClusterClient {
  /** Writes the finalizers with the object's resourceVersion; resolves with the new resourceVersion. */
  setFinalizers(plural: string, object: Finalizable, finalizers: string[]): Promise<string | undefined>;
  /** The object of the kind as stored now, read past the cache; undefined when it is gone. */
  readStored(plural: string, object: Finalizable): Promise<StoredFinalizable | undefined>;
  /** Already there (an earlier create not yet in the cache) counts as done. */
  createDeployment(deployment: V1Deployment): Promise<void>;
  /** Carries the resourceVersion of the object it replaces: a stale one is refused with 409. */
  replaceDeployment(deployment: V1Deployment): Promise<void>;
  /** Already gone counts as done. */
  deleteDeployment(namespace: string, name: string): Promise<void>;
  scaleDeployment(namespace: string, name: string, replicas: number): Promise<void>;
  /** Replaces the status and resolves with the object as stored; 'conflict' when the object changed since the resourceVersion it carries. */
  replaceStatus(object: TemporalWorkerDeployment): Promise<TemporalWorkerDeployment | 'conflict'>;
  /** The same for a TemporalConnection, or a TemporalClusterConnection (no namespace). */
  replaceConnectionStatus(object: TemporalConnection): Promise<'written' | 'conflict'>;
  /** The same for a TemporalWorkerOwnedResource. */
  replaceOwnedResourceStatus(object: TemporalWorkerOwnedResource): Promise<'written' | 'conflict'>;
  /** Writes the owner references with the object's resourceVersion; resolves with the new resourceVersion. */
  setOwnerReferences(plural: string, object: Finalizable, owners: OwnerReference[]): Promise<string | undefined>;
  /**
   * Server-side apply, forcing only what `fieldManager` sets, so fields of other managers (the
   * HPA controller's) stay theirs. Rejects with KindNotServedError, or KindRefusedError for a
   * cluster-scoped kind. `as` (here and below): done as that ServiceAccount, by impersonation,
   * with its rights and not the controller's (an owned resource's copies).
   */
  apply(object: AnyObject, fieldManager: string, as?: ServiceAccountRef): Promise<void>;
  /** Already gone counts as done, as does, for an object given with its uid, one made anew under its name. */
  deleteObject(object: AnyObject, as?: ServiceAccountRef): Promise<void>;
  /** The objects of the kind in the namespace that the label selector selects. */
  listObjects(
    kind: Pick<AnyObject, 'apiVersion' | 'kind'>,
    namespace: string,
    labelSelector: string,
    as?: ServiceAccountRef,
  ): Promise<ListedObject[]>;
  /** The text under a key; `exists: false` when the object does not exist. */
  readKey(namespace: string, ref: KeyRef): Promise<{ exists: false } | { exists: true; text?: string }>;
  /**
   * A namespace's labels, for a cluster connection's allowedNamespaces; undefined when it does not
   * exist. Absent from models without namespaces: a cluster connection then serves only its own.
   */
  namespaceLabels?(namespace: string): Promise<Record<string, string> | undefined>;
}

export function clusterClient(api: KubernetesApi): ClusterClient {
  // '' for a cluster-scoped kind.
  const custom = (namespace: string, plural: string): string =>
    `/apis/${GROUP}/${VERSION}${namespace ? `/namespaces/${namespace}` : ''}/${plural}`;
  const deployments = (namespace: string): string => `/apis/apps/v1/namespaces/${namespace}/deployments`;
  const replaceStatusOf = async <T extends Finalizable>(plural: string, object: T): Promise<T | 'conflict'> => {
    const { namespace = '', name = '' } = object.metadata;
    try {
      return await api.replace<T>(`${custom(namespace, plural)}/${name}/status`, object);
    } catch (error) {
      if (httpStatus(error) === 409) return 'conflict';
      throw error;
    }
  };
  const written = async <T extends Finalizable>(plural: string, object: T): Promise<'written' | 'conflict'> =>
    (await replaceStatusOf(plural, object)) === 'conflict' ? 'conflict' : 'written';
  const resources = new ApiResources(api);
  const collectionOf = async (apiVersion: string, kind: string, namespace: string): Promise<string> => {
    const resource = await resources.resourceOf(apiVersion, kind);
    if (!resource.namespaced) throw new KindRefusedError(refusedKind(apiVersion, kind, false) ?? '');
    return resource.collection(namespace);
  };
  const pathOf = async ({ apiVersion, kind, metadata }: AnyObject): Promise<string> =>
    `${await collectionOf(apiVersion, kind, metadata.namespace)}/${metadata.name}`;
  return {
    async setFinalizers(plural, object, finalizers) {
      const { name = '', namespace = '', resourceVersion } = object.metadata;
      const body = { metadata: { finalizers, ...(resourceVersion ? { resourceVersion } : {}) } };
      const written = await api.mergePatch<Finalizable>(`${custom(namespace, plural)}/${name}`, body);
      return written.metadata.resourceVersion;
    },
    async createDeployment(deployment) {
      const namespace = deployment.metadata?.namespace ?? '';
      await api.create(deployments(namespace), deployment).catch(unless(409));
    },
    async replaceDeployment(deployment) {
      const { namespace = '', name = '' } = deployment.metadata ?? {};
      await api.replace(`${deployments(namespace)}/${name}`, deployment);
    },
    async deleteDeployment(namespace, name) {
      await api.delete(`${deployments(namespace)}/${name}`, { propagationPolicy: 'Background' }).catch(unless(404));
    },
    async scaleDeployment(namespace, name, replicas) {
      await api.mergePatch(`${deployments(namespace)}/${name}/scale`, { spec: { replicas } });
    },
    replaceStatus: (object) => replaceStatusOf(KINDS.TemporalWorkerDeployment.plural, object),
    replaceConnectionStatus: (object) => written(connectionPlural(object.metadata.namespace), object),
    replaceOwnedResourceStatus: (object) => written(KINDS.TemporalWorkerOwnedResource.plural, object),
    async setOwnerReferences(plural, object, ownerReferences) {
      const { name = '', namespace = '', resourceVersion } = object.metadata;
      const body = { metadata: { ownerReferences, ...(resourceVersion ? { resourceVersion } : {}) } };
      const written = await api.mergePatch<Finalizable>(`${custom(namespace, plural)}/${name}`, body);
      return written.metadata.resourceVersion;
    },
    async apply(object, fieldManager, as) {
      await api.request('PATCH', await pathOf(object), {
        body: object,
        contentType: 'application/apply-patch+yaml',
        query: { fieldManager, force: true },
        impersonate: as && serviceAccountUser(as),
      });
    },
    async deleteObject(object, as) {
      const uid = object.metadata.uid;
      const body = { propagationPolicy: 'Background', ...(uid ? { preconditions: { uid } } : {}) };
      const impersonate = as && serviceAccountUser(as);
      await api.request('DELETE', await pathOf(object), { body, impersonate }).catch((error: unknown) => {
        // Gone, or (409 on the uid's precondition) another object under its name now: not this one to delete.
        if (httpStatus(error) === 404 || (uid && httpStatus(error) === 409)) return;
        throw error;
      });
    },
    async listObjects({ apiVersion, kind }, namespace, labelSelector, as) {
      const collection = await collectionOf(apiVersion, kind, namespace);
      const list = await api.request<{ items?: { metadata: ListedObject['metadata'] }[] }>('GET', collection, {
        query: { labelSelector },
        impersonate: as && serviceAccountUser(as),
      });
      return (list.items ?? []).map((item) => ({ apiVersion, kind, metadata: item.metadata }));
    },
    async readStored(plural, object) {
      const { namespace = '', name = '' } = object.metadata;
      // A list of the one object: the chart grants list and watch on the kinds, not get.
      const listed = await api.get<{ items: StoredFinalizable[] }>(custom(namespace, plural), {
        fieldSelector: `metadata.name=${name}`,
      });
      return listed.items[0];
    },
    async readKey(namespace, { kind, name, key }) {
      let object: { data?: Record<string, string>; binaryData?: Record<string, string> };
      try {
        object = await api.get(
          `/api/v1/namespaces/${namespace}/${kind === 'Secret' ? 'secrets' : 'configmaps'}/${name}`,
        );
      } catch (error) {
        if (httpStatus(error) === 404) return { exists: false };
        throw error;
      }
      // A Secret's data and a ConfigMap's binaryData are base64; a ConfigMap's data is text.
      const text =
        kind === 'Secret' ? decode(object.data?.[key]) : (object.data?.[key] ?? decode(object.binaryData?.[key]));
      return { exists: true, ...(text === undefined ? {} : { text }) };
    },
    async namespaceLabels(namespace) {
      const found = await api
        .get<{ metadata?: { labels?: Record<string, string> } }>(`/api/v1/namespaces/${namespace}`)
        .catch(unless(404));
      return found ? (found.metadata?.labels ?? {}) : undefined;
    },
  };
}

/** The user name the API server gives a ServiceAccount's requests. */
export function serviceAccountUser({ namespace, name }: ServiceAccountRef): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

function decode(base64: string | undefined): string | undefined {
  return base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('utf8');
}

/** The plural of a connection's kind: a TemporalClusterConnection has no namespace. */
export function connectionPlural(namespace: string | undefined): string {
  return namespace ? KINDS.TemporalConnection.plural : KINDS.TemporalClusterConnection.plural;
}
