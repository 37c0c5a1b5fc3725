// What the controller's Temporal client is built from, read from a connection and its Secret:
// TLS settings, the API key, errors that name the Secret and key (never a value), and the
// fingerprint that decides when a live connection must be replaced.
import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import type { SecretLookup } from '../../src/domain/connection-ref.ts';
import {
  controllerSecrets,
  CredentialsError,
  referencedSecrets,
  resolveConnection,
  workerSecrets,
} from '../../src/temporal/credentials.ts';
import { makeCertificates } from '../support/certificates.ts';

type Spec = TemporalConnection['spec'];

/** Secrets of namespace `ns` by name, as the cache would give them. */
function secrets(byName: Record<string, V1Secret | undefined>): SecretLookup {
  return (namespace, name) => (namespace === 'ns' ? byName[name] : undefined);
}

/** A TemporalConnection in namespace `ns`. */
const inNs = (spec: Spec) => ({ metadata: { namespace: 'ns', name: 'temporal' }, spec });
const none = secrets({});

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
  assert.deepEqual(resolveConnection(inNs({ hostPort: 'temporal:7233' }), none).tls, undefined);
  assert.deepEqual(
    resolveConnection(inNs({ hostPort: 'temporal:7233', tls: { serverName: 'temporal.example.com' } }), none).tls,
    { serverNameOverride: 'temporal.example.com' },
  );
  const withKey = resolveConnection(inNs(apiKeySpec), secrets({ api: secret({ token: ' the-key\n' }) }));
  assert.deepEqual(withKey.tls, {});
  assert.equal(
    withKey.apiKey,
    'the-key',
    'a trailing newline from `kubectl create secret --from-file` is not part of the key',
  );
});

test("a service-account token: no Secret read, TLS on, the audience, a lifetime (default an hour) and the namespace's account asked for; the fingerprint as without it", () => {
  const spec: Spec = {
    hostPort: 'temporal:7233',
    serviceAccountToken: { audience: 'temporal.example.com', serviceAccountName: 'temporal' },
  };
  const resolved = resolveConnection(inNs(spec), none);
  assert.deepEqual(
    [resolved.tls, resolved.apiKey, resolved.serviceAccountToken],
    [
      {},
      undefined,
      { audience: 'temporal.example.com', expirationSeconds: 3600, account: { namespace: 'ns', name: 'temporal' } },
    ],
  );
  assert.deepEqual(
    resolveConnection({ metadata: { name: 'shared' }, spec }, none).serviceAccountToken,
    { audience: 'temporal.example.com', expirationSeconds: 3600 },
    "a cluster connection's asks for no account: the controller's own, if the operator allows the audience",
  );
  assert.throws(
    () =>
      resolveConnection(
        inNs({ hostPort: 'temporal:7233', serviceAccountToken: { audience: 'temporal.example.com' } }),
        none,
      ),
    {
      name: 'CredentialsError',
      reason: 'InvalidSpec',
      message:
        "TemporalConnection ns/temporal: serviceAccountToken.serviceAccountName is required: the token is that of a ServiceAccount of the connection's own namespace, never the controller's",
    },
    'admission may not have run: the controller refuses too',
  );
  assert.deepEqual(controllerSecrets(inNs(spec)), []);
  assert.equal(
    resolved.fingerprint,
    resolveConnection(inNs(apiKeySpec), secrets({ api: secret({ token: 'k' }) })).fingerprint,
    'a token is sent per call, as an API key is: the connection stays when it is renewed',
  );
});

test('mutual TLS takes the certificate, the key and the optional CA from the Secret', async (t) => {
  const certs = await makeCertificates(t, 'temporal.example.com');
  const withCA = resolveConnection(
    inNs(mtlsSpec),
    secrets({ cert: secret({ 'tls.crt': certs.client.cert, 'tls.key': certs.client.key, 'ca.crt': certs.ca }) }),
  );
  assert.equal(withCA.tls?.serverNameOverride, 'temporal.example.com');
  assert.equal(Buffer.from(withCA.tls?.clientCertPair?.crt ?? '').toString(), certs.client.cert);
  assert.equal(Buffer.from(withCA.tls?.clientCertPair?.key ?? '').toString(), certs.client.key);
  assert.equal(Buffer.from(withCA.tls?.serverRootCACertificate ?? '').toString(), certs.ca);
  const withoutCA = resolveConnection(
    inNs(mtlsSpec),
    secrets({ cert: secret({ 'tls.crt': certs.client.cert, 'tls.key': certs.client.key }) }),
  );
  assert.equal(withoutCA.tls?.serverRootCACertificate, undefined);
});

test("the Secrets read: the controller's credentials and the CA by the controller, the workers' own (else the controller's) and the CA by the Pods", () => {
  const names = (uses: { namespace: string; name: string; field?: string }[]) =>
    uses.map((u) => `${u.field ?? ''}=${u.namespace}/${u.name}`);
  assert.deepEqual(referencedSecrets(inNs({ hostPort: 'temporal:7233' })), []);
  assert.deepEqual(names(controllerSecrets(inNs(apiKeySpec))), ['apiKeySecretRef=ns/api']);
  assert.deepEqual(names(workerSecrets(inNs(mtlsSpec))), ['mutualTLSSecretRef=ns/cert']);
  const apart: Spec = {
    ...mtlsSpec,
    tls: { caCertSecretRef: { name: 'ca' } },
    workerAuth: { apiKeySecretRef: { name: 'worker-key', key: 'k' } },
  };
  assert.deepEqual(names(controllerSecrets(inNs(apart))), ['mutualTLSSecretRef=ns/cert', 'tls.caCertSecretRef=ns/ca']);
  assert.deepEqual(names(workerSecrets(inNs(apart))), [
    'workerAuth.apiKeySecretRef=ns/worker-key',
    'tls.caCertSecretRef=ns/ca',
  ]);
  assert.deepEqual(names(referencedSecrets(inNs(apart))), ['=ns/cert', '=ns/ca', '=ns/worker-key']);
  assert.deepEqual(
    names(referencedSecrets(inNs({ ...apiKeySpec, tls: { caCertSecretRef: { name: 'api' } } }))),
    ['=ns/api'],
    'once each',
  );
  // A cluster connection names the namespace of each Secret.
  const cluster = {
    metadata: { name: 'shared' },
    spec: {
      hostPort: 'temporal:7233',
      mutualTLSSecretRef: { name: 'cert', namespace: 'platform' },
      tls: { caCertSecretRef: { name: 'ca', namespace: 'trust' } },
    },
  };
  assert.deepEqual(names(controllerSecrets(cluster)), [
    'mutualTLSSecretRef=platform/cert',
    'tls.caCertSecretRef=trust/ca',
  ]);
});

test('a CA Secret is used in every mode, turns TLS on, and takes the place of ca.crt in the mutual-TLS Secret', async (t) => {
  const certs = await makeCertificates(t, 'temporal.example.com');
  const caSecret = secret({ 'ca.crt': certs.ca, bundle: certs.ca });
  const client = secret({
    'tls.crt': certs.client.cert,
    'tls.key': certs.client.key,
    'ca.crt': certs.strangerClient.cert,
  });
  const all = secrets({ ca: caSecret, api: secret({ token: 'k' }), cert: client });
  const ca = (spec: Spec, key?: string) =>
    resolveConnection(
      inNs({ ...spec, tls: { ...spec.tls, caCertSecretRef: { name: 'ca', ...(key ? { key } : {}) } } }),
      all,
    ).tls?.serverRootCACertificate?.toString();
  assert.equal(ca({ hostPort: 'temporal:7233' }), certs.ca, 'plaintext over TLS');
  assert.equal(ca(apiKeySpec), certs.ca, 'API key');
  assert.equal(ca(mtlsSpec), certs.ca, "mutual TLS: the CA Secret's, not the client Secret's ca.crt");
  assert.equal(ca({ hostPort: 'temporal:7233' }, 'bundle'), certs.ca, 'a key of its own');
});

test('a TemporalConnection naming a Secret of another namespace is refused, naming the field; its own namespace is allowed', () => {
  const elsewhere: Spec = { ...apiKeySpec, workerAuth: { mutualTLSSecretRef: { name: 'w', namespace: 'platform' } } };
  assert.throws(
    () => resolveConnection(inNs(elsewhere), secrets({ api: secret({ token: 'k' }), w: secret({}) })),
    (error: unknown) =>
      error instanceof CredentialsError &&
      error.reason === 'InvalidSpec' &&
      /^TemporalConnection ns\/temporal: workerAuth\.mutualTLSSecretRef\.namespace is platform, but a TemporalConnection reads the Secrets of its own namespace only; use a TemporalClusterConnection/.test(
        error.message,
      ),
  );
  const own: Spec = { ...apiKeySpec, apiKeySecretRef: { name: 'api', key: 'token', namespace: 'ns' } };
  assert.equal(resolveConnection(inNs(own), secrets({ api: secret({ token: 'k' }) })).apiKey, 'k');
});

test('a missing Secret or an unusable key is a CredentialsError naming both, and no value', async (t) => {
  const certs = await makeCertificates(t, 'temporal.example.com');
  const withCA: Spec = { ...apiKeySpec, tls: { caCertSecretRef: { name: 'ca', key: 'bundle' } } };
  const cases: {
    title: string;
    spec: Spec;
    secret: V1Secret | undefined;
    others?: Record<string, V1Secret>;
    reason: string;
    message: RegExp;
  }[] = [
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
    {
      title: 'no CA Secret',
      spec: withCA,
      secret: secret({ token: 'k' }),
      reason: 'SecretNotFound',
      message: /^Secret ns\/ca does not exist: create it or fix the TemporalConnection's tls\.caCertSecretRef$/,
    },
    {
      title: 'a CA key that is missing',
      spec: withCA,
      secret: secret({ token: 'k' }),
      others: { ca: secret({ 'ca.crt': 'x' }) },
      reason: 'InvalidSecret',
      message: /^Secret ns\/ca key bundle is missing or empty$/,
    },
    {
      title: 'a CA key that is not PEM',
      spec: withCA,
      secret: secret({ token: 'k' }),
      others: { ca: secret({ bundle: 'garbage-ca' }) },
      reason: 'InvalidSecret',
      message: /^Secret ns\/ca key bundle is not a PEM certificate$/,
    },
  ];
  for (const c of cases) {
    assert.throws(
      () => resolveConnection(inNs(c.spec), secrets({ api: c.secret, cert: c.secret, ...c.others })),
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
  const caSecrets = { ca: secret({ 'ca.crt': certs.ca }), other: secret({ 'ca.crt': certs.strangerClient.cert }) };
  const fingerprint = (spec: Spec, data?: Record<string, string>) =>
    resolveConnection(inNs(spec), secrets({ ...caSecrets, ...(data ? { api: secret(data), cert: secret(data) } : {}) }))
      .fingerprint;
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
    ['a CA Secret', fingerprint({ ...mtlsSpec, tls: { ...mtlsSpec.tls, caCertSecretRef: { name: 'ca' } } }, mtls)],
  ];
  const withCA = (name: string) => fingerprint({ hostPort: 'temporal:7233', tls: { caCertSecretRef: { name } } });
  assert.notEqual(withCA('ca'), withCA('other'), 'another CA');
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
