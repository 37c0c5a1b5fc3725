// Every write the controller makes to Kubernetes, and the one read it makes outside the caches
// (a gate's input), behind one interface: the reconciler depends on this, not on client-node, so
// its orchestration can be driven and recorded in a test.
import {
  type AppsV1Api,
  type CoreV1Api,
  type CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
} from '@kubernetes/client-node';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
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

export function clusterClient(apis: {
  apps: AppsV1Api;
  core: CoreV1Api;
  customObjects: CustomObjectsApi;
}): ClusterClient {
  const { apps, core, customObjects } = apis;
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const replaceStatusOf = async (plural: string, object: Finalizable): Promise<'written' | 'conflict'> => {
    const { namespace = '', name = '' } = object.metadata;
    try {
      await customObjects.replaceNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        namespace,
        plural,
        name,
        body: object,
      });
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
      const written = (await customObjects.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural, name, body },
        mergePatch,
      )) as Finalizable;
      return written.metadata.resourceVersion;
    },
    async createDeployment(deployment) {
      const namespace = deployment.metadata?.namespace ?? '';
      await apps.createNamespacedDeployment({ namespace, body: deployment }).catch(unless(409));
    },
    async replaceDeployment(deployment) {
      const { namespace = '', name = '' } = deployment.metadata ?? {};
      await apps.replaceNamespacedDeployment({ namespace, name, body: deployment });
    },
    async deleteDeployment(namespace, name) {
      await apps
        .deleteNamespacedDeployment({ namespace, name, body: { propagationPolicy: 'Background' } })
        .catch(unless(404));
    },
    async scaleDeployment(namespace, name, replicas) {
      await apps.patchNamespacedDeploymentScale({ namespace, name, body: { spec: { replicas } } }, mergePatch);
    },
    replaceStatus: (object) => replaceStatusOf(KINDS.TemporalWorkerDeployment.plural, object),
    replaceConnectionStatus: (object) => replaceStatusOf(KINDS.TemporalConnection.plural, object),
    async readKey(namespace, { kind, name, key }) {
      try {
        if (kind === 'Secret') {
          const data = (await core.readNamespacedSecret({ namespace, name })).data?.[key];
          return {
            exists: true,
            ...(data === undefined ? {} : { text: Buffer.from(data, 'base64').toString('utf8') }),
          };
        }
        const configMap = await core.readNamespacedConfigMap({ namespace, name });
        const binary = configMap.binaryData?.[key];
        const text =
          configMap.data?.[key] ?? (binary === undefined ? undefined : Buffer.from(binary, 'base64').toString('utf8'));
        return { exists: true, ...(text === undefined ? {} : { text }) };
      } catch (error) {
        if (httpStatus(error) === 404) return { exists: false };
        throw error;
      }
    },
  };
}
