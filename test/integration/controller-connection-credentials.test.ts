// A connection's CA and the workers' own credentials, end to end through TLS fronts of the shared
// dev server whose certificate a private CA signed. Nothing in this process or on the machine
// trusts that CA: the controller and the workers can only take it from tls.caCertSecretRef, and a
// build becomes Current only once both got through (the workers register it, the controller
// routes to it).
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { CA_MOUNT_PATH } from '../../src/k8s/versioned-deployment.ts';
import { makeCertificates, type TestCertificates } from '../support/certificates.ts';
import { connectionUntil, ready } from '../support/connection-status.ts';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import { kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { GrpcProxy, type GrpcProxyOptions } from '../support/grpc-proxy.ts';

const SERVER_NAME = 'temporal.twc.test';
const CA_SECRET = { metadata: { name: 'private-ca' } };
const CA_REF = { name: 'private-ca', key: 'bundle.pem' };

async function front(t: TestContext, certs: TestCertificates, options: Partial<GrpcProxyOptions>): Promise<GrpcProxy> {
  const proxy = new GrpcProxy({ upstream: sharedEnvironment().temporalAddress, server: certs.server, ...options });
  await proxy.listen();
  t.after(() => proxy.close());
  return proxy;
}

async function secrets(namespace: string, data: Record<string, Record<string, string>>): Promise<void> {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  for (const [name, stringData] of Object.entries(data))
    await core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData } });
}

const podsOf = async (namespace: string): Promise<V1Pod[]> =>
  (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedPod({ namespace })).items;

const variable = (pod: V1Pod, name: string) => pod.spec?.containers[0]?.env?.find((e) => e.name === name);

test('the CA of tls.caCertSecretRef takes the controller and the workers through a private-CA front, with no credentials, an API key and mutual TLS', async (t) => {
  const certs = await makeCertificates(t, SERVER_NAME);
  const modes: {
    mode: string;
    front: Partial<GrpcProxyOptions>;
    credentials: Record<string, unknown>;
    secrets: Record<string, Record<string, string>>;
  }[] = [
    { mode: 'tls', front: {}, credentials: {}, secrets: {} },
    {
      mode: 'api-key',
      front: { apiKey: 'the-key' },
      credentials: { apiKeySecretRef: { name: 'temporal-api-key', key: 'apiKey' } },
      secrets: { 'temporal-api-key': { apiKey: 'the-key' } },
    },
    {
      mode: 'mtls',
      front: { clientCA: certs.ca },
      credentials: { mutualTLSSecretRef: { name: 'temporal-mtls' } },
      // No ca.crt here: the CA comes from its own Secret only.
      secrets: { 'temporal-mtls': { 'tls.crt': certs.client.cert, 'tls.key': certs.client.key } },
    },
  ];
  await Promise.all(
    modes.map(async ({ mode, front: requires, credentials, secrets: modeSecrets }) => {
      const namespace = await testNamespace(t, `ca-${mode}`);
      const proxy = await front(t, certs, requires);
      await secrets(namespace, { ...modeSecrets, [CA_SECRET.metadata.name]: { [CA_REF.key]: certs.ca } });
      const ns = await controlledNamespace(t, namespace, {
        connectionSpec: {
          hostPort: proxy.address,
          tls: { serverName: SERVER_NAME, caCertSecretRef: CA_REF },
          ...credentials,
        },
      });
      await connectionUntil(namespace, `${mode}: reached with the CA`, ready('True', 'Connected'));
      await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
      await ns.until('orders', `${mode}: the build to be current through the front`, rolledOut);
      const [pod] = await podsOf(namespace);
      assert.equal(variable(pod!, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH')?.value, `${CA_MOUNT_PATH}/ca.crt`, mode);
      assert.deepEqual(
        pod?.spec?.volumes
          ?.find((v) => v.name === 'temporal-tls-ca')
          ?.secret?.items?.map(({ key, path }) => ({ key, path })),
        [{ key: CA_REF.key, path: 'ca.crt' }],
        mode,
      );
      // The controller holds one connection; the node agent's workers hold at least one more.
      assert.ok(proxy.connections >= 2, `${mode}: TLS connections through the front: ${proxy.connections}`);
    }),
  );
});

test("with workerAuth the Pods hold only the workers' credentials, while the controller routes with its own", async (t) => {
  const namespace = await testNamespace(t, 'worker-auth');
  const certs = await makeCertificates(t, SERVER_NAME);
  const proxy = await front(t, certs, { clientCA: certs.ca });
  await secrets(namespace, {
    'controller-mtls': { 'tls.crt': certs.client.cert, 'tls.key': certs.client.key },
    [CA_SECRET.metadata.name]: { [CA_REF.key]: certs.ca },
  });
  const ns = await controlledNamespace(t, namespace, {
    connectionSpec: {
      hostPort: proxy.address,
      tls: { serverName: SERVER_NAME, caCertSecretRef: CA_REF },
      mutualTLSSecretRef: { name: 'controller-mtls' },
      workerAuth: { mutualTLSSecretRef: { name: 'worker-mtls' } },
    },
  });
  // The controller gets through; the workers' Secret is missing, and the connection says which field names it.
  const missing = await connectionUntil(
    namespace,
    'the workers’ Secret named missing',
    ready('False', 'SecretNotFound'),
  );
  assert.match(
    missing.Ready?.message ?? '',
    new RegExp(`Secret ${namespace}/worker-mtls does not exist: .*workerAuth\\.mutualTLSSecretRef`),
  );
  await secrets(namespace, {
    'worker-mtls': { 'tls.crt': certs.workerClient.cert, 'tls.key': certs.workerClient.key },
  });
  await connectionUntil(namespace, 'ready once the workers’ Secret exists', ready('True', 'Connected'));

  await ns.createWorkerDeployment('orders', { replicas: 2, template: ns.template('blue') });
  await ns.until('orders', 'the build to be current', rolledOut);
  const pods = await podsOf(namespace);
  assert.equal(pods.length, 2);
  for (const pod of pods) {
    const secretsMounted = (pod.spec?.volumes ?? []).flatMap((v) => (v.secret ? [v.secret.secretName] : []));
    assert.deepEqual(secretsMounted.sort(), ['private-ca', 'worker-mtls']);
    assert.equal(
      JSON.stringify(pod).includes('controller-mtls'),
      false,
      "the controller's Secret is named nowhere in a Pod",
    );
  }
  // Each presented its own certificate: the workers to register, the controller to route.
  assert.deepEqual([...proxy.clientNames].sort(), ['twc-controller', 'twc-worker']);
});
