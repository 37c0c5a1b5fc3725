// The Kubernetes Deployment of one build (and pool) of a worker deployment: the user's pod
// template plus everything a worker needs to find its Temporal deployment and version. Pure.
import type { V1Container, V1Deployment, V1EnvVar, V1PodTemplateSpec, V1Toleration } from '@kubernetes/client-node';
import { DEPLOYMENT_DEFAULTS } from '../api/defaults.ts';
import { API_VERSION } from '../api/kinds.ts';
import { API_KEY_PATH_ENV, CONNECTION_ENV, TASK_QUEUE_ENV } from '../api/reserved-env.ts';
import { DEFAULT_CA_KEY, DEFAULT_TOKEN_SECONDS } from '../api/temporal-connection.ts';
import type { Pool, TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';
import { templateHash } from './build-id.ts';
import { withSettings } from './deployment-settings.ts';
import { poolPodTemplate } from './pool-template.ts';
import { selectorLabels, temporalDeploymentName, versionedDeploymentName } from './names.ts';
import type { WorkerConnection } from './worker-connection.ts';

export const ANNOTATIONS = {
  /** Hash of the user's template: under a custom build ID, a change rolls the Pods in place. */
  templateHash: 'temporal.io/pod-template-hash',
  /** Hash of the connection and of the Secret keys its workers read: a changed address or credential rolls the Pods. */
  connectionHash: 'temporal.io/connection-hash',
  /** Per ConfigMap and Secret the Pod template reads, a digest of what it reads (k8s/configuration-digests.ts): a change rolls the Pods. */
  configurationHashes: 'temporal.io/configuration-hashes',
  /** Hash of the whole Deployment spec but replicas, as built: any difference from the spec rolls the target in place. */
  specHash: 'temporal.io/spec-hash',
} as const;

export const TLS_VOLUME = 'temporal-tls';
export const TLS_MOUNT_PATH = '/etc/temporal/tls';
/** The CA of tls.caCertSecretRef, whatever its key, as one file. */
export const CA_VOLUME = 'temporal-tls-ca';
export const CA_MOUNT_PATH = '/etc/temporal/tls-ca';
const CA_FILE = 'ca.crt';
/** The projected service-account token of serviceAccountToken, renewed by the kubelet. */
export const TOKEN_VOLUME = 'temporal-token';
export const TOKEN_MOUNT_PATH = '/etc/temporal/token';
const TOKEN_FILE = 'token';

export interface VersionedDeploymentInput {
  workerDeployment: Pick<TemporalWorkerDeployment, 'metadata' | 'spec'> & {
    metadata: { name?: string; namespace?: string; uid?: string };
  };
  connection: WorkerConnection;
  buildId: string;
  pool?: Pool;
}

export function versionedDeployment({
  workerDeployment,
  connection,
  buildId,
  pool,
}: VersionedDeploymentInput): V1Deployment {
  const name = workerDeployment.metadata.name ?? '';
  const namespace = workerDeployment.metadata.namespace ?? '';
  const spec = workerDeployment.spec;
  const userTemplate = poolPodTemplate(spec.template, pool);
  const ownResources = new Set(pool?.template?.spec?.containers?.flatMap((c) => (c.resources ? [c.name] : [])));
  const selector = selectorLabels(name, buildId, pool?.name);
  const env = workerEnv({ namespace, name, spec, buildId, pool });
  const replicas = pool?.replicas ?? spec.replicas;

  const podSpec = structuredClone(userTemplate.spec ?? { containers: [] });
  podSpec.containers = podSpec.containers.map((container) => ({
    ...replaceEnv(container, env),
    // The pool's resources for every container, but one its template gives its own.
    ...(pool?.resources && !ownResources.has(container.name) ? { resources: pool.resources } : {}),
  }));
  if (pool?.nodeSelector) podSpec.nodeSelector = { ...podSpec.nodeSelector, ...pool.nodeSelector };
  if (pool?.affinity) podSpec.affinity = pool.affinity;
  if (pool?.tolerations)
    podSpec.tolerations = [...(podSpec.tolerations ?? []), ...(pool.tolerations as V1Toleration[])];
  const template = withConnection(
    {
      metadata: {
        labels: { ...userTemplate.metadata?.labels, ...selector },
        annotations: { ...userTemplate.metadata?.annotations, [ANNOTATIONS.templateHash]: templateHash(userTemplate) },
      },
      spec: podSpec,
    },
    connection,
  );
  const deploymentSpec = {
    selector: { matchLabels: selector },
    minReadySeconds: spec.minReadySeconds ?? DEPLOYMENT_DEFAULTS.minReadySeconds,
    progressDeadlineSeconds: spec.progressDeadlineSeconds ?? DEPLOYMENT_DEFAULTS.progressDeadlineSeconds,
    template,
  };

  return withSettings(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: versionedDeploymentName(name, buildId, pool?.name),
        namespace,
        labels: selector,
        annotations: { [ANNOTATIONS.specHash]: templateHash(deploymentSpec) },
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: 'TemporalWorkerDeployment',
            name,
            uid: workerDeployment.metadata.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { ...(replicas === undefined ? {} : { replicas }), ...deploymentSpec },
    },
    spec.deployment,
  );
}

/**
 * The pod template with the connection's address and credentials in place of any earlier
 * connection's: how a changed connection reaches every running build, old ones included.
 */
export function withConnection(template: V1PodTemplateSpec, connection: WorkerConnection): V1PodTemplateSpec {
  const podSpec = structuredClone(template.spec ?? { containers: [] });
  const mtls = connection.mutualTLSSecretRef;
  const ca = connection.tls?.caCertSecretRef;
  const token = connection.serviceAccountToken;
  const ours = new Set([TLS_VOLUME, CA_VOLUME, TOKEN_VOLUME]);
  const mounts = [
    ...(mtls ? [{ name: TLS_VOLUME, mountPath: TLS_MOUNT_PATH, readOnly: true }] : []),
    ...(ca ? [{ name: CA_VOLUME, mountPath: CA_MOUNT_PATH, readOnly: true }] : []),
    ...(token ? [{ name: TOKEN_VOLUME, mountPath: TOKEN_MOUNT_PATH, readOnly: true }] : []),
  ];
  podSpec.containers = podSpec.containers.map((container) => {
    const all = [...(container.volumeMounts ?? []).filter((m) => !ours.has(m.name)), ...mounts];
    const replaced = replaceEnv(container, connectionEnv(connection), CONNECTION_ENV);
    if (all.length > 0) replaced.volumeMounts = all;
    else delete replaced.volumeMounts;
    return replaced;
  });
  const volumes = [
    ...(podSpec.volumes ?? []).filter((v) => !ours.has(v.name)),
    ...(mtls ? [{ name: TLS_VOLUME, secret: { secretName: mtls.name } }] : []),
    ...(ca
      ? [
          {
            name: CA_VOLUME,
            secret: { secretName: ca.name, items: [{ key: ca.key ?? DEFAULT_CA_KEY, path: CA_FILE }] },
          },
        ]
      : []),
    ...(token
      ? [
          {
            name: TOKEN_VOLUME,
            projected: {
              sources: [
                {
                  serviceAccountToken: {
                    audience: token.audience,
                    expirationSeconds: token.expirationSeconds ?? DEFAULT_TOKEN_SECONDS,
                    path: TOKEN_FILE,
                  },
                },
              ],
            },
          },
        ]
      : []),
  ];
  if (volumes.length > 0) podSpec.volumes = volumes;
  else delete podSpec.volumes;
  return {
    ...template,
    metadata: {
      ...template.metadata,
      annotations: { ...template.metadata?.annotations, [ANNOTATIONS.connectionHash]: templateHash(connection) },
    },
    spec: podSpec,
  };
}

interface EnvInput {
  namespace: string;
  name: string;
  spec: TemporalWorkerDeployment['spec'];
  buildId: string;
  pool?: Pool;
}

/** Where a worker belongs in Temporal; the Temporal SDKs' environment configuration reads these names. */
function workerEnv({ namespace, name, spec, buildId, pool }: EnvInput): V1EnvVar[] {
  return [
    value('TEMPORAL_NAMESPACE', spec.workerOptions.temporalNamespace),
    value('TEMPORAL_DEPLOYMENT_NAME', temporalDeploymentName(namespace, name)),
    value('TEMPORAL_WORKER_BUILD_ID', buildId),
    value('WORKER_BUILD_ID', buildId),
    ...(pool?.taskQueue ? [value(TASK_QUEUE_ENV, pool.taskQueue)] : []),
  ];
}

/** How a worker reaches Temporal. */
function connectionEnv(connection: WorkerConnection): V1EnvVar[] {
  const ca = connection.tls?.caCertSecretRef;
  const tls =
    connection.mutualTLSSecretRef !== undefined ||
    connection.apiKeySecretRef !== undefined ||
    connection.serviceAccountToken !== undefined ||
    connection.tls?.serverName !== undefined ||
    ca !== undefined;
  return [
    value('TEMPORAL_ADDRESS', connection.hostPort),
    value('TEMPORAL_HOST_PORT', connection.hostPort),
    ...(tls ? [value('TEMPORAL_TLS', 'true')] : []),
    ...(connection.tls?.serverName ? [value('TEMPORAL_TLS_SERVER_NAME', connection.tls.serverName)] : []),
    ...(connection.mutualTLSSecretRef
      ? [
          value('TEMPORAL_TLS_CLIENT_CERT_PATH', `${TLS_MOUNT_PATH}/${MUTUAL_TLS_KEYS.certificate}`),
          value('TEMPORAL_TLS_CLIENT_KEY_PATH', `${TLS_MOUNT_PATH}/${MUTUAL_TLS_KEYS.privateKey}`),
          // Absent when the Secret has no ca.crt: the worker then verifies the server against its default roots.
          ...(ca ? [] : [value('TEMPORAL_TLS_SERVER_CA_CERT_PATH', `${TLS_MOUNT_PATH}/${MUTUAL_TLS_KEYS.ca}`)]),
        ]
      : []),
    ...(ca ? [value('TEMPORAL_TLS_SERVER_CA_CERT_PATH', `${CA_MOUNT_PATH}/${CA_FILE}`)] : []),
    ...(connection.apiKeySecretRef
      ? [
          {
            name: 'TEMPORAL_API_KEY',
            valueFrom: { secretKeyRef: { name: connection.apiKeySecretRef.name, key: connection.apiKeySecretRef.key } },
          },
        ]
      : []),
    // A file, not a value: the kubelet writes a renewed token into it, and the worker reads it again.
    ...(connection.serviceAccountToken ? [value(API_KEY_PATH_ENV, `${TOKEN_MOUNT_PATH}/${TOKEN_FILE}`)] : []),
  ];
}

function value(name: string, text: string): V1EnvVar {
  return { name, value: text };
}

/** The container with `env` in place of any variable of the same name, or of the `owned` names. */
function replaceEnv(container: V1Container, env: V1EnvVar[], owned: readonly string[] = []): V1Container {
  const ours = new Set([...owned, ...env.map((e) => e.name)]);
  return { ...container, env: [...(container.env ?? []).filter((e) => !ours.has(e.name)), ...env] };
}
