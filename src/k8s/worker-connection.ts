// A TemporalConnection as its workers use it: the spec with the workers' own credentials
// (`workerAuth`) in place of the controller's, plus a digest of the Secret keys they read (the API
// key, or the client certificate, its key and the CA; the CA Secret's key). Workers read those at
// start (an environment variable from secretKeyRef, files of a Secret volume), so only a new Pod
// sees a rotated credential: the digest goes into the connection hash, and a changed hash rolls
// every build. A Secret only the controller reads changes nothing here. The digest is of the
// values, never a value itself, and is hashed again into the annotation. Of a
// TemporalClusterConnection the Pods see the copies in their own namespace (secret-copies.ts),
// while the digest is of the sources. Pure: the Secrets are passed in, as cached.
import { createHash } from 'node:crypto';
import { DEFAULT_CA_KEY, type TemporalConnection } from '../api/temporal-connection.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';
import type { AnyConnection, SecretLookup } from '../domain/connection-ref.ts';

type WorkerView = Omit<TemporalConnection['spec'], 'workerAuth'>;

export type WorkerConnection = WorkerView & {
  /** Of the Secret keys the workers read; absent for a connection without a Secret. */
  secretDigest?: string;
};

/** The connection as the workers see it: the workers' own credentials, if any, in place of the controller's. */
export function workerView(spec: TemporalConnection['spec']): WorkerView {
  if (!spec.workerAuth) return spec;
  const { workerAuth, ...view } = spec;
  delete view.mutualTLSSecretRef;
  delete view.apiKeySecretRef;
  delete view.serviceAccountToken;
  return { ...view, ...workerAuth };
}

/**
 * The Secret in a worker deployment's namespace that holds its Pods' copy of one Secret of a
 * TemporalClusterConnection: Pods mount only Secrets of their own namespace. One per worker
 * deployment, which alone owns it: adding an owner to an existing object would need the right to
 * delete Secrets.
 */
export function secretCopyName(workerDeployment: string, purpose: SecretPurpose): string {
  return `${workerDeployment}-temporal-${purpose}`;
}

export type SecretPurpose = 'tls' | 'api-key' | 'ca';

/**
 * `secrets` holds those of workerSecrets(connection), as cached; `workerDeployment` names the
 * copies the Pods mount of a cluster connection's Secrets.
 */
export function workerConnection(
  connection: AnyConnection,
  secrets: SecretLookup,
  workerDeployment = '',
): WorkerConnection {
  const view = workerView(connection.spec);
  const home = connection.metadata.namespace;
  const { mutualTLSSecretRef: mtls, apiKeySecretRef: apiKey } = view;
  const read = mtls
    ? Object.values(MUTUAL_TLS_KEYS).map((key) => ({ ref: mtls, key }))
    : apiKey
      ? [{ ref: apiKey, key: apiKey.key }]
      : [];
  const ca = view.tls?.caCertSecretRef;
  const local = home ? view : copiesFor(workerDeployment, view);
  if (read.length === 0 && !ca) return local;
  const hash = createHash('sha256');
  // Each key's name and presence are hashed too: a key that appears or goes is a change.
  const digest = (ref: { name: string; namespace?: string }, key: string, label = key) => {
    const value = secrets(ref.namespace ?? home ?? '', ref.name)?.data?.[key];
    hash
      .update(label)
      .update(value === undefined ? '\u0000absent' : `\u0000${value}`)
      .update('\u0000');
  };
  for (const { ref, key } of read) digest(ref, key);
  if (ca) digest(ca, ca.key ?? DEFAULT_CA_KEY, 'tls.caCertSecretRef');
  return { ...local, secretDigest: hash.digest('hex') };
}

/** A cluster connection's view with each Secret replaced by its copy in the Pods' namespace. */
function copiesFor(workerDeployment: string, view: WorkerView): WorkerView {
  const { mutualTLSSecretRef: mtls, apiKeySecretRef: apiKey, tls, serviceAccountToken } = view;
  const ca = tls?.caCertSecretRef;
  return {
    hostPort: view.hostPort,
    ...(serviceAccountToken ? { serviceAccountToken } : {}),
    ...(tls
      ? {
          tls: {
            ...(tls.serverName ? { serverName: tls.serverName } : {}),
            ...(ca
              ? {
                  caCertSecretRef: { name: secretCopyName(workerDeployment, 'ca'), ...(ca.key ? { key: ca.key } : {}) },
                }
              : {}),
          },
        }
      : {}),
    ...(mtls ? { mutualTLSSecretRef: { name: secretCopyName(workerDeployment, 'tls') } } : {}),
    ...(apiKey ? { apiKeySecretRef: { name: secretCopyName(workerDeployment, 'api-key'), key: apiKey.key } } : {}),
  };
}
