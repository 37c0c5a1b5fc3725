// A TemporalConnection as its workers use it: the spec with the workers' own credentials
// (`workerAuth`) in place of the controller's, plus a digest of the Secret keys they read (the API
// key, or the client certificate, its key and the CA; the CA Secret's key). Workers read those at
// start (an environment variable from secretKeyRef, files of a Secret volume), so only a new Pod
// sees a rotated credential: the digest goes into the connection hash, and a changed hash rolls
// every build. A Secret only the controller reads changes nothing here. The digest is of the
// values, never a value itself, and is hashed again into the annotation. Pure: the Secrets are
// passed in, as cached.
import { createHash } from 'node:crypto';
import { DEFAULT_CA_KEY, type TemporalConnection } from '../api/temporal-connection.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';
import type { SecretLookup } from '../temporal/credentials.ts';

export type WorkerConnection = Omit<TemporalConnection['spec'], 'workerAuth'> & {
  /** Of the Secret keys the workers read; absent for a connection without a Secret. */
  secretDigest?: string;
};

/** The connection as the workers see it: the workers' own credentials, if any, in place of the controller's. */
export function workerView(spec: TemporalConnection['spec']): Omit<TemporalConnection['spec'], 'workerAuth'> {
  if (!spec.workerAuth) return spec;
  const { workerAuth, ...view } = spec;
  delete view.mutualTLSSecretRef;
  delete view.apiKeySecretRef;
  return { ...view, ...workerAuth };
}

/** `secrets` holds those of workerSecrets(spec), as cached. */
export function workerConnection(spec: TemporalConnection['spec'], secrets: SecretLookup): WorkerConnection {
  const view = workerView(spec);
  const { mutualTLSSecretRef: mtls, apiKeySecretRef: apiKey } = view;
  const read = mtls
    ? Object.values(MUTUAL_TLS_KEYS).map((key) => ({ secret: mtls.name, key }))
    : apiKey
      ? [{ secret: apiKey.name, key: apiKey.key }]
      : [];
  const ca = view.tls?.caCertSecretRef;
  if (read.length === 0 && !ca) return view;
  const hash = createHash('sha256');
  // Each key's name and presence are hashed too: a key that appears or goes is a change.
  const digest = (secret: string, key: string, label = key) => {
    const value = secrets(secret)?.data?.[key];
    hash
      .update(label)
      .update(value === undefined ? '\u0000absent' : `\u0000${value}`)
      .update('\u0000');
  };
  for (const { secret, key } of read) digest(secret, key);
  if (ca) digest(ca.name, ca.key ?? DEFAULT_CA_KEY, 'tls.caCertSecretRef');
  return { ...view, secretDigest: hash.digest('hex') };
}
