// A gate's first argument: inline, or JSON from a ConfigMap or Secret key, read when the gate
// starts. Errors name the object and the key, never the value.
import type { Rollout } from '../api/temporal-worker-deployment.ts';
import type { ClusterClient } from '../k8s/cluster-client.ts';

export class GateInputError extends Error {
  override name = 'GateInputError';
}

type Gate = NonNullable<Rollout['gate']>;

export async function gateInput(cluster: ClusterClient, namespace: string, gate: Gate): Promise<unknown> {
  if (gate.input !== undefined) return gate.input;
  const configMap = gate.inputFrom?.configMapKeyRef;
  const secret = gate.inputFrom?.secretKeyRef;
  const ref = configMap
    ? { kind: 'ConfigMap' as const, ...configMap }
    : secret
      ? { kind: 'Secret' as const, ...secret }
      : undefined;
  if (!ref) return undefined;
  const what = `${ref.kind} ${namespace}/${ref.name}`;
  const read = await cluster.readKey(namespace, ref);
  if (!read.exists) throw new GateInputError(`${what} does not exist`);
  if (read.text === undefined) throw new GateInputError(`${what} has no key ${ref.key}`);
  try {
    return JSON.parse(read.text);
  } catch {
    // No cause: JSON.parse quotes the text, which may be a Secret's value.
    throw new GateInputError(`key ${ref.key} of ${what} is not JSON`);
  }
}
