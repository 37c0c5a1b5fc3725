// End to end through an API-key connection: the controller and the workers reach Temporal only
// through a TLS proxy that requires the key; a worker deployment whose connection names a Secret
// that does not exist yet is stalled until the Secret appears, and one whose key the server
// refuses is stalled, with nothing created, until the Secret holds a key it accepts; a key rotated
// in the Secret rolls the running workers' Pods, which read it at start.
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeCertificates, trustProcessWide } from '../support/certificates.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { GrpcProxy } from '../support/grpc-proxy.ts';
import { create } from '../support/manifests.ts';

const SERVER_NAME = 'temporal.twc.test';

test('a worker deployment becomes Current through an API-key connection, and waits for a missing key Secret', async (t) => {
  const namespace = await testNamespace(t, 'apikey');
  const certs = await makeCertificates(t, SERVER_NAME);
  trustProcessWide(certs.ca);
  const proxy = new GrpcProxy({
    upstream: sharedEnvironment().temporalAddress,
    server: certs.server,
    apiKey: 'the-key',
  });
  await proxy.listen();
  t.after(() => proxy.close());

  const core = kubeConfig().makeApiClient(CoreV1Api);
  const secret = (name: string, data: Record<string, string>) =>
    core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: data } });
  await secret('temporal-api-key', { apiKey: 'the-key' });
  // The workers have no process-wide trust to lean on: the sample worker takes the CA from its environment.
  await secret('temporal-ca', { 'ca.crt': certs.ca });
  const connectionSpec = (secretName: string) => ({
    hostPort: proxy.address,
    tls: { serverName: SERVER_NAME },
    apiKeySecretRef: { name: secretName, key: 'apiKey' },
  });
  const ns = await controlledNamespace(t, namespace, { connectionSpec: connectionSpec('temporal-api-key') });
  const template = (behaviour: string) => ({
    spec: {
      containers: [
        {
          name: 'worker',
          image: 'sample-worker',
          env: [
            { name: 'TEMPORAL_TASK_QUEUE', value: ns.taskQueue },
            { name: 'SAMPLE_BEHAVIOUR', value: behaviour },
            {
              name: 'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
              valueFrom: { secretKeyRef: { name: 'temporal-ca', key: 'ca.crt' } },
            },
          ],
        },
      ],
    },
  });

  await ns.createWorkerDeployment('orders', { replicas: 1, template: template('blue') });
  const orders = await ns.until('orders', 'the build to be current through the proxy', rolledOut);
  assert.equal(condition(orders, 'Ready')?.status, 'True');
  assert.ok(proxy.connections > 0, 'Temporal was reached through the proxy');

  await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalConnection',
      metadata: { name: 'later' },
      spec: connectionSpec('later-key'),
    },
    namespace,
  );
  await ns.createWorkerDeployment('billing', {
    replicas: 1,
    template: template('green'),
    workerOptions: { connectionRef: { name: 'later' }, temporalNamespace: sharedEnvironment().temporalNamespace },
  });
  const stalled = await ns.until(
    'billing',
    'Stalled/SecretNotFound',
    (twd) => condition(twd, 'Stalled')?.reason === 'SecretNotFound',
  );
  assert.match(
    condition(stalled, 'Stalled')?.message ?? '',
    new RegExp(`TemporalConnection ${namespace}/later: Secret ${namespace}/later-key does not exist`),
  );

  await secret('later-key', { apiKey: 'the-key' });
  const billing = await ns.until('billing', 'the build to be current once the Secret exists', rolledOut);
  assert.equal(condition(billing, 'Stalled')?.status, 'False', 'and nothing stalls any more');
});

test('a refused API key stalls the worker deployment, naming the connection and Secret, until the Secret holds a good key; a rotated key rolls the Pods', async (t) => {
  const namespace = await testNamespace(t, 'badkey');
  const certs = await makeCertificates(t, SERVER_NAME);
  trustProcessWide(certs.ca);
  const proxy = new GrpcProxy({
    upstream: sharedEnvironment().temporalAddress,
    server: certs.server,
    apiKey: 'the-key',
  });
  await proxy.listen();
  t.after(() => proxy.close());
  const core = kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'temporal-api-key' }, stringData: { apiKey: 'not-the-key' } },
  });
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'temporal-ca' }, stringData: { 'ca.crt': certs.ca } },
  });
  const ns = await controlledNamespace(t, namespace, {
    connectionSpec: {
      hostPort: proxy.address,
      tls: { serverName: SERVER_NAME },
      apiKeySecretRef: { name: 'temporal-api-key', key: 'apiKey' },
    },
  });
  const template = ns.template('blue') as { spec: { containers: { env: object[] }[] } };
  template.spec.containers[0]?.env.push({
    name: 'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
    valueFrom: { secretKeyRef: { name: 'temporal-ca', key: 'ca.crt' } },
  });

  await ns.createWorkerDeployment('orders', { replicas: 1, template });
  const refused = await ns.until(
    'orders',
    'Stalled/TemporalCredentialsRefused',
    (twd) => condition(twd, 'Stalled')?.reason === 'TemporalCredentialsRefused',
  );
  const message = condition(refused, 'Stalled')?.message ?? '';
  assert.match(
    message,
    new RegExp(`TemporalConnection ${namespace}/temporal \\(Secret ${namespace}/temporal-api-key, key apiKey\\)`),
  );
  assert.match(message, /UNAUTHENTICATED: the proxy refused the API key/);
  assert.doesNotMatch(message, /not-the-key/, 'never the value');
  assert.notEqual(condition(refused, 'Progressing')?.reason, 'TemporalUnreachable');
  assert.equal((await ns.buildDeployments()).size, 0, 'nothing is created on the strength of a refusal');

  const setKey = (key: string) =>
    core.patchNamespacedSecret(
      { namespace, name: 'temporal-api-key', body: { data: { apiKey: Buffer.from(key).toString('base64') } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  await setKey('the-key');
  const orders = await ns.until('orders', 'the build to be current once the Secret holds the right key', rolledOut);
  assert.equal(condition(orders, 'Stalled')?.status, 'False', 'and nothing stalls any more');

  // Rotation: the Secret first, then the server. The Pods read TEMPORAL_API_KEY at start, so they must be replaced.
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const [deployment] = [...(await ns.buildDeployments()).values()];
  assert.ok(deployment);
  const podTemplateHashes = async () =>
    new Set((await core.listNamespacedPod({ namespace })).items.map((p) => p.metadata?.labels?.['pod-template-hash']));
  const before = await podTemplateHashes();
  await setKey('key-two');
  proxy.apiKey = 'key-two';
  await eventually(
    'the Pods to be replaced by Pods of a new template, available',
    async () => {
      const d = await apps.readNamespacedDeployment({ namespace, name: deployment.name });
      const hashes = await podTemplateHashes();
      const replaced =
        [...hashes].every((h) => !before.has(h)) &&
        (d.status?.updatedReplicas ?? 0) === 1 &&
        (d.status?.availableReplicas ?? 0) === 1 &&
        (d.status?.replicas ?? 0) === 1;
      return replaced ? d : undefined;
    },
    90_000,
  );
  assert.equal(
    (await apps.readNamespacedDeployment({ namespace, name: deployment.name })).spec?.replicas,
    1,
    'replicas unchanged',
  );
  const after = await ns.until(
    'orders',
    'the build to stay current, Ready, with workers on the new key',
    (twd) => rolledOut(twd) && condition(twd, 'Ready')?.status === 'True',
  );
  assert.equal(
    after.status?.currentVersion?.buildID,
    orders.status?.currentVersion?.buildID,
    'the same build, rolled in place',
  );
});
