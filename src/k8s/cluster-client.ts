// Every write the controller makes to Kubernetes, and the one read it makes outside the caches
// (a gate's input), behind one interface: the reconciler depends on this, not on the HTTP client, so
// its orchestration can be driven and recorded in a test.
import type { V1Deployment } from '@kubernetes/client-node';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import { httpStatus, unless } from './api-errors.ts';

export interface Finalizable {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; finalizers?: string[] };
}

export interface KeyRef {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  key: string;
}

export interface ClusterClient {
  /** Writes the finalizers with the object's resourceVersion; resolves with the new resourceVersion. */
  setFinalizers(plural: string, object: Finalizable, finalizers: string[]): Promise<string | undefined>;
  /** Already there (an earlier create not yet in the cache) counts as done. */
  createDeployment(deployment: V1Deployment): Promise<void>;
  /** Carries the resourceVersion of the object it replaces: a stale one is refused with 409. */
  replaceDeployment(deployment: V1Deployment): Promise<void>;
  /** Already gone counts as done. */
  deleteDeployment(namespace: string, name: string): Promise<void>;
  scaleDeployment(namespace: string, name: string, replicas: number): Promise<void>;
  /** Replaces the status; 'conflict' when the object changed since the resourceVersion it carries. */
  replaceStatus(object: TemporalWorkerDeployment): Promise<'written' | 'conflict'>;
  /** The same for a TemporalConnection. */
  replaceConnectionStatus(object: TemporalConnection): Promise<'written' | 'conflict'>;
  /** The text under a key; `exists: false` when the object does not exist. */
  readKey(namespace: string, ref: KeyRef): Promise<{ exists: false } | { exists: true; text?: string }>;
}

export function clusterClient(api: KubernetesApi): ClusterClient {
  const custom = (namespace: string, plural: string): string =>
    `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}`;
  const deployments = (namespace: string): string => `/apis/apps/v1/namespaces/${namespace}/deployments`;
  const replaceStatusOf = async (plural: string, object: Finalizable): Promise<'written' | 'conflict'> => {
    const { namespace = '', name = '' } = object.metadata;
    try {
      await api.replace(`${custom(namespace, plural)}/${name}/status`, object);
      return 'written';
    } catch (error) {
      if (httpStatus(error) === 409) return 'conflict';
      throw error;
    }
  };
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
    replaceConnectionStatus: (object) => replaceStatusOf(KINDS.TemporalConnection.plural, object),
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
  };
}

function decode(base64: string | undefined): string | undefined {
  return base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('utf8');
}
