// What the controller's client needs from a TemporalConnection and its Secret: the address, the
// TLS settings, the API key, and a fingerprint of everything a live connection is built from.
// Pure: the Secret is passed in, already read from the cache.
import type { V1Secret } from '@kubernetes/client-node';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { DEFAULT_CA_KEY, type TemporalConnection } from '../api/temporal-connection.ts';
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

/** A Secret a connection reads, and the field that names it: what an error about it names. */
export interface SecretUse {
  name: string;
  field: string;
}

/** The Secrets the controller reads to connect: its credentials and the CA. */
export function controllerSecrets(spec: TemporalConnection['spec']): SecretUse[] {
  return [...credentialSecrets(spec, ''), ...caSecret(spec)];
}

/** What the worker Pods read: their own credentials (else the controller's) and the CA. */
export function workerSecrets(spec: TemporalConnection['spec']): SecretUse[] {
  return [
    ...(spec.workerAuth ? credentialSecrets(spec.workerAuth, 'workerAuth.') : credentialSecrets(spec, '')),
    ...caSecret(spec),
  ];
}

/** Every Secret the connection names, once each: those whose changes matter. */
export function referencedSecrets(spec: TemporalConnection['spec']): string[] {
  return [...new Set([...controllerSecrets(spec), ...workerSecrets(spec)].map((use) => use.name))];
}

function credentialSecrets(
  credentials: Pick<TemporalConnection['spec'], 'mutualTLSSecretRef' | 'apiKeySecretRef'>,
  prefix: string,
): SecretUse[] {
  if (credentials.mutualTLSSecretRef)
    return [{ name: credentials.mutualTLSSecretRef.name, field: `${prefix}mutualTLSSecretRef` }];
  if (credentials.apiKeySecretRef)
    return [{ name: credentials.apiKeySecretRef.name, field: `${prefix}apiKeySecretRef` }];
  return [];
}

function caSecret(spec: TemporalConnection['spec']): SecretUse[] {
  const ref = spec.tls?.caCertSecretRef;
  return ref ? [{ name: ref.name, field: 'tls.caCertSecretRef' }] : [];
}

/** The Secrets named, as cached: undefined for one that does not exist. */
export type SecretLookup = (name: string) => V1Secret | undefined;

/** Reads each Secret once, for the pure functions that take a lookup. */
export async function lookupSecrets(
  uses: readonly SecretUse[],
  read: (name: string) => Promise<V1Secret | undefined>,
): Promise<SecretLookup> {
  const names = [...new Set(uses.map((use) => use.name))];
  const found = new Map(await Promise.all(names.map(async (name) => [name, await read(name)] as const)));
  return (name) => found.get(name);
}

/** The first Secret of `uses` that does not exist, as the error that names it and its field. */
export function missingSecret(
  namespace: string,
  uses: readonly SecretUse[],
  secrets: SecretLookup,
): CredentialsError | undefined {
  const missing = uses.find((use) => secrets(use.name) === undefined);
  return missing
    ? new CredentialsError(
        'SecretNotFound',
        `Secret ${namespace}/${missing.name} does not exist: create it or fix the TemporalConnection's ${missing.field}`,
      )
    : undefined;
}

/** The Secrets named by controllerSecrets(spec), as cached. */
export function resolveConnection(
  namespace: string,
  spec: TemporalConnection['spec'],
  secrets: SecretLookup,
): ResolvedConnection {
  const missing = missingSecret(namespace, controllerSecrets(spec), secrets);
  if (missing) throw missing;
  const data = (name: string) => new SecretData(`${namespace}/${name}`, secrets(name));
  const serverName = spec.tls?.serverName;
  const caRef = spec.tls?.caCertSecretRef;
  let tls: TlsSettings | undefined =
    spec.mutualTLSSecretRef || spec.apiKeySecretRef || spec.workerAuth || serverName || caRef ? {} : undefined;
  if (tls && serverName) tls.serverNameOverride = serverName;
  if (spec.mutualTLSSecretRef) {
    const mtls = data(spec.mutualTLSSecretRef.name);
    tls = {
      ...tls,
      clientCertPair: {
        crt: mtls.certificate(MUTUAL_TLS_KEYS.certificate),
        key: mtls.privateKey(MUTUAL_TLS_KEYS.privateKey),
      },
      ...(caRef || mtls.optional(MUTUAL_TLS_KEYS.ca) === undefined
        ? {}
        : { serverRootCACertificate: mtls.certificate(MUTUAL_TLS_KEYS.ca) }),
    };
  }
  if (tls && caRef) tls.serverRootCACertificate = data(caRef.name).certificate(caRef.key ?? DEFAULT_CA_KEY);
  const apiKey = spec.apiKeySecretRef ? data(spec.apiKeySecretRef.name).text(spec.apiKeySecretRef.key) : undefined;
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
