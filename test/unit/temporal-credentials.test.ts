// What the controller's Temporal client is built from, read from a connection and its Secret:
// TLS settings, the API key, errors that name the Secret and key (never a value), and the
// fingerprint that decides when a live connection must be replaced.
import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import { CredentialsError, referencedSecret, resolveConnection } from '../../src/temporal/credentials.ts';
import { makeCertificates } from '../support/certificates.ts';

type Spec = TemporalConnection['spec'];

function secret(data: Record<string, string>): V1Secret {
  return {
    metadata: { name: 's' },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

const apiKeySpec: Spec = { hostPort: 'temporal:7233', apiKeySecretRef: { name: 'api', key: 'token' } };
const mtlsSpec: Spec = {
  hostPort: 'temporal:7233',
  tls: { serverName: 'temporal.example.com' },
  mutualTLSSecretRef: { name: 'cert' },
};

test('TLS is on with a server name, an API key or mutual TLS, and off otherwise', () => {
  assert.deepEqual(resolveConnection('ns', { hostPort: 'temporal:7233' }, undefined).tls, undefined);
  assert.deepEqual(
    resolveConnection('ns', { hostPort: 'temporal:7233', tls: { serverName: 'temporal.example.com' } }, undefined).tls,
    { serverNameOverride: 'temporal.example.com' },
  );
  const withKey = resolveConnection('ns', apiKeySpec, secret({ token: ' the-key\n' }));
  assert.deepEqual(withKey.tls, {});
  assert.equal(
    withKey.apiKey,
    'the-key',
    'a trailing newline from `kubectl create secret --from-file` is not part of the key',
  );
});

test('mutual TLS takes the certificate, the key and the optional CA from the Secret', async (t) => {
  const certs = await makeCertificates(t, 'temporal.example.com');
  const withCA = resolveConnection(
    'ns',
    mtlsSpec,
    secret({ 'tls.crt': certs.client.cert, 'tls.key': certs.client.key, 'ca.crt': certs.ca }),
  );
  assert.equal(withCA.tls?.serverNameOverride, 'temporal.example.com');
  assert.equal(Buffer.from(withCA.tls?.clientCertPair?.crt ?? '').toString(), certs.client.cert);
  assert.equal(Buffer.from(withCA.tls?.clientCertPair?.key ?? '').toString(), certs.client.key);
  assert.equal(Buffer.from(withCA.tls?.serverRootCACertificate ?? '').toString(), certs.ca);
  const withoutCA = resolveConnection(
    'ns',
    mtlsSpec,
    secret({ 'tls.crt': certs.client.cert, 'tls.key': certs.client.key }),
  );
  assert.equal(withoutCA.tls?.serverRootCACertificate, undefined);
});

test('the referenced Secret is the mutual TLS or the API key one', () => {
  assert.equal(referencedSecret({ hostPort: 'temporal:7233' }), undefined);
  assert.equal(referencedSecret(apiKeySpec), 'api');
  assert.equal(referencedSecret(mtlsSpec), 'cert');
});

test('a missing Secret or an unusable key is a CredentialsError naming both, and no value', async (t) => {
  const certs = await makeCertificates(t, 'temporal.example.com');
  const cases: { title: string; spec: Spec; secret: V1Secret | undefined; reason: string; message: RegExp }[] = [
    {
      title: 'no API key Secret',
      spec: apiKeySpec,
      secret: undefined,
      reason: 'SecretNotFound',
      message: /^Secret ns\/api does not exist: create it or fix the TemporalConnection's apiKeySecretRef$/,
    },
    {
      title: 'no certificate Secret',
      spec: mtlsSpec,
      secret: undefined,
      reason: 'SecretNotFound',
      message: /^Secret ns\/cert does not exist: create it or fix the TemporalConnection's mutualTLSSecretRef$/,
    },
    {
      title: 'no API key in the Secret',
      spec: apiKeySpec,
      secret: secret({ other: 'x' }),
      reason: 'InvalidSecret',
      message: /^Secret ns\/api key token is missing or empty$/,
    },
    {
      title: 'a blank API key',
      spec: apiKeySpec,
      secret: secret({ token: '  \n' }),
      reason: 'InvalidSecret',
      message: /^Secret ns\/api key token is missing or empty$/,
    },
    {
      title: 'no tls.key',
      spec: mtlsSpec,
      secret: secret({ 'tls.crt': certs.client.cert }),
      reason: 'InvalidSecret',
      message: /^Secret ns\/cert key tls\.key is missing or empty$/,
    },
    {
      title: 'no tls.crt',
      spec: mtlsSpec,
      secret: secret({ 'tls.key': certs.client.key }),
      reason: 'InvalidSecret',
      message: /^Secret ns\/cert key tls\.crt is missing or empty$/,
    },
    {
      title: 'a certificate that is not PEM',
      spec: mtlsSpec,
      secret: secret({ 'tls.crt': 'garbage-crt', 'tls.key': certs.client.key }),
      reason: 'InvalidSecret',
      message: /^Secret ns\/cert key tls\.crt is not a PEM certificate$/,
    },
    {
      title: 'a key that is not PEM',
      spec: mtlsSpec,
      secret: secret({ 'tls.crt': certs.client.cert, 'tls.key': 'garbage-key' }),
      reason: 'InvalidSecret',
      message: /^Secret ns\/cert key tls\.key is not a PEM private key$/,
    },
    {
      title: 'a CA that is not PEM',
      spec: mtlsSpec,
      secret: secret({ 'tls.crt': certs.client.cert, 'tls.key': certs.client.key, 'ca.crt': 'garbage-ca' }),
      reason: 'InvalidSecret',
      message: /^Secret ns\/cert key ca\.crt is not a PEM certificate$/,
    },
  ];
  for (const c of cases) {
    assert.throws(
      () => resolveConnection('ns', c.spec, c.secret),
      (error: unknown) => {
        assert.ok(error instanceof CredentialsError, c.title);
        assert.equal(error.reason, c.reason, c.title);
        assert.match(error.message, c.message, c.title);
        assert.equal(error.cause, undefined, `${c.title}: no parser error carrying secret bytes`);
        return true;
      },
    );
  }
});

test('the fingerprint changes with what a live connection is built from, and not with the API key', async (t) => {
  const certs = await makeCertificates(t, 'temporal.example.com');
  const fingerprint = (spec: Spec, data?: Record<string, string>) =>
    resolveConnection('ns', spec, data && secret(data)).fingerprint;
  const mtls = { 'tls.crt': certs.client.cert, 'tls.key': certs.client.key };
  const base = fingerprint(mtlsSpec, mtls);
  assert.equal(fingerprint(mtlsSpec, mtls), base, 'stable for the same input');
  const changed: [string, string][] = [
    [
      'another client certificate',
      fingerprint(mtlsSpec, { 'tls.crt': certs.strangerClient.cert, 'tls.key': certs.strangerClient.key }),
    ],
    ['a CA added', fingerprint(mtlsSpec, { ...mtls, 'ca.crt': certs.ca })],
    ['another address', fingerprint({ ...mtlsSpec, hostPort: 'elsewhere:7233' }, mtls)],
    ['another server name', fingerprint({ ...mtlsSpec, tls: { serverName: 'other.example.com' } }, mtls)],
  ];
  for (const [what, value] of changed) assert.notEqual(value, base, what);
  assert.notEqual(
    fingerprint({ hostPort: 'temporal:7233' }),
    fingerprint({ hostPort: 'temporal:7233', tls: { serverName: 'temporal' } }),
    'plaintext and TLS differ',
  );
  assert.equal(
    fingerprint(apiKeySpec, { token: 'one' }),
    fingerprint(apiKeySpec, { token: 'two' }),
    'a rotated API key keeps the connection',
  );
});
