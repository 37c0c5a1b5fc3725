// The certificates the controller and the workers read from a connection's Secrets, for when each
// expires: tls.crt of each mutual-TLS Secret (every certificate of it, a chain included), its
// ca.crt unless tls.caCertSecretRef takes its place, and the key of tls.caCertSecretRef (every CA
// of a bundle). Only public names and dates leave here; a key that holds no certificate is left to
// the connection's own check (InvalidSecret).
import type { V1Secret } from '@kubernetes/client-node';
import { X509Certificate } from 'node:crypto';
import { DEFAULT_CA_KEY } from '../api/temporal-connection.ts';
import type { ReadCertificate } from '../domain/certificates.ts';
import type { AnyConnection, SecretLookup } from '../domain/connection-ref.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';

/** A Secret's key, to read certificates from, and the field that names the Secret. */
export interface CertificateSource {
  namespace: string;
  name: string;
  key: string;
  field: string;
}

/**
 * Where the certificates the controller and the workers read are, each Secret's key once; of a
 * TemporalConnection, in its own namespace only.
 */
export function certificateSources(connection: AnyConnection): CertificateSource[] {
  const { spec } = connection;
  const home = connection.metadata.namespace ?? '';
  const caRef = spec.tls?.caCertSecretRef;
  const sources: CertificateSource[] = [];
  const add = (ref: { name: string; namespace?: string }, key: string, field: string) => {
    const namespace = ref.namespace ?? home;
    // A TemporalConnection may not read another namespace's Secrets (InvalidSpec): nothing of one is said.
    if (home && namespace !== home) return;
    if (!sources.some((s) => s.namespace === namespace && s.name === ref.name && s.key === key))
      sources.push({ namespace, name: ref.name, key, field });
  };
  for (const [ref, field] of [
    [spec.mutualTLSSecretRef, 'mutualTLSSecretRef'],
    [spec.workerAuth?.mutualTLSSecretRef, 'workerAuth.mutualTLSSecretRef'],
  ] as const) {
    if (!ref) continue;
    add(ref, MUTUAL_TLS_KEYS.certificate, field);
    if (!caRef) add(ref, MUTUAL_TLS_KEYS.ca, field);
  }
  if (caRef) add(caRef, caRef.key ?? DEFAULT_CA_KEY, 'tls.caCertSecretRef');
  return sources;
}

/** The certificates of `sources`, as the Secrets cached hold them; a Secret or key absent has none. */
export function readCertificates(sources: readonly CertificateSource[], secrets: SecretLookup): ReadCertificate[] {
  return sources.flatMap((source) => {
    const secret = secrets(source.namespace, source.name);
    if (!secret) return [];
    return parsedKey(secret, source.key).map((parsed) => ({
      secret: `${source.namespace}/${source.name}`,
      key: source.key,
      field: source.field,
      ...parsed,
    }));
  });
}

type Parsed = Pick<ReadCertificate, 'authority' | 'subject' | 'serialNumber' | 'notAfter'>;

/**
 * Per Secret object the cache holds (the informer puts a new one there for every change), what each
 * of its keys parsed to: a reconcile that polls parses nothing again.
 */
const parsedSecrets = new WeakMap<V1Secret, Map<string, Parsed[]>>();

function parsedKey(secret: V1Secret, key: string): Parsed[] {
  const byKey = parsedSecrets.get(secret) ?? new Map<string, Parsed[]>();
  parsedSecrets.set(secret, byKey);
  let parsed = byKey.get(key);
  if (!parsed) byKey.set(key, (parsed = parseCertificates(secret.data?.[key])));
  return parsed;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/** Each certificate of a base64 value: PEM blocks, or one DER certificate; what does not parse is left out. */
export function parseCertificates(encoded: string | undefined): Parsed[] {
  if (!encoded) return [];
  const bytes = Buffer.from(encoded, 'base64');
  const blocks = bytes.toString('latin1').match(PEM_CERTIFICATE);
  const candidates: (string | Buffer)[] = blocks ?? [bytes];
  return candidates.flatMap((candidate) => {
    try {
      const certificate = new X509Certificate(candidate);
      return [
        {
          authority: certificate.ca,
          subject: certificate.subject.split('\n').join(', '),
          serialNumber: certificate.serialNumber,
          notAfter: certificate.validToDate,
        },
      ];
    } catch {
      // The parser's own error is left out: nothing derived from a secret's bytes is reported.
      return [];
    }
  });
}
