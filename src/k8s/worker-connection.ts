// A TemporalConnection as its workers use it: the spec, plus a digest of the Secret keys they
// read (the API key, or the client certificate, its key and the CA). Workers read those at start
// (an environment variable from secretKeyRef, files of a Secret volume), so only a new Pod sees a
// rotated credential: the digest goes into the connection hash, and a changed hash rolls every
// build. The digest is of the values, never a value itself, and is hashed again into the
// annotation. Pure: the Secret is passed in, as cached.
import type { V1Secret } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';

export type WorkerConnection = TemporalConnection['spec'] & {
  /** Of the Secret keys the workers read; absent for a connection without a Secret. */
  secretDigest?: string;
};

/** `secret` is the one the connection references, undefined when there is none or it does not exist. */
export function workerConnection(spec: TemporalConnection['spec'], secret: V1Secret | undefined): WorkerConnection {
  const keys = spec.mutualTLSSecretRef
    ? Object.values(MUTUAL_TLS_KEYS)
    : spec.apiKeySecretRef
      ? [spec.apiKeySecretRef.key]
      : [];
  if (keys.length === 0) return spec;
  const hash = createHash('sha256');
  // Each key's name and presence are hashed too: a key that appears or goes is a change.
  for (const key of keys) {
    const value = secret?.data?.[key];
    hash
      .update(key)
      .update(value === undefined ? '\u0000absent' : `\u0000${value}`)
      .update('\u0000');
  }
  return { ...spec, secretDigest: hash.digest('hex') };
}
