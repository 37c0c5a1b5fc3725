// A TemporalClusterConnection whose Secrets live in a platform namespace, used by a worker
// deployment of another namespace, through a front that requires client certificates of a private
// CA: the controller reads its certificate and the CA where the connection says; the worker Pods,
// which mount only Secrets of their own namespace, get copies of the workers' certificate and the
// CA there. Taken out of the connection's allowedNamespaces, the namespace loses those copies,
// and only those (a Secret of the user's with our labels stays). The connection is held while the
// worker deployment uses it, and goes after.
//
// Then from a namespace editor's seat (docs/security.md, T4), in this file as its controllers
// read every cluster connection (one of another file would let go of this file's finalizers):
// mallory, with `edit` in a namespace a TemporalClusterConnection does not list, creates a worker
// deployment naming it, hoping to read its credentials from the copy the controller would write
// beside her Pods. The worker deployment is Stalled naming the connection, and no key of the
// connection appears in her namespace. A listed namespace gets no copy of the connection's own
// key either when it has no workerAuth.
import { AppsV1Api, CoreV1Api, CustomObjectsApi, setHeaderOptions, type V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalClusterConnection } from '../../src/api/temporal-connection.ts';
import { MANAGED_BY } from '../../src/domain/labels.ts';
import { COPIED_FROM_LABEL } from '../../src/k8s/secret-copies.ts';
import { makeCertificates } from '../support/certificates.ts';
import { grantEdit } from '../support/controller-rbac.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace, uniqueName } from '../support/environment.ts';
import { mutualTlsFront } from '../support/grpc-proxy.ts';

const SERVER_NAME = 'temporal.twc.test';
const cluster = { group: GROUP, version: VERSION, plural: KINDS.TemporalClusterConnection.plural };

test('a worker deployment on a TemporalClusterConnection with Secrets in another namespace rolls out, its Pods on copies; the connection is held while used', async (t) => {
  const platform = await testNamespace(t, 'platform');
  const namespace = await testNamespace(t, 'cc-workers');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const { proxy, certs } = await mutualTlsFront(t, SERVER_NAME);
  const secrets: Record<string, Record<string, string>> = {
    'controller-mtls': { 'tls.crt': certs.client.cert, 'tls.key': certs.client.key },
    'worker-mtls': { 'tls.crt': certs.workerClient.cert, 'tls.key': certs.workerClient.key, unrelated: 'x' },
    'private-ca': { 'bundle.pem': certs.ca },
  };
  for (const [name, stringData] of Object.entries(secrets))
    await core.createNamespacedSecret({ namespace: platform, body: { metadata: { name }, stringData } });

  const ns = await controlledNamespace(t, namespace, { clusterConnections: true });
  const connectionName = uniqueName('shared');
  await custom.createClusterCustomObject({
    ...cluster,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TemporalClusterConnection',
      metadata: { name: connectionName },
      spec: {
        hostPort: proxy.address,
        tls: {
          serverName: SERVER_NAME,
          caCertSecretRef: { name: 'private-ca', namespace: platform, key: 'bundle.pem' },
        },
        mutualTLSSecretRef: { name: 'controller-mtls', namespace: platform },
        workerAuth: { mutualTLSSecretRef: { name: 'worker-mtls', namespace: platform } },
        allowedNamespaces: {
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [namespace] }],
        },
      },
    },
  });
  const read = async () =>
    (await custom.getClusterCustomObject({ ...cluster, name: connectionName })) as TemporalClusterConnection;
  t.after(() => custom.deleteClusterCustomObject({ ...cluster, name: connectionName }).catch(() => undefined));
  await eventually('the cluster connection to be reached', async () =>
    (await read()).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined,
  );

  const workerOptions = {
    connectionRef: { kind: 'TemporalClusterConnection', name: connectionName },
    temporalNamespace: sharedEnvironment().temporalNamespace,
  };
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue'), workerOptions });
  // A second one in the same namespace gets copies of its own: each copy has one owner.
  await ns.createWorkerDeployment('payments', {
    replicas: 1,
    template: ns.template('blue', `${ns.taskQueue}-payments`),
    workerOptions,
  });
  const orders = await ns.until('orders', 'the build to be current through the cluster connection', rolledOut);
  const payments = await ns.until('payments', 'the second worker deployment to be current too', rolledOut);
  assert.deepEqual(
    (await core.readNamespacedSecret({ namespace, name: 'payments-temporal-tls' })).metadata?.ownerReferences?.map(
      (o) => o.uid,
    ),
    [payments.metadata.uid],
  );
  assert.deepEqual([...proxy.clientNames].sort(), ['twc-controller', 'twc-worker']);

  const copy = async (purpose: string): Promise<V1Secret> =>
    core.readNamespacedSecret({ namespace, name: `orders-temporal-${purpose}` });
  const tls = await copy('tls');
  assert.deepEqual(Object.keys(tls.data ?? {}).sort(), ['tls.crt', 'tls.key'], 'only the keys the workers read');
  assert.equal(Buffer.from(tls.data?.['tls.crt'] ?? '', 'base64').toString(), certs.workerClient.cert);
  assert.equal(tls.metadata?.labels?.[COPIED_FROM_LABEL], connectionName);
  assert.deepEqual(
    tls.metadata?.ownerReferences?.map((o) => o.uid),
    [orders.metadata.uid],
  );
  assert.deepEqual(Object.keys((await copy('ca')).data ?? {}), ['bundle.pem']);
  await assert.rejects(copy('api-key'), 'nothing else is copied');
  const [pod] = (await core.listNamespacedPod({ namespace, labelSelector: 'temporal.io/deployment-name=orders' }))
    .items;
  assert.deepEqual((pod?.spec?.volumes ?? []).flatMap((v) => (v.secret ? [v.secret.secretName] : [])).sort(), [
    'orders-temporal-ca',
    'orders-temporal-tls',
  ]);
  assert.equal(JSON.stringify(pod).includes('controller-mtls'), false);

  // Taken out of allowedNamespaces (docs/security.md, T4): the copies there go, by ownership.
  const ours = `${MANAGED_BY.label}=${MANAGED_BY.value}`;
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: 'orders-temporal-api-key', labels: { [MANAGED_BY.label]: MANAGED_BY.value } },
      stringData: { key: "the user's own" },
    },
  });
  await custom.patchClusterCustomObject(
    {
      ...cluster,
      name: connectionName,
      body: { spec: { allowedNamespaces: { matchLabels: { 'temporal-access': 'granted' } } } },
    },
    setHeaderOptions('Content-Type', 'application/merge-patch+json'),
  );
  await eventually('the copies to go from the namespace taken out', async () => {
    const left = (await core.listNamespacedSecret({ namespace, labelSelector: ours })).items;
    return left.length === 1 ? left : undefined;
  });
  const stalled = await ns.until('orders', 'Stalled, naming the connection', (twd) =>
    Boolean(condition(twd, 'Stalled')?.status === 'True'),
  );
  assert.equal(condition(stalled, 'Stalled')?.reason, 'ClusterConnectionNotAllowed');
  assert.equal(
    Buffer.from((await copy('api-key')).data?.key ?? '', 'base64').toString(),
    "the user's own",
    "a Secret of the user's with our label is not deleted",
  );

  // Deleted while used: held, saying by whom; let go once the worker deployment is gone.
  await custom.deleteClusterCustomObject({ ...cluster, name: connectionName });
  const held = await eventually('the connection to say who holds it', async () => {
    const c = await read();
    return c.status?.conditions?.find((x) => x.type === 'Ready' && x.reason === 'InUse');
  });
  assert.match(
    held.message,
    new RegExp(`TemporalClusterConnection ${connectionName} is kept .*${namespace}/orders, ${namespace}/payments`),
  );
  for (const name of ['orders', 'payments'])
    await custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: KINDS.TemporalWorkerDeployment.plural,
      name,
    });
  await eventually(
    'the cluster connection to go once unused',
    async () => ((await read().catch(() => undefined)) === undefined ? true : undefined),
    120_000,
  );
});

test("the cluster connection's key never appears in an unlisted namespace", async (t) => {
  const platform = await testNamespace(t, 'sec-platform');
  const unlisted = await testNamespace(t, 'sec-unlisted');
  const listed = await testNamespace(t, 'sec-listed');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  await core.patchNamespace(
    { name: listed, body: { metadata: { labels: { 'temporal-access': 'granted' } } } },
    setHeaderOptions('Content-Type', 'application/merge-patch+json'),
  );
  const certs = await makeCertificates(t, 'temporal.twc.test');
  const keys = {
    'controller-mtls': { 'tls.crt': certs.client.cert, 'tls.key': certs.client.key },
    'worker-mtls': { 'tls.crt': certs.workerClient.cert, 'tls.key': certs.workerClient.key },
  };
  for (const [name, stringData] of Object.entries(keys))
    await core.createNamespacedSecret({ namespace: platform, body: { metadata: { name }, stringData } });
  const connection = async (spec: Record<string, unknown>): Promise<string> => {
    const name = uniqueName('shared');
    await custom.createClusterCustomObject({
      ...cluster,
      body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'TemporalClusterConnection', metadata: { name }, spec },
    });
    t.after(() => custom.deleteClusterCustomObject({ ...cluster, name }).catch(() => undefined));
    return name;
  };
  const allowedNamespaces = { matchLabels: { 'temporal-access': 'granted' } };
  const withWorkerAuth = await connection({
    hostPort: 'temporal.twc.test:7233',
    mutualTLSSecretRef: { name: 'controller-mtls', namespace: platform },
    workerAuth: { mutualTLSSecretRef: { name: 'worker-mtls', namespace: platform } },
    allowedNamespaces,
  });
  const withoutWorkerAuth = await connection({
    hostPort: 'temporal.twc.test:7233',
    mutualTLSSecretRef: { name: 'controller-mtls', namespace: platform },
    allowedNamespaces,
  });

  await grantEdit(unlisted, 'mallory');
  const mallorys = await controlledNamespace(t, unlisted, { clusterConnections: true });
  const listeds = await controlledNamespace(t, listed, { clusterConnections: true });
  const workerDeployment = (ns: typeof mallorys, connectionName: string) => ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'TemporalWorkerDeployment',
    metadata: { name: 'orders' },
    spec: {
      replicas: 1,
      template: ns.template('blue'),
      workerOptions: {
        connectionRef: { kind: 'TemporalClusterConnection', name: connectionName },
        temporalNamespace: sharedEnvironment().temporalNamespace,
      },
    },
  });
  await custom.createNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace: unlisted,
      plural: KINDS.TemporalWorkerDeployment.plural,
      body: workerDeployment(mallorys, withWorkerAuth),
    },
    setHeaderOptions('Impersonate-User', 'mallory'),
  );
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: listed,
    plural: KINDS.TemporalWorkerDeployment.plural,
    body: workerDeployment(listeds, withoutWorkerAuth),
  });

  const stalled = await mallorys.until('orders', 'Stalled, naming the connection', (twd) =>
    Boolean(condition(twd, 'Stalled')?.status === 'True'),
  );
  assert.equal(condition(stalled, 'Stalled')?.reason, 'ClusterConnectionNotAllowed');
  assert.match(
    condition(stalled, 'Stalled')?.message ?? '',
    new RegExp(`^TemporalClusterConnection ${withWorkerAuth}: namespace ${unlisted} may not use it`),
  );
  const refused = await listeds.until('orders', 'Stalled, naming workerAuth', (twd) =>
    Boolean(condition(twd, 'Stalled')?.status === 'True'),
  );
  assert.equal(condition(refused, 'Stalled')?.reason, 'ClusterConnectionWithoutWorkerAuth');
  assert.match(condition(refused, 'Stalled')?.message ?? '', /has no spec\.workerAuth/);

  // A few more reconciles, then nothing of either key in either namespace, and no Deployment.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const keyBytes = [certs.client.key, certs.workerClient.key].map((pem) => Buffer.from(pem).toString('base64'));
  for (const namespace of [unlisted, listed]) {
    const secrets = (await core.listNamespacedSecret({ namespace })).items;
    const holding = secrets.filter((s) => Object.values(s.data ?? {}).some((value) => keyBytes.includes(value)));
    assert.deepEqual(
      holding.map((s) => s.metadata?.name),
      [],
      `no Secret of ${namespace} holds a key of the connections`,
    );
    const deployments = await kubeConfig().makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace });
    assert.deepEqual(
      deployments.items.map((d) => d.metadata?.name),
      [],
      `no Deployment in ${namespace}`,
    );
  }
});
