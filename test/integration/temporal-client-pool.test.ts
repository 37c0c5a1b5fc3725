// The controller's client pool reaches the real Temporal dev server plainly, and through a TLS
// proxy in front of it with server TLS, mutual TLS or an API key, reading credentials from real
// Secrets through the controller's Secret watches.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import { NamedWatches } from '../../src/runtime/named-watches.ts';
import { troubleOf } from '../../src/temporal/call-failures.ts';
import { TemporalClientPool, TemporalConnectError } from '../../src/temporal/client-pool.ts';
import { CredentialsError } from '../../src/temporal/credentials.ts';
import { makeCertificates, trustProcessWide, type KeyPair, type TestCertificates } from '../support/certificates.ts';
import { eventually, kubeConfig, kubernetesApi, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { GrpcProxy } from '../support/grpc-proxy.ts';

const SERVER_NAME = 'temporal.twc.test';

interface Fixture {
  namespace: string;
  certs: TestCertificates;
  secrets: NamedWatches<'Secret'>;
  /** Reaches the Temporal namespace through `spec`; resolves to its name. */
  describe(spec: TemporalConnection['spec']): Promise<string>;
  proxy(options: { clientCA?: string; apiKey?: string }): Promise<GrpcProxy>;
  secret(name: string, data: Record<string, string>): Promise<void>;
  tlsSecret(name: string, pair: KeyPair, ca?: string): Promise<void>;
}

async function fixture(t: TestContext): Promise<Fixture> {
  const namespace = await testNamespace(t, 'pool');
  const certs = await makeCertificates(t, SERVER_NAME);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const secrets = new NamedWatches({ kind: 'Secret', api: kubernetesApi(t), onChange: () => {} });
  const pool = new TemporalClientPool({
    secret: (ns, name) => secrets.get(ns, name),
    timeouts: { readMs: 3000, writeMs: 3000 },
  });
  t.after(async () => {
    await pool.close();
    await secrets.stop();
  });
  const { temporalNamespace, temporalAddress } = sharedEnvironment();
  const secret = async (name: string, data: Record<string, string>): Promise<void> => {
    const body = {
      metadata: { name },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    };
    try {
      await core.createNamespacedSecret({ namespace, body });
    } catch {
      await core.patchNamespacedSecret(
        { namespace, name, body },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
  };
  return {
    namespace,
    certs,
    secrets,
    describe: async (spec) => {
      const service = await pool.workflowService({ metadata: { namespace, name: 'temporal' }, spec });
      const response = await service.describeNamespace({ namespace: temporalNamespace });
      return response.namespaceInfo?.name ?? '';
    },
    proxy: async (options) => {
      const proxy = new GrpcProxy({ upstream: temporalAddress, server: certs.server, ...options });
      await proxy.listen();
      t.after(() => proxy.close());
      return proxy;
    },
    secret,
    tlsSecret: (name, pair, ca) =>
      secret(name, { 'tls.crt': pair.cert, 'tls.key': pair.key, ...(ca ? { 'ca.crt': ca } : {}) }),
  };
}

test('plaintext reaches the dev server', async (t) => {
  const f = await fixture(t);
  assert.equal(
    await f.describe({ hostPort: sharedEnvironment().temporalAddress }),
    sharedEnvironment().temporalNamespace,
  );
});

test('server TLS with a server name: verified against the process roots, refused without them', async (t) => {
  const f = await fixture(t);
  const proxy = await f.proxy({});
  const spec = { hostPort: proxy.address, tls: { serverName: SERVER_NAME } };
  await assert.rejects(f.describe(spec), { name: 'TemporalConnectError', message: /certificate/ });
  trustProcessWide(f.certs.ca);
  assert.equal(await f.describe(spec), sharedEnvironment().temporalNamespace);
});

test('mutual TLS: accepted with a trusted client certificate, refused with a wrong server name, no certificate or a stranger certificate', async (t) => {
  const f = await fixture(t);
  const proxy = await f.proxy({ clientCA: f.certs.ca });
  await f.tlsSecret('client-cert', f.certs.client, f.certs.ca);
  const spec = {
    hostPort: proxy.address,
    tls: { serverName: SERVER_NAME },
    mutualTLSSecretRef: { name: 'client-cert' },
  };
  assert.equal(await f.describe(spec), sharedEnvironment().temporalNamespace);

  await assert.rejects(f.describe({ ...spec, tls: { serverName: 'elsewhere.twc.test' } }), {
    name: 'TemporalConnectError',
    message: /elsewhere\.twc\.test.*is not in the cert's altnames: DNS:temporal\.twc\.test/,
  });

  // No client certificate: the server ends the handshake with the alert "certificate required", a refusal of credentials.
  trustProcessWide(f.certs.ca);
  const refused = await f.describe({ hostPort: proxy.address, tls: { serverName: SERVER_NAME } }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(refused instanceof TemporalConnectError, String(refused));
  assert.equal(troubleOf(refused), 'TemporalCredentialsRefused', refused.message);

  // A changed certificate in the Secret replaces the client: the stranger is refused, the trusted one accepted again.
  await f.tlsSecret('client-cert', f.certs.strangerClient, f.certs.ca);
  await eventually(
    'the stranger certificate to be refused',
    () =>
      f.describe(spec).then(
        () => undefined,
        (error: Error) => error,
      ),
    30_000,
  );
  await f.tlsSecret('client-cert', f.certs.client, f.certs.ca);
  assert.equal(
    await eventually('the trusted certificate to be accepted again', () => f.describe(spec), 30_000),
    sharedEnvironment().temporalNamespace,
  );
});

test('API key: accepted, a wrong key refused, and a rotated key used without a restart', async (t) => {
  const f = await fixture(t);
  trustProcessWide(f.certs.ca);
  const proxy = await f.proxy({ apiKey: 'key-one' });
  await f.secret('temporal-api-key', { key: 'key-one' });
  const spec = {
    hostPort: proxy.address,
    tls: { serverName: SERVER_NAME },
    apiKeySecretRef: { name: 'temporal-api-key', key: 'key' },
  };
  assert.equal(await f.describe(spec), sharedEnvironment().temporalNamespace);

  await f.secret('wrong-api-key', { key: 'not-the-key' });
  await assert.rejects(f.describe({ ...spec, apiKeySecretRef: { name: 'wrong-api-key', key: 'key' } }), {
    message: /UNAUTHENTICATED: the proxy refused the API key/,
  });

  assert.equal(
    await f.describe(spec),
    sharedEnvironment().temporalNamespace,
    'the refused client was dropped, the right key connects again',
  );

  // Rotated in the Secret first, then on the server: the next call sends the new key on the same connection.
  const connections = proxy.connections;
  await f.secret('temporal-api-key', { key: 'key-two' });
  await eventually('the Secret cache to hold the new key', async () =>
    (await f.secrets.get(f.namespace, 'temporal-api-key'))?.data?.key === Buffer.from('key-two').toString('base64')
      ? true
      : undefined,
  );
  proxy.apiKey = 'key-two';
  assert.equal(await f.describe(spec), sharedEnvironment().temporalNamespace);
  assert.equal(proxy.connections, connections, 'no new connection for a new key');

  // Rotated on the server first: refused, the client is dropped, and the next call after the Secret changes succeeds.
  proxy.apiKey = 'key-three';
  await assert.rejects(f.describe(spec), { message: /UNAUTHENTICATED/ });
  const refusedOn = proxy.connections;
  await f.secret('temporal-api-key', { key: 'key-three' });
  assert.equal(
    await eventually('the rotated key to be used', () => f.describe(spec), 30_000),
    sharedEnvironment().temporalNamespace,
  );
  assert.ok(
    proxy.connections > refusedOn,
    'the refused client was dropped: the next call connected anew, with what the Secret holds',
  );
});

test('a missing Secret or key is an error naming it, and a Secret created later is picked up', async (t) => {
  const f = await fixture(t);
  const spec = { hostPort: sharedEnvironment().temporalAddress, apiKeySecretRef: { name: 'late-key', key: 'apiKey' } };
  await assert.rejects(f.describe(spec), (error: unknown) => {
    assert.ok(error instanceof CredentialsError);
    assert.equal(error.reason, 'SecretNotFound');
    assert.match(error.message, new RegExp(`Secret ${f.namespace}/late-key does not exist`));
    return true;
  });
  await f.secret('late-key', { other: 'x' });
  await eventually('the key to be reported missing', () =>
    f
      .describe(spec)
      .then(
        () => undefined,
        (error: unknown) => (error instanceof CredentialsError && error.reason === 'InvalidSecret' ? error : undefined),
      )
      .then((error) => {
        if (error) assert.match(error.message, new RegExp(`Secret ${f.namespace}/late-key key apiKey is missing`));
        return error;
      }),
  );
  await f.tlsSecret('late-cert', { cert: 'not a certificate', key: 'not a key' });
  await assert.rejects(f.describe({ hostPort: spec.hostPort, mutualTLSSecretRef: { name: 'late-cert' } }), {
    name: 'CredentialsError',
    message: new RegExp(`Secret ${f.namespace}/late-cert key tls.crt is not a PEM certificate`),
  });
});
