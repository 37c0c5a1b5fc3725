// The webhook's own CA and serving certificates: ECDSA P-256 keys from WebCrypto, X.509
// certificates built with pkijs, read back with node:crypto. What certificate-policy.ts decides
// to issue, this issues.
import * as asn1js from 'asn1js';
import { createPrivateKey, randomBytes, type webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import * as pkijs from 'pkijs';
import { AUTHORITY_LIFETIMES, BACKDATE_MS, type Validity } from './certificate-policy.ts';

export interface KeyPair {
  /** PEM. */
  cert: string;
  /** PEM, PKCS #8. */
  key: string;
}

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const OID = {
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extendedKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;
/** KeyUsage bits, first byte: digitalSignature is bit 0 (0x80), keyCertSign bit 5, cRLSign bit 6. */
const DIGITAL_SIGNATURE = { byte: 0x80, unusedBits: 7 };
const CERTIFICATE_SIGNING = { byte: 0x06, unusedBits: 1 };

/** A CA that lives AUTHORITY_LIFETIMES serving lifetimes, named after when it was made. */
export async function issueAuthority(now: number, servingLifetimeMs: number): Promise<KeyPair> {
  const keys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const name = `temporal-worker-controller-webhook-ca@${Math.floor(now / 1000)}`;
  const certificate = await frame(name, keys.publicKey, {
    notBefore: now - BACKDATE_MS,
    notAfter: now + servingLifetimeMs * AUTHORITY_LIFETIMES,
  });
  const keyId = await keyIdentifier(certificate);
  certificate.extensions = [
    extension(OID.basicConstraints, new pkijs.BasicConstraints({ cA: true }).toSchema(), true),
    extension(OID.keyUsage, usage(CERTIFICATE_SIGNING), true),
    extension(OID.subjectKeyIdentifier, new asn1js.OctetString({ valueHex: keyId })),
  ];
  certificate.issuer = certificate.subject;
  await certificate.sign(keys.privateKey, 'SHA-256');
  return { cert: pem('CERTIFICATE', certificate.toSchema().toBER()), key: await privateKeyPem(keys.privateKey) };
}

/** A serving certificate for `hosts` (DNS names or IP addresses), signed by `authority`, never outliving it. */
export function issueServing(
  authority: KeyPair,
  hosts: readonly string[],
  now: number,
  lifetimeMs: number,
): Promise<KeyPair> {
  return issueLeaf(authority, hosts[0] ?? 'webhook', { notBefore: now - BACKDATE_MS, notAfter: now + lifetimeMs }, [
    extension(OID.extendedKeyUsage, new pkijs.ExtKeyUsage({ keyPurposes: [OID.serverAuth] }).toSchema()),
    extension(OID.subjectAltName, new pkijs.GeneralNames({ names: hosts.map(generalName) }).toSchema()),
  ]);
}

/** A client certificate of `commonName`, signed by `authority` (the local API server's front proxy has one). */
export function issueClient(authority: KeyPair, commonName: string, now: number, lifetimeMs: number): Promise<KeyPair> {
  return issueLeaf(authority, commonName, { notBefore: now - BACKDATE_MS, notAfter: now + lifetimeMs }, [
    extension(OID.extendedKeyUsage, new pkijs.ExtKeyUsage({ keyPurposes: [OID.clientAuth] }).toSchema()),
  ]);
}

async function issueLeaf(
  authority: KeyPair,
  commonName: string,
  validity: Validity,
  purpose: pkijs.Extension[],
): Promise<KeyPair> {
  const issuer = pkijs.Certificate.fromBER(new X509Certificate(authority.cert).raw);
  const keys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const notAfter = Math.min(validity.notAfter, issuer.notAfter.value.getTime());
  const certificate = await frame(commonName, keys.publicKey, { notBefore: validity.notBefore, notAfter });
  certificate.issuer = issuer.subject;
  certificate.extensions = [
    extension(OID.basicConstraints, new pkijs.BasicConstraints({ cA: false }).toSchema(), true),
    extension(OID.keyUsage, usage(DIGITAL_SIGNATURE), true),
    ...purpose,
    extension(
      OID.authorityKeyIdentifier,
      new pkijs.AuthorityKeyIdentifier({
        keyIdentifier: new asn1js.OctetString({ valueHex: await keyIdentifier(issuer) }),
      }).toSchema(),
    ),
  ];
  const signingKey = await crypto.subtle.importKey(
    'pkcs8',
    createPrivateKey(authority.key).export({ type: 'pkcs8', format: 'der' }),
    KEY_ALGORITHM,
    false,
    ['sign'],
  );
  await certificate.sign(signingKey, 'SHA-256');
  return { cert: pem('CERTIFICATE', certificate.toSchema().toBER()), key: await privateKeyPem(keys.privateKey) };
}

/** What the policy needs of a certificate. */
export function validityOf(certificate: X509Certificate): Validity {
  return { notBefore: Date.parse(certificate.validFrom), notAfter: Date.parse(certificate.validTo) };
}

/** The DNS names and IP addresses a certificate is for. */
export function hostsOf(certificate: X509Certificate): string[] {
  return (certificate.subjectAltName ?? '')
    .split(', ')
    .filter(Boolean)
    .map((entry) => canonicalHost(entry.replace(/^(DNS|IP Address):/, '')));
}

/** IPv6 addresses in one spelling (::1, not 0:0:0:0:0:0:0:1), so that names compare. */
export function canonicalHost(host: string): string {
  return isIP(host) === 6 ? new URL(`https://[${host}]`).hostname.slice(1, -1) : host;
}

/** Each certificate of a PEM bundle, in order. */
export function certificatesOf(bundle: string): X509Certificate[] {
  return (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (block) => new X509Certificate(block),
  );
}

async function frame(
  commonName: string,
  publicKey: webcrypto.CryptoKey,
  validity: Validity,
): Promise<pkijs.Certificate> {
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ valueHex: serialNumber(randomBytes(16)) });
  certificate.subject.typesAndValues.push(
    new pkijs.AttributeTypeAndValue({ type: OID.commonName, value: new asn1js.Utf8String({ value: commonName }) }),
  );
  certificate.notBefore.value = new Date(validity.notBefore);
  certificate.notAfter.value = new Date(validity.notAfter);
  await certificate.subjectPublicKeyInfo.importKey(publicKey);
  return certificate;
}

/**
 * A positive serial whose DER is minimal: a first byte of 0 before one below 0x80 is padding that
 * X.509 parsers refuse ("illegal padding"), which random bytes gave one certificate in 256.
 */
export function serialNumber(random: Uint8Array): Uint8Array {
  const serial = Uint8Array.from(random);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  return serial;
}

function extension(extnID: string, value: asn1js.AsnType, critical = false): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER() });
}

function usage({ byte, unusedBits }: { byte: number; unusedBits: number }): asn1js.BitString {
  return new asn1js.BitString({ valueHex: new Uint8Array([byte]), unusedBits });
}

function generalName(host: string): pkijs.GeneralName {
  const version = isIP(host);
  if (version === 0) return new pkijs.GeneralName({ type: 2, value: host });
  const bytes = version === 4 ? host.split('.').map(Number) : ipv6Bytes(host);
  return new pkijs.GeneralName({ type: 7, value: new asn1js.OctetString({ valueHex: new Uint8Array(bytes) }) });
}

function ipv6Bytes(host: string): number[] {
  const [head = '', tail] = host.split('::');
  const before = head ? head.split(':') : [];
  const after = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** SHA-1 of the public key bits, as RFC 5280's first method says. */
async function keyIdentifier(certificate: pkijs.Certificate): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-1', certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return pem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', key));
}

function pem(label: string, der: ArrayBuffer): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
