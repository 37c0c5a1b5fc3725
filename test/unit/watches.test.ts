// The watch table (src/controller/watches.ts), row by row: an event in, the queue keys out, in the
// order the controller's informers queue them. A worker deployment `shop/orders` uses the
// TemporalConnection `shop/temporal`; `shop/billing` uses the TemporalClusterConnection `shared`,
// whose Secrets are copied into `shop`.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalClusterConnection, TemporalConnection } from '../../src/api/temporal-connection.ts';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import { connectionNamespace } from '../../src/domain/connection-ref.ts';
import { TemplateReads } from '../../src/controller/template-reads.ts';
import { keyOf, queueKeys, WatchMemory, WATCHES, type WatchView } from '../../src/controller/watches.ts';
import type { InformerEvent } from '../../src/runtime/informer.ts';
import { connection, deployment, NAMESPACE, workerDeployment } from '../support/recorded-world.ts';

const orders = workerDeployment({ buildId: 'v1' });
/** No template reads anything, unless a test records its own. */
const noReads = new TemplateReads();
const billing = workerDeployment(
  {
    buildId: 'v1',
    workerOptions: {
      connectionRef: { kind: 'TemporalClusterConnection', name: 'shared' },
      temporalNamespace: 'default',
      unsafeCustomBuildID: 'v1',
    },
  },
  { name: 'billing', uid: 'uid-billing' },
);
const temporal: TemporalConnection = {
  ...connection(),
  spec: { hostPort: 'temporal:7233', mutualTLSSecretRef: { name: 'orders-cert' } },
};
const shared: TemporalClusterConnection = {
  apiVersion: 'temporal.io/v1alpha1',
  kind: 'TemporalClusterConnection',
  metadata: { name: 'shared' },
  spec: {
    hostPort: 'temporal:7233',
    mutualTLSSecretRef: { name: 'controller-cert', namespace: 'platform' },
    workerAuth: { apiKeySecretRef: { name: 'worker-key', namespace: 'platform', key: 'key' } },
  },
};

/** The caches holding these worker deployments and connections. */
function cached(readsClusterConnections = true): WatchView {
  const workerDeployments = [orders, billing];
  const connections = readsClusterConnections ? [temporal, shared] : [temporal];
  return {
    workerDeployments: (namespace) =>
      workerDeployments.filter((twd) => namespace === undefined || twd.metadata.namespace === namespace),
    connections: () => connections,
    connectionOf: (twd) => {
      const ref = twd.spec.workerOptions.connectionRef;
      const namespace = connectionNamespace(ref, twd.metadata.namespace ?? '');
      return connections.find((c) => (c.metadata.namespace ?? '') === namespace && c.metadata.name === ref.name);
    },
    readsClusterConnections,
    readers: (kind, namespace, name) => noReads.readers(kind, namespace, name),
  };
}
const view = cached();

test('queue keys: a worker deployment by namespace/name, a connection and an owned resource behind a prefix', () => {
  assert.deepEqual(queueKeys('workerDeployment', 'shop', 'orders'), ['shop/orders']);
  assert.deepEqual(
    queueKeys('connection', '', 'shared'),
    ['connection:/shared'],
    'a cluster connection has no namespace',
  );
  assert.deepEqual(queueKeys('ownedResource', 'shop', 'hpa'), ['owned:shop/hpa']);
  assert.deepEqual(queueKeys('workerDeployment', undefined, 'orders'), [], 'no namespace');
  assert.deepEqual(queueKeys('workerDeployment', 'shop', undefined), [], 'no name');
  for (const key of ['shop/orders', 'connection:/shared', 'connection:shop/temporal', 'owned:shop/hpa'])
    assert.deepEqual(queueKeys(keyOf(key).kind, keyOf(key).namespace, keyOf(key).name), [key], key);
});

test('TemporalWorkerDeployment: every add and delete; an update only when what a reconcile acts on changed; gone, its connection too (it may be unused now)', () => {
  const row = WATCHES.TemporalWorkerDeployment;
  const seen = row.memory.of('add', orders);
  const newSpec = { ...orders, metadata: { ...orders.metadata, generation: 2 } };
  const statusWrite = {
    ...orders,
    metadata: { ...orders.metadata, resourceVersion: '11' },
    status: { versionCount: 3 },
  };
  const cases: [string, InformerEvent, typeof orders, string | undefined, string[]][] = [
    ['added', 'add', orders, undefined, ['shop/orders']],
    ['its spec changed', 'update', newSpec, seen, ['shop/orders']],
    ['its status written', 'update', statusWrite, seen, []],
    ['deleted', 'delete', orders, seen, ['shop/orders', 'connection:shop/temporal']],
  ];
  for (const [what, event, twd, before, keys] of cases) assert.deepEqual(row.keys(event, twd, before), keys, what);
  assert.equal(row.memory.of('delete', orders), undefined, 'nothing is remembered of one deleted');
  assert.equal(row.memory.key(orders), 'shop/orders');
});

test('TemporalWorkerDeployment: one on a cluster connection, added or deleted, changes which Secret copies are watched', () => {
  const row = WATCHES.TemporalWorkerDeployment;
  assert.equal(row.reselectsSecrets('add', billing), true);
  assert.equal(row.reselectsSecrets('delete', billing), true);
  assert.equal(row.reselectsSecrets('update', billing), false);
  assert.equal(row.reselectsSecrets('add', orders), false, 'on a TemporalConnection');
});

test('connections: its own check, then each worker deployment using it', () => {
  assert.deepEqual(WATCHES.TemporalConnection.keys('update', temporal, undefined, view), [
    'connection:shop/temporal',
    'shop/orders',
  ]);
  assert.deepEqual(WATCHES.TemporalClusterConnection.keys('delete', shared, undefined, view), [
    'connection:/shared',
    'shop/billing',
  ]);
  assert.equal(WATCHES.TemporalConnection.reselectsSecrets(), true, 'any event of a connection');
  assert.equal(WATCHES.TemporalClusterConnection.clusterScoped, true);
  assert.equal(WATCHES.TemporalClusterConnection.path(), '/apis/temporal.io/v1alpha1/temporalclusterconnections');
});

test('TemporalWorkerOwnedResource: the worker deployment it names, then its own copies', () => {
  const twor: TemporalWorkerOwnedResource = {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerOwnedResource',
    metadata: { name: 'hpa', namespace: NAMESPACE },
    spec: { workerRef: { name: 'orders' }, object: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' } },
  };
  assert.deepEqual(WATCHES.TemporalWorkerOwnedResource.keys('add', twor), ['shop/orders', 'owned:shop/hpa']);
});

test("Deployment: the builds' Deployments, each queueing the worker deployment that controls it, in the top lane (a build's progress)", () => {
  const row = WATCHES.Deployment;
  const build = deployment(orders, 'v1');
  const notControlled: V1Deployment = {
    ...build,
    metadata: {
      ...build.metadata,
      ownerReferences: build.metadata?.ownerReferences?.map((o) => ({ ...o, controller: false })),
    },
  };
  assert.equal(row.labelSelector, 'temporal.io/build-id');
  assert.equal(row.path('/namespaces/shop'), '/apis/apps/v1/namespaces/shop/deployments');
  assert.equal(row.priority, 'top');
  assert.deepEqual(row.keys('update', build, undefined), ['shop/orders']);
  assert.deepEqual(row.keys('update', notControlled, undefined), []);
});

test("Deployment: an update only when what a reconcile reads of it changed; the controller's own create counts as seen", () => {
  const memory = new WatchMemory(WATCHES.Deployment);
  const view = {} as WatchView;
  const created = deployment(orders, 'v2', { available: false });
  const sent = {
    ...created,
    metadata: { ...created.metadata, uid: undefined, resourceVersion: undefined },
    status: {},
  };
  memory.wrote(sent);
  assert.deepEqual(memory.keys('add', { ...created, status: {} }, view), [], 'its own create: nothing new');
  const counts = { ...created, status: { ...created.status, replicas: 2, unavailableReplicas: 2 } };
  assert.deepEqual(memory.keys('update', counts, view), [], 'the counts of its status: nothing a reconcile reads');
  const progressing = {
    ...counts,
    status: { ...counts.status, conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }] },
  };
  assert.deepEqual(memory.keys('update', progressing, view), [], 'progressing: nothing a reconcile reads');
  const available = deployment(orders, 'v2', { available: true });
  assert.deepEqual(memory.keys('update', available, view), ['shop/orders'], 'available');
  assert.deepEqual(memory.keys('update', available, view), [], 'the same again');
  const stuck = {
    ...created,
    status: {
      ...created.status,
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
    },
  };
  assert.deepEqual(memory.keys('update', stuck, view), ['shop/orders'], 'no longer available, and stuck');
  assert.deepEqual(
    memory.keys('update', { ...stuck, spec: { ...stuck.spec!, replicas: 0 } }, view),
    ['shop/orders'],
    'scaled',
  );
  assert.deepEqual(memory.keys('delete', available, view), ['shop/orders'], 'deleted');
  memory.wrote(available);
  assert.deepEqual(
    memory.keys('add', { ...available, status: {} }, view),
    ['shop/orders'],
    'found otherwise than created',
  );
  assert.deepEqual(
    memory.keys('add', deployment(orders, 'v3'), view),
    ['shop/orders'],
    'one the controller did not create',
  );
});

test('Pod: only when what it says is wrong changes', () => {
  const row = WATCHES.Pod;
  const pod = (waiting?: string): V1Pod => ({
    metadata: {
      name: 'orders-v1-a',
      namespace: NAMESPACE,
      uid: 'uid-pod',
      labels: { 'temporal.io/deployment-name': 'orders', 'temporal.io/build-id': 'v1' },
    },
    status: {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'worker',
          image: 'i',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: waiting ? { waiting: { reason: waiting, message: 'm' } } : { running: {} },
        },
      ],
    },
  });
  const troubled = row.memory.of('add', pod('ImagePullBackOff'));
  const cases: [string, InformerEvent, V1Pod, string | undefined, string[]][] = [
    ['a healthy Pod added', 'add', pod(), undefined, []],
    ['a Pod added in trouble', 'add', pod('ImagePullBackOff'), undefined, ['shop/orders']],
    ['the same trouble again', 'update', pod('ImagePullBackOff'), troubled, []],
    ['another trouble', 'update', pod('CreateContainerConfigError'), troubled, ['shop/orders']],
    ['the trouble gone', 'update', pod(), troubled, ['shop/orders']],
    ['a Pod in trouble deleted', 'delete', pod('ImagePullBackOff'), troubled, ['shop/orders']],
    ['a healthy Pod deleted', 'delete', pod(), undefined, []],
  ];
  for (const [what, event, object, before, keys] of cases)
    assert.deepEqual(row.keys(event, object, before), keys, what);
  assert.equal(row.memory.of('add', pod()), undefined, 'nothing is remembered of a healthy Pod');
  assert.equal(row.labelSelector, 'temporal.io/deployment-name,temporal.io/build-id');
});

test("Secret: those the connections name and the copies of the cluster connection's, each change queueing who reads it", () => {
  assert.deepEqual(WATCHES.Secret.watched(view), [
    { namespace: 'shop', name: 'orders-cert' },
    { namespace: 'platform', name: 'controller-cert' },
    { namespace: 'platform', name: 'worker-key' },
    { namespace: 'shop', name: 'billing-temporal-api-key' },
  ]);
  assert.deepEqual(
    WATCHES.Secret.watched(cached(false)),
    [{ namespace: 'shop', name: 'orders-cert' }],
    'no copies without cluster connections',
  );
  assert.deepEqual(WATCHES.Secret.keys('shop', 'orders-cert', view), ['connection:shop/temporal', 'shop/orders']);
  assert.deepEqual(WATCHES.Secret.keys('platform', 'worker-key', view), ['connection:/shared', 'shop/billing']);
  assert.deepEqual(WATCHES.Secret.keys('shop', 'billing-temporal-api-key', view), ['shop/billing'], 'a copy');
  assert.deepEqual(WATCHES.Secret.keys('shop', 'unrelated', view), []);
});

test("Secret: a notification receiver's, watched by name; its change queues the worker deployment naming it", () => {
  const notifying = workerDeployment(
    { buildId: 'v1', notifications: [{ secretRef: { name: 'rollout-hook' } }] },
    { name: 'payments', uid: 'uid-payments' },
  );
  const withReceiver: WatchView = {
    ...view,
    workerDeployments: (namespace) => [...view.workerDeployments(namespace), notifying],
  };
  assert.deepEqual(
    WATCHES.Secret.watched(withReceiver).filter((s) => s.name === 'rollout-hook'),
    [{ namespace: 'shop', name: 'rollout-hook' }],
  );
  assert.deepEqual(WATCHES.Secret.keys('shop', 'rollout-hook', withReceiver), ['shop/payments']);
  const row = WATCHES.TemporalWorkerDeployment;
  assert.equal(row.reselectsSecrets('add', notifying), true, 'a new worker deployment with receivers');
  assert.equal(row.reselectsSecrets('delete', notifying), true);
});

test("ConfigMaps and Secrets the templates read: the spec's and each build's own, each change queueing the worker deployment whose templates read it", () => {
  const reads = new TemplateReads();
  const view = { ...cached(), readers: reads.readers.bind(reads) };
  const readingTemplate = (configMap: string) => ({
    spec: {
      containers: [
        {
          name: 'worker',
          image: 'orders:v1',
          envFrom: [{ configMapRef: { name: configMap } }],
          env: [{ name: 'KEY', valueFrom: { secretKeyRef: { name: 'orders-key', key: 'k' } } }],
        },
      ],
    },
  });
  const ordersNow = workerDeployment({ buildId: 'v2', template: readingTemplate('settings-v2') });
  const oldBuild = deployment(workerDeployment({ buildId: 'v1', template: readingTemplate('settings-v1') }), 'v1');
  const billingBuild = deployment(billing, 'v1');
  const recorded = [
    WATCHES.TemporalWorkerDeployment.reads('add', ordersNow),
    WATCHES.Deployment.reads('add', oldBuild),
    WATCHES.Deployment.reads('add', billingBuild),
  ];
  assert.deepEqual(recorded[0], {
    holder: 'TemporalWorkerDeployment/shop/orders',
    keys: ['shop/orders'],
    objects: [
      { kind: 'Secret', namespace: 'shop', name: 'orders-key' },
      { kind: 'ConfigMap', namespace: 'shop', name: 'settings-v2' },
    ],
  });
  assert.deepEqual(
    recorded.map((r) => reads.set(r)),
    [true, true, false],
    'the set read grows, then not',
  );
  assert.deepEqual(reads.objects('ConfigMap'), [
    { namespace: 'shop', name: 'settings-v2' },
    { namespace: 'shop', name: 'settings-v1' },
  ]);
  assert.deepEqual(WATCHES.ConfigMap.keys('shop', 'settings-v1', view), ['shop/orders'], "the old build's own");
  assert.deepEqual(WATCHES.ConfigMap.keys('shop', 'settings-v2', view), ['shop/orders'], "the spec's");
  assert.deepEqual(WATCHES.ConfigMap.keys('shop', 'unread', view), []);
  assert.deepEqual(WATCHES.Secret.keys('shop', 'orders-key', view), ['shop/orders'], 'a Secret a template reads');

  assert.equal(reads.set(WATCHES.Deployment.reads('delete', oldBuild)), true, 'deleted: it reads nothing');
  assert.deepEqual(WATCHES.ConfigMap.keys('shop', 'settings-v1', view), []);
  assert.deepEqual(reads.objects('ConfigMap'), [{ namespace: 'shop', name: 'settings-v2' }]);
  assert.equal(reads.set(WATCHES.TemporalWorkerDeployment.reads('delete', ordersNow)), true);
  assert.deepEqual([...reads.objects('ConfigMap'), ...reads.objects('Secret')], []);
});
