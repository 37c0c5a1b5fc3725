// Resolves a container's environment as a kubelet would, for the variables the worker reads.
import type { V1Container, V1EnvVar, V1Pod } from '@kubernetes/client-node';

const NODE_IP = '127.0.0.1';

export interface EnvSources {
  secretValue(namespace: string, name: string, key: string): Promise<string | undefined>;
  configMapValue(namespace: string, name: string, key: string): Promise<string | undefined>;
  /** Every key of a Secret or ConfigMap (envFrom), undefined when it does not exist. */
  secretData(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  configMapData(namespace: string, name: string): Promise<Record<string, string> | undefined>;
}

export class ContainerEnvError extends Error {
  override name = 'ContainerEnvError';
}

/** `podIP`: the Pod's own network's address, when it has one (else the node's). */
export async function resolveEnv(
  pod: V1Pod,
  container: V1Container,
  sources: EnvSources,
  podIP = NODE_IP,
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  // envFrom first, in order, then env over it, as the kubelet does.
  const namespace = pod.metadata?.namespace ?? 'default';
  for (const [i, source] of (container.envFrom ?? []).entries()) {
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref) continue;
    const kind = source.configMapRef ? 'ConfigMap' : 'Secret';
    const data = source.configMapRef
      ? await sources.configMapData(namespace, ref.name ?? '')
      : await sources.secretData(namespace, ref.name ?? '');
    if (data === undefined && !ref.optional)
      throw new ContainerEnvError(`envFrom[${i}]: ${kind} ${namespace}/${ref.name ?? ''} not found`);
    for (const [key, value] of Object.entries(data ?? {})) env[`${source.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const value = await resolveOne(pod, variable, sources, podIP);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

async function resolveOne(
  pod: V1Pod,
  variable: V1EnvVar,
  sources: EnvSources,
  podIP: string,
): Promise<string | undefined> {
  const from = variable.valueFrom;
  if (!from) return variable.value ?? '';
  const namespace = pod.metadata?.namespace ?? 'default';
  if (from.fieldRef) return fieldValue(pod, from.fieldRef.fieldPath, podIP);
  const ref = from.secretKeyRef ?? from.configMapKeyRef;
  if (!ref)
    throw new ContainerEnvError(
      `env ${variable.name}: only value, fieldRef, secretKeyRef and configMapKeyRef are supported`,
    );
  const kind = from.secretKeyRef ? 'Secret' : 'ConfigMap';
  const value = from.secretKeyRef
    ? await sources.secretValue(namespace, ref.name ?? '', ref.key)
    : await sources.configMapValue(namespace, ref.name ?? '', ref.key);
  if (value === undefined && !ref.optional) {
    throw new ContainerEnvError(
      `env ${variable.name}: key ${ref.key} of ${kind} ${namespace}/${ref.name ?? ''} not found`,
    );
  }
  return value;
}

function fieldValue(pod: V1Pod, fieldPath: string, podIP: string): string {
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata?.name ?? '';
    case 'metadata.namespace':
      return pod.metadata?.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata?.uid ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'status.podIP':
      return podIP;
    case 'status.hostIP':
      return NODE_IP;
    default: {
      const label = /^metadata\.labels\['(.+)'\]$/.exec(fieldPath)?.[1];
      if (label !== undefined) return pod.metadata?.labels?.[label] ?? '';
      throw new ContainerEnvError(`fieldRef ${fieldPath} is not supported by the local node agent`);
    }
  }
}
