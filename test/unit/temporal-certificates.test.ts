// Which certificates of a connection's Secrets the controller and the workers read, and what is
// read of each: every certificate of a bundle, by its public names and dates; a key that holds
// none is left to the connection's own check. Certificates from the product's own issuer (the
// webhook's), with the validity each test asks for.
import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import { certificateSources, parseCertificates, readCertificates } from '../../src/temporal/certificates.ts';
import { issueAuthority, issueClient } from '../../src/webhook/certificate-issuer.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T12:00:00.000Z');

const inNs = (spec: TemporalConnection['spec']) => ({ metadata: { namespace: 'orders', name: 'temporal' }, spec });
const base64 = (text: string) => Buffer.from(text).toString('base64');

test('the keys read: tls.crt and ca.crt of each mutual-TLS Secret, the CA Secret in place of ca.crt, each once', () => {
  assert.deepEqual(certificateSources(inNs({ hostPort: 't:7233', apiKeySecretRef: { name: 'api', key: 'k' } })), []);
  assert.deepEqual(certificateSources(inNs({ hostPort: 't:7233', mutualTLSSecretRef: { name: 'mtls' } })), [
    { namespace: 'orders', name: 'mtls', key: 'tls.crt', field: 'mutualTLSSecretRef' },
    { namespace: 'orders', name: 'mtls', key: 'ca.crt', field: 'mutualTLSSecretRef' },
  ]);
  assert.deepEqual(
    certificateSources(
      inNs({
        hostPort: 't:7233',
        tls: { caCertSecretRef: { name: 'ca', key: 'bundle.pem' } },
        mutualTLSSecretRef: { name: 'controller' },
        workerAuth: { mutualTLSSecretRef: { name: 'workers' } },
      }),
    ),
    [
      { namespace: 'orders', name: 'controller', key: 'tls.crt', field: 'mutualTLSSecretRef' },
      { namespace: 'orders', name: 'workers', key: 'tls.crt', field: 'workerAuth.mutualTLSSecretRef' },
      { namespace: 'orders', name: 'ca', key: 'bundle.pem', field: 'tls.caCertSecretRef' },
    ],
  );
  assert.deepEqual(
    certificateSources({
      metadata: { name: 'shared' },
      spec: {
        hostPort: 't:7233',
        apiKeySecretRef: { name: 'api', key: 'k', namespace: 'platform' },
        workerAuth: { mutualTLSSecretRef: { name: 'mtls', namespace: 'platform' } },
      },
    }),
    [
      { namespace: 'platform', name: 'mtls', key: 'tls.crt', field: 'workerAuth.mutualTLSSecretRef' },
      { namespace: 'platform', name: 'mtls', key: 'ca.crt', field: 'workerAuth.mutualTLSSecretRef' },
    ],
    "a cluster connection's Secrets where they name",
  );
  assert.deepEqual(
    certificateSources(
      inNs({
        hostPort: 't:7233',
        mutualTLSSecretRef: { name: 'mtls' },
        workerAuth: { mutualTLSSecretRef: { name: 'mtls' } },
      }),
    ).length,
    2,
    'one Secret named twice is read once',
  );
  assert.deepEqual(
    certificateSources(
      inNs({
        hostPort: 't:7233',
        tls: { caCertSecretRef: { name: 'ca', namespace: 'payments' } },
        mutualTLSSecretRef: { name: 'mtls', namespace: 'orders' },
      }),
    ),
    [{ namespace: 'orders', name: 'mtls', key: 'tls.crt', field: 'mutualTLSSecretRef' }],
    "nothing of another namespace's Secret, which a TemporalConnection may not name, is read",
  );
});

test('every certificate of a bundle, by subject, serial number and not-after time; what is no certificate is left out', async () => {
  const oldCa = await issueAuthority(NOW - 300 * DAY, 90 * DAY);
  const newCa = await issueAuthority(NOW, 90 * DAY);
  const parsed = parseCertificates(base64(`${oldCa.cert}\n${newCa.cert}`));
  assert.deepEqual(
    parsed.map((p) => [p.authority, p.subject.startsWith('CN=temporal-worker-controller-webhook-ca@'), p.notAfter]),
    [
      [true, true, new Date(NOW - 300 * DAY + 360 * DAY)],
      [true, true, new Date(NOW + 360 * DAY)],
    ],
  );
  assert.equal(parsed[1]?.serialNumber, new X509Certificate(newCa.cert).serialNumber);
  const leaf = await issueClient(newCa, 'twc-worker', NOW, 3 * DAY);
  assert.deepEqual(
    parseCertificates(new X509Certificate(leaf.cert).raw.toString('base64')).map((p) => [p.authority, p.subject]),
    [[false, 'CN=twc-worker']],
    'DER',
  );
  assert.deepEqual(parseCertificates(base64('-----BEGIN CERTIFICATE-----\nnot one\n-----END CERTIFICATE-----\n')), []);
  assert.deepEqual(parseCertificates(base64(leaf.key)), [], 'a private key is no certificate, and is not reported');
  assert.deepEqual(parseCertificates(undefined), []);
});

test('read from the Secrets as cached: a missing Secret or key has none', async () => {
  const ca = await issueAuthority(NOW, 30 * DAY);
  const leaf = await issueClient(ca, 'twc-controller', NOW, 3 * DAY);
  const secret: V1Secret = { data: { 'tls.crt': base64(leaf.cert), 'tls.key': base64(leaf.key) } };
  const sources = certificateSources(inNs({ hostPort: 't:7233', mutualTLSSecretRef: { name: 'mtls' } }));
  assert.deepEqual(
    readCertificates(sources, (namespace, name) => (namespace === 'orders' && name === 'mtls' ? secret : undefined)),
    [
      {
        secret: 'orders/mtls',
        key: 'tls.crt',
        field: 'mutualTLSSecretRef',
        authority: false,
        subject: 'CN=twc-controller',
        serialNumber: new X509Certificate(leaf.cert).serialNumber,
        notAfter: new Date(NOW + 3 * DAY),
      },
    ],
  );
  assert.deepEqual(
    readCertificates(sources, () => undefined),
    [],
  );
});
