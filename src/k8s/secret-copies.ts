// The copies of a TemporalClusterConnection's Secrets that worker Pods mount: a Pod mounts only
// Secrets of its own namespace, so each worker deployment on a cluster connection gets, in its
// namespace, a copy of each Secret its workers read, holding only the keys they read. The worker
// deployment owns its copies (garbage collection removes them with it), and labels say who made
// them, for which worker deployment, of which connection. A Secret is a copy only with our
// managed-by label and an owner reference to the worker deployment: a Secret of that name the
// user made, whatever its labels, is never written over or deleted. Pure: the sources are passed
// in, as cached.
import type { V1Secret } from '@kubernetes/client-node';
import { API_VERSION, KINDS } from '../api/kinds.ts';
import { DEFAULT_CA_KEY } from '../api/temporal-connection.ts';
import { LABELS, MANAGED_BY } from '../domain/labels.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';
import type { AnyConnection, SecretLookup } from '../domain/connection-ref.ts';
import { secretCopyName, workerView, type SecretPurpose } from './worker-connection.ts';

/** On each copy: the TemporalClusterConnection it copies a Secret of. */
export const COPIED_FROM_LABEL = 'temporal.io/cluster-connection';

export interface SecretCopy {
  /** The Secret to apply in the worker deployment's namespace. */
  copy: V1Secret;
  /** Where it is copied from, as messages name it. */
  source: string;
}

/**
 * The copies a worker deployment on a cluster connection needs (none on a namespaced one); a copy
 * of a Secret that does not exist yet is left out (the connection says it is missing).
 */
export function secretCopies(
  connection: AnyConnection,
  workerDeployment: Pick<TemporalWorkerDeployment, 'metadata'>,
  secrets: SecretLookup,
): SecretCopy[] {
  if (connection.metadata.namespace) return [];
  const sources = copiedSources(connection);
  const connectionName = connection.metadata.name ?? '';
  const { namespace = '', name = '', uid = '' } = workerDeployment.metadata;
  return sources.flatMap(({ purpose, ref, keys }) => {
    const sourceNamespace = ref.namespace ?? '';
    const source = secrets(sourceNamespace, ref.name);
    if (!source) return [];
    const data = Object.fromEntries(keys.flatMap((key) => (source.data?.[key] ? [[key, source.data[key]]] : [])));
    return [
      {
        source: `${sourceNamespace}/${ref.name}`,
        copy: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: secretCopyName(name, purpose),
            namespace,
            labels: {
              [MANAGED_BY.label]: MANAGED_BY.value,
              [LABELS.deploymentName]: name,
              [COPIED_FROM_LABEL]: connectionName,
            },
            ownerReferences: [{ apiVersion: API_VERSION, kind: KINDS.TemporalWorkerDeployment.kind, name, uid }],
          },
          type: source.type ?? 'Opaque',
          data,
        },
      },
    ];
  });
}

/** The names of the copies the worker deployment gets of the cluster connection's Secrets (none of a namespaced one). */
export function secretCopyNames(connection: AnyConnection, workerDeployment: string): string[] {
  if (connection.metadata.namespace) return [];
  return copiedSources(connection).map(({ purpose }) => secretCopyName(workerDeployment, purpose));
}

function copiedSources(
  connection: AnyConnection,
): { purpose: SecretPurpose; ref: { name: string; namespace?: string }; keys: string[] }[] {
  const view = workerView(connection.spec);
  const ca = view.tls?.caCertSecretRef;
  return [
    ...(view.mutualTLSSecretRef
      ? [{ purpose: 'tls' as const, ref: view.mutualTLSSecretRef, keys: Object.values(MUTUAL_TLS_KEYS) }]
      : []),
    ...(view.apiKeySecretRef
      ? [{ purpose: 'api-key' as const, ref: view.apiKeySecretRef, keys: [view.apiKeySecretRef.key] }]
      : []),
    ...(ca ? [{ purpose: 'ca' as const, ref: ca, keys: [ca.key ?? DEFAULT_CA_KEY] }] : []),
  ];
}

/**
 * Why a Secret at a copy's name is not the worker deployment's copy, undefined when it is: our
 * managed-by label and an owner reference to the worker deployment itself (its uid). Anyone may
 * copy a label; anything without both is someone's own, never overwritten nor deleted.
 */
export function notOurCopy(
  secret: { metadata?: { labels?: Record<string, string>; ownerReferences?: readonly { uid: string }[] } },
  workerDeployment: Pick<TemporalWorkerDeployment, 'metadata'>,
): string | undefined {
  const { name = '', uid } = workerDeployment.metadata;
  if (secret.metadata?.labels?.[MANAGED_BY.label] !== MANAGED_BY.value)
    return `it lacks the label ${MANAGED_BY.label}=${MANAGED_BY.value}`;
  if (!(secret.metadata.ownerReferences ?? []).some((owner) => owner.uid === uid))
    return `no owner reference of it names ${KINDS.TemporalWorkerDeployment.kind} ${name}`;
  return undefined;
}

/** Whether the worker deployment's copy in place (see notOurCopy) already holds what `copy` would write. */
export function copyInPlace(copy: SecretCopy, existing: V1Secret | undefined): boolean {
  return (
    existing !== undefined &&
    existing.type === copy.copy.type &&
    JSON.stringify(Object.entries(existing.data ?? {}).sort()) ===
      JSON.stringify(Object.entries(copy.copy.data ?? {}).sort())
  );
}
