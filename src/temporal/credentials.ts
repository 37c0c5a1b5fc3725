// What the controller's client needs from a TemporalConnection and its Secret: the address, the
// TLS settings, the API key, and a fingerprint of everything a live connection is built from.
// Pure: the Secret is passed in, already read from the cache.
import type { V1Secret } from '@kubernetes/client-node';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { DEFAULT_CA_KEY, DEFAULT_TOKEN_SECONDS, type TemporalConnection } from '../api/temporal-connection.ts';
import { type AnyConnection, connectionKindOf, type SecretLookup } from '../domain/connection-ref.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';
import type { TokenAsk } from '../domain/token-policy.ts';
import type { TlsSettings } from './channel.ts';

/**
 * InvalidSpec: a reference the connection may not make (a Secret of another namespace);
 * TokenUnavailable: the controller cannot get the service-account token the connection asks for;
 * TokenRefused: it will not issue or send it (token-policy.ts).
 */
export type CredentialsProblem =
  'SecretNotFound' | 'InvalidSecret' | 'InvalidSpec' | 'TokenUnavailable' | 'TokenRefused';

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
  /** A service-account token is the bearer token instead of an API key. */
  serviceAccountToken?: TokenAsk;
  /**
   * Changes whenever a live connection must be replaced: the address, the TLS settings or the
   * client certificate. Not the API key: it is sent per call, so a rotated key is swapped in place.
   */
  fingerprint: string;
}

/** A Secret a connection reads, and the field that names it: what an error about it names. */
export interface SecretUse {
  namespace: string;
  name: string;
  field: string;
}

/** The Secrets the controller reads to connect: its credentials and the CA. */
export function controllerSecrets(connection: AnyConnection): SecretUse[] {
  const { spec } = connection;
  return located(connection, [...credentialRefs(spec, ''), ...caRef(spec)]);
}

/** What the worker Pods read: their own credentials (else the controller's) and the CA. */
export function workerSecrets(connection: AnyConnection): SecretUse[] {
  const { spec } = connection;
  const credentials = spec.workerAuth ? credentialRefs(spec.workerAuth, 'workerAuth.') : credentialRefs(spec, '');
  return located(connection, [...credentials, ...caRef(spec)]);
}

/** Every Secret the connection names, once each: those whose changes matter. */
export function referencedSecrets(connection: AnyConnection): { namespace: string; name: string }[] {
  const all = [...controllerSecrets(connection), ...workerSecrets(connection)];
  const keys = new Set(all.map((use) => `${use.namespace}/${use.name}`));
  return [...keys].map((key) => {
    const [namespace = '', name = ''] = key.split('/');
    return { namespace, name };
  });
}

/** A reference to a Secret of another namespace, which a TemporalConnection may not make. */
export function foreignSecret(connection: AnyConnection): CredentialsError | undefined {
  const home = connection.metadata.namespace;
  if (!home) return undefined;
  const refs = [...credentialRefs(connection.spec, ''), ...caRef(connection.spec)];
  if (connection.spec.workerAuth) refs.push(...credentialRefs(connection.spec.workerAuth, 'workerAuth.'));
  const foreign = refs.find(({ ref }) => ref.namespace !== undefined && ref.namespace !== home);
  return foreign
    ? new CredentialsError(
        'InvalidSpec',
        `TemporalConnection ${home}/${connection.metadata.name ?? ''}: ${foreign.field}.namespace is ${foreign.ref.namespace ?? ''}, but a TemporalConnection reads the Secrets of its own namespace only; use a TemporalClusterConnection for Secrets elsewhere`,
      )
    : undefined;
}

interface Ref {
  ref: { name: string; namespace?: string };
  field: string;
}

function credentialRefs(
  credentials: Pick<TemporalConnection['spec'], 'mutualTLSSecretRef' | 'apiKeySecretRef'>,
  prefix: string,
): Ref[] {
  if (credentials.mutualTLSSecretRef)
    return [{ ref: credentials.mutualTLSSecretRef, field: `${prefix}mutualTLSSecretRef` }];
  if (credentials.apiKeySecretRef) return [{ ref: credentials.apiKeySecretRef, field: `${prefix}apiKeySecretRef` }];
  return [];
}

function caRef(spec: TemporalConnection['spec']): Ref[] {
  const ref = spec.tls?.caCertSecretRef;
  return ref ? [{ ref, field: 'tls.caCertSecretRef' }] : [];
}

function located(connection: AnyConnection, refs: Ref[]): SecretUse[] {
  return refs.map(({ ref, field }) => ({
    namespace: ref.namespace ?? connection.metadata.namespace ?? '',
    name: ref.name,
    field,
  }));
}

/** Reads each Secret once, for the pure functions that take a lookup. */
export async function lookupSecrets(
  uses: readonly SecretUse[],
  read: (namespace: string, name: string) => Promise<V1Secret | undefined>,
): Promise<SecretLookup> {
  const keys = [...new Set(uses.map((use) => `${use.namespace}/${use.name}`))];
  const found = new Map(
    await Promise.all(
      keys.map(async (key) => {
        const [namespace = '', name = ''] = key.split('/');
        return [key, await read(namespace, name)] as const;
      }),
    ),
  );
  return (namespace, name) => found.get(`${namespace}/${name}`);
}

/** The first Secret of `uses` that does not exist, as the error that names it and its field. */
export function missingSecret(
  connection: AnyConnection,
  uses: readonly SecretUse[],
  secrets: SecretLookup,
): CredentialsError | undefined {
  const missing = uses.find((use) => secrets(use.namespace, use.name) === undefined);
  return missing
    ? new CredentialsError(
        'SecretNotFound',
        `Secret ${missing.namespace}/${missing.name} does not exist: create it or fix the ${connectionKindOf(connection.metadata.namespace)}'s ${missing.field}`,
      )
    : undefined;
}

/** The Secrets named by controllerSecrets(connection), as cached. */
export function resolveConnection(connection: AnyConnection, secrets: SecretLookup): ResolvedConnection {
  const refused = foreignSecret(connection) ?? missingSecret(connection, controllerSecrets(connection), secrets);
  if (refused) throw refused;
  const { spec } = connection;
  const data = (ref: { name: string; namespace?: string }) => {
    const namespace = ref.namespace ?? connection.metadata.namespace ?? '';
    return new SecretData(`${namespace}/${ref.name}`, secrets(namespace, ref.name));
  };
  const serverName = spec.tls?.serverName;
  const caRef = spec.tls?.caCertSecretRef;
  let tls: TlsSettings | undefined =
    spec.mutualTLSSecretRef ||
    spec.apiKeySecretRef ||
    spec.serviceAccountToken ||
    spec.workerAuth ||
    serverName ||
    caRef
      ? {}
      : undefined;
  if (tls && serverName) tls.serverNameOverride = serverName;
  if (spec.mutualTLSSecretRef) {
    const mtls = data(spec.mutualTLSSecretRef);
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
  if (tls && caRef) tls.serverRootCACertificate = data(caRef).certificate(caRef.key ?? DEFAULT_CA_KEY);
  const apiKey = spec.apiKeySecretRef ? data(spec.apiKeySecretRef).text(spec.apiKeySecretRef.key) : undefined;
  return {
    address: spec.hostPort,
    ...(tls ? { tls } : {}),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(spec.serviceAccountToken ? { serviceAccountToken: tokenAsk(connection) } : {}),
    fingerprint: fingerprint(spec.hostPort, tls),
  };
}

/**
 * A namespaced connection's token is its namespace's ServiceAccount's, named in the spec; a cluster
 * connection's asks for the controller's own (no account).
 */
function tokenAsk(connection: AnyConnection): TokenAsk {
  const token = connection.spec.serviceAccountToken;
  const ask = { audience: token?.audience ?? '', expirationSeconds: token?.expirationSeconds ?? DEFAULT_TOKEN_SECONDS };
  const namespace = connection.metadata.namespace;
  if (!namespace) return ask;
  const name = token?.serviceAccountName;
  if (!name)
    throw new CredentialsError(
      'InvalidSpec',
      `TemporalConnection ${namespace}/${connection.metadata.name ?? ''}: serviceAccountToken.serviceAccountName is required: the token is that of a ServiceAccount of the connection's own namespace, never the controller's`,
    );
  return { ...ask, account: { namespace, name } };
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
