// What the controller's client needs from a TemporalConnection and its Secret: the address, the
// TLS settings, the API key, and a fingerprint of everything a live connection is built from.
// Pure: the Secret is passed in, already read from the cache.
import type { V1Secret } from '@kubernetes/client-node';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';
import type { TlsSettings } from './channel.ts';

export type CredentialsProblem = 'SecretNotFound' | 'InvalidSecret';

/** A referenced Secret is missing or unusable; the message names the Secret and key, never a value. */
export class CredentialsError extends Error {
  override name = 'CredentialsError';
  readonly reason: CredentialsProblem;

  constructor(reason: CredentialsProblem, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

export interface ResolvedConnection {
  address: string;
  /** Undefined for plaintext. */
  tls?: TlsSettings;
  apiKey?: string;
  /**
   * Changes whenever a live connection must be replaced: the address, the TLS settings or the
   * client certificate. Not the API key: it is sent per call, so a rotated key is swapped in place.
   */
  fingerprint: string;
}

/** The one Secret a connection reads, if any. */
export function referencedSecret(spec: TemporalConnection['spec']): string | undefined {
  return spec.mutualTLSSecretRef?.name ?? spec.apiKeySecretRef?.name;
}

/** `secret` is the Secret named by referencedSecret(spec) as cached, undefined when it does not exist. */
export function resolveConnection(
  namespace: string,
  spec: TemporalConnection['spec'],
  secret: V1Secret | undefined,
): ResolvedConnection {
  const secretName = referencedSecret(spec);
  if (secretName !== undefined && secret === undefined) {
    const field = spec.mutualTLSSecretRef ? 'mutualTLSSecretRef' : 'apiKeySecretRef';
    throw new CredentialsError(
      'SecretNotFound',
      `Secret ${namespace}/${secretName} does not exist: create it or fix the TemporalConnection's ${field}`,
    );
  }
  const data = new SecretData(`${namespace}/${secretName ?? ''}`, secret);
  const serverName = spec.tls?.serverName;
  let tls: TlsSettings | undefined = spec.mutualTLSSecretRef || spec.apiKeySecretRef || serverName ? {} : undefined;
  if (tls && serverName) tls.serverNameOverride = serverName;
  if (spec.mutualTLSSecretRef) {
    const ca = data.optional(MUTUAL_TLS_KEYS.ca);
    tls = {
      ...tls,
      clientCertPair: {
        crt: data.certificate(MUTUAL_TLS_KEYS.certificate),
        key: data.privateKey(MUTUAL_TLS_KEYS.privateKey),
      },
      ...(ca === undefined ? {} : { serverRootCACertificate: data.certificate(MUTUAL_TLS_KEYS.ca) }),
    };
  }
  const apiKey = spec.apiKeySecretRef ? data.text(spec.apiKeySecretRef.key) : undefined;
  return {
    address: spec.hostPort,
    ...(tls ? { tls } : {}),
    ...(apiKey === undefined ? {} : { apiKey }),
    fingerprint: fingerprint(spec.hostPort, tls),
  };
}

/** Reads keys of one Secret; every failure names the Secret and the key. */
class SecretData {
  private readonly label: string;
  private readonly secret: V1Secret | undefined;

  constructor(label: string, secret: V1Secret | undefined) {
    this.label = label;
    this.secret = secret;
  }

  optional(key: string): Buffer | undefined {
    const encoded = this.secret?.data?.[key];
    return encoded ? Buffer.from(encoded, 'base64') : undefined;
  }

  text(key: string): string {
    const value = this.optional(key)?.toString('utf8').trim();
    if (!value) throw this.invalid(key, 'is missing or empty');
    return value;
  }

  certificate(key: string): Buffer {
    return this.parsed(key, 'a PEM certificate', (bytes) => new X509Certificate(bytes));
  }

  privateKey(key: string): Buffer {
    return this.parsed(key, 'a PEM private key', (bytes) => createPrivateKey(bytes));
  }

  private parsed(key: string, what: string, parse: (bytes: Buffer) => unknown): Buffer {
    const bytes = this.optional(key);
    if (!bytes) throw this.invalid(key, 'is missing or empty');
    try {
      parse(bytes);
    } catch {
      // The parser's own error is left out: nothing derived from a secret's bytes is reported.
      throw this.invalid(key, `is not ${what}`);
    }
    return bytes;
  }

  private invalid(key: string, problem: string): CredentialsError {
    return new CredentialsError('InvalidSecret', `Secret ${this.label} key ${key} ${problem}`);
  }
}

function fingerprint(address: string, tls: TlsSettings | undefined): string {
  const hash = createHash('sha256').update(address);
  if (tls) {
    for (const part of [
      tls.serverNameOverride,
      tls.serverRootCACertificate,
      tls.clientCertPair?.crt,
      tls.clientCertPair?.key,
    ]) {
      hash.update('\0').update(part ?? '');
    }
  }
  return hash.digest('hex');
}
