// The Kubernetes Deployment of one build (and pool) of a worker deployment: the user's pod
// template plus everything a worker needs to find its Temporal deployment and version. Pure.
import type { V1Container, V1Deployment, V1EnvVar, V1PodTemplateSpec, V1Toleration } from '@kubernetes/client-node';
import { API_VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { Pool, TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { templateHash } from './build-id.ts';
import { selectorLabels, temporalDeploymentName, versionedDeploymentName } from './names.ts';

export const ANNOTATIONS = {
  /** Hash of the user's template: under a custom build ID, a change rolls the Pods in place. */
  templateHash: 'temporal.io/pod-template-hash',
  /** Hash of the connection: a changed address or credentials rolls the Pods. */
  connectionHash: 'temporal.io/connection-hash',
} as const;

export const TLS_VOLUME = 'temporal-tls';
export const TLS_MOUNT_PATH = '/etc/temporal/tls';

export interface VersionedDeploymentInput {
  workerDeployment: Pick<TemporalWorkerDeployment, 'metadata' | 'spec'> & { metadata: { name?: string; namespace?: string; uid?: string } };
  connection: TemporalConnection['spec'];
  buildId: string;
  pool?: Pool;
}

export function versionedDeployment({ workerDeployment, connection, buildId, pool }: VersionedDeploymentInput): V1Deployment {
  const name = workerDeployment.metadata.name ?? '';
  const namespace = workerDeployment.metadata.namespace ?? '';
  const spec = workerDeployment.spec;
  const userTemplate = spec.template as V1PodTemplateSpec;
  const selector = selectorLabels(name, buildId, pool?.name);
  const env = injectedEnv({ namespace, name, spec, connection, buildId, pool });
  const replicas = pool?.replicas ?? spec.replicas;

  const podSpec = structuredClone(userTemplate.spec ?? { containers: [] });
  podSpec.containers = podSpec.containers.map((container) => withEnv(container, env, connection, pool));
  if (connection.mutualTLSSecretRef) {
    podSpec.volumes = [...(podSpec.volumes ?? []).filter((v) => v.name !== TLS_VOLUME), { name: TLS_VOLUME, secret: { secretName: connection.mutualTLSSecretRef.name } }];
  }
  if (pool?.nodeSelector) podSpec.nodeSelector = { ...podSpec.nodeSelector, ...pool.nodeSelector };
  if (pool?.affinity) podSpec.affinity = pool.affinity;
  if (pool?.tolerations) podSpec.tolerations = [...(podSpec.tolerations ?? []), ...(pool.tolerations as V1Toleration[])];

  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: versionedDeploymentName(name, buildId, pool?.name),
      namespace,
      labels: selector,
      ownerReferences: [{ apiVersion: API_VERSION, kind: 'TemporalWorkerDeployment', name, uid: workerDeployment.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      selector: { matchLabels: selector },
      minReadySeconds: spec.minReadySeconds ?? 0,
      progressDeadlineSeconds: spec.progressDeadlineSeconds ?? 600,
      template: {
        metadata: {
          labels: { ...userTemplate.metadata?.labels, ...selector },
          annotations: {
            ...userTemplate.metadata?.annotations,
            [ANNOTATIONS.templateHash]: templateHash(userTemplate),
            [ANNOTATIONS.connectionHash]: templateHash(connection),
          },
        },
        spec: podSpec,
      },
    },
  };
}

interface EnvInput {
  namespace: string;
  name: string;
  spec: TemporalWorkerDeployment['spec'];
  connection: TemporalConnection['spec'];
  buildId: string;
  pool?: Pool;
}

/** The environment of every worker container; the Temporal SDKs' environment configuration reads these names. */
export function injectedEnv({ namespace, name, spec, connection, buildId, pool }: EnvInput): V1EnvVar[] {
  const value = (n: string, v: string): V1EnvVar => ({ name: n, value: v });
  const tls = connection.mutualTLSSecretRef !== undefined || connection.apiKeySecretRef !== undefined || connection.tls?.serverName !== undefined;
  return [
    value('TEMPORAL_ADDRESS', connection.hostPort),
    value('TEMPORAL_HOST_PORT', connection.hostPort),
    value('TEMPORAL_NAMESPACE', spec.workerOptions.temporalNamespace),
    value('TEMPORAL_DEPLOYMENT_NAME', temporalDeploymentName(namespace, name)),
    value('TEMPORAL_WORKER_BUILD_ID', buildId),
    value('WORKER_BUILD_ID', buildId),
    ...(pool?.taskQueue ? [value('TEMPORAL_TASK_QUEUE', pool.taskQueue)] : []),
    ...(tls ? [value('TEMPORAL_TLS', 'true')] : []),
    ...(connection.tls?.serverName ? [value('TEMPORAL_TLS_SERVER_NAME', connection.tls.serverName)] : []),
    ...(connection.mutualTLSSecretRef
      ? [value('TEMPORAL_TLS_CLIENT_CERT_PATH', `${TLS_MOUNT_PATH}/tls.crt`), value('TEMPORAL_TLS_CLIENT_KEY_PATH', `${TLS_MOUNT_PATH}/tls.key`)]
      : []),
    ...(connection.apiKeySecretRef
      ? [{ name: 'TEMPORAL_API_KEY', valueFrom: { secretKeyRef: { name: connection.apiKeySecretRef.name, key: connection.apiKeySecretRef.key } } }]
      : []),
  ];
}

/** The container with our variables in place of any of the same name, the TLS mount and the pool's resources. */
function withEnv(container: V1Container, env: V1EnvVar[], connection: TemporalConnection['spec'], pool: Pool | undefined): V1Container {
  const ours = new Set(env.map((e) => e.name));
  return {
    ...container,
    env: [...(container.env ?? []).filter((e) => !ours.has(e.name)), ...env],
    ...(connection.mutualTLSSecretRef
      ? { volumeMounts: [...(container.volumeMounts ?? []).filter((m) => m.name !== TLS_VOLUME), { name: TLS_VOLUME, mountPath: TLS_MOUNT_PATH, readOnly: true }] }
      : {}),
    ...(pool?.resources ? { resources: pool.resources } : {}),
  };
}
