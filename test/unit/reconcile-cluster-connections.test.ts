// A worker deployment on a TemporalClusterConnection, through one recorded reconcile (see
// test/support/recorded-world.ts): which namespaces get copies of the connection's Secrets, of
// which credentials, and what goes when a namespace may no longer use it. The exact calls matter:
// a copy written or left behind is a credential where a namespace's editors read it.
import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalClusterConnection } from '../../src/api/temporal-connection.ts';
import {
  deployment,
  IDENTITY,
  NAMESPACE,
  recordedReconcile,
  workerDeployment,
  type World,
} from '../support/recorded-world.ts';

const now = new Date('2026-11-26T12:00:00Z');
const b64 = (text: string) => Buffer.from(text).toString('base64');
const granted = { 'temporal-access': 'granted' };

/** The controller's own certificate and the workers' API key, in the platform team's namespace. */
const shared: TemporalClusterConnection = {
  apiVersion: 'temporal.io/v1alpha1',
  kind: 'TemporalClusterConnection',
  metadata: { name: 'shared', finalizers: ['temporal.io/delete-protection'] },
  spec: {
    hostPort: 'temporal:7233',
    mutualTLSSecretRef: { name: 'controller-cert', namespace: 'platform' },
    workerAuth: { apiKeySecretRef: { name: 'worker-key', namespace: 'platform', key: 'key' } },
    allowedNamespaces: { matchLabels: granted },
  },
};
const sources: V1Secret[] = [
  {
    metadata: { name: 'controller-cert', namespace: 'platform' },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': b64('controller cert'), 'tls.key': b64('controller key') },
  },
  { metadata: { name: 'worker-key', namespace: 'platform' }, data: { key: b64('worker key') } },
];
const owner = workerDeployment({
  buildId: 'v1',
  workerOptions: {
    connectionRef: { kind: 'TemporalClusterConnection', name: 'shared' },
    temporalNamespace: 'default',
    unsafeCustomBuildID: 'v1',
  },
});
const managedBy = { 'app.kubernetes.io/managed-by': 'temporal-worker-controller' };
const ownedBy = (uid: string) => [
  { apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalWorkerDeployment', name: 'orders', uid },
];
/** The copy of the workers' API key the controller wrote while the namespace was allowed. */
const apiKeyCopy: V1Secret = {
  metadata: {
    name: 'orders-temporal-api-key',
    namespace: NAMESPACE,
    uid: 'uid-api-key-copy',
    labels: { ...managedBy, 'temporal.io/deployment-name': 'orders', 'temporal.io/cluster-connection': 'shared' },
    ownerReferences: ownedBy('uid-orders'),
  },
  data: { key: b64('worker key') },
};
const copiesSelector = 'app.kubernetes.io/managed-by=temporal-worker-controller,temporal.io/deployment-name=orders';

/** v1 current and running, on the cluster connection. */
function runningWorld(overrides: Partial<World> = {}): World {
  return {
    now,
    workerDeployment: owner,
    connection: shared,
    deployments: [deployment(owner, 'v1', { since: new Date(0) })],
    temporal: {
      exists: true,
      currentBuildId: 'v1',
      managerIdentity: IDENTITY,
      versions: [{ buildId: 'v1', status: 'Current', everActive: true }],
    },
    secrets: [...sources, apiKeyCopy],
    namespaceLabels: granted,
    ...overrides,
  };
}

const stalledBy = (run: Awaited<ReturnType<typeof recordedReconcile>>) =>
  run.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');

test("a namespace allowedNamespaces selects gets a copy of workerAuth's credentials only, written before the Deployment that mounts it", async () => {
  const run = await recordedReconcile({
    ...runningWorld({ secrets: sources }),
    workerDeployment: { ...owner, metadata: { ...owner.metadata, finalizers: [] } },
    deployments: [],
    temporal: { exists: false, versions: [] },
  });
  assert.deepEqual(run.calls, [
    `k8s.namespaceLabels ${NAMESPACE}`,
    'temporal.describe',
    'k8s.setFinalizers temporalworkerdeployments/orders [temporal.io/delete-protection]',
    `k8s.apply Secret/orders-temporal-api-key as twc/${NAMESPACE}/orders`,
    'k8s.createDeployment orders-v1',
    'k8s.replaceStatus orders@11',
  ]);
});

test('a namespace allowedNamespaces does not select: Stalled naming the connection and the field, and no copy, Deployment or Temporal call', async () => {
  const run = await recordedReconcile({
    ...runningWorld({ secrets: sources, namespaceLabels: { team: 'shop' } }),
    deployments: [],
    temporal: { exists: false, versions: [] },
  });
  assert.deepEqual(run.calls, [
    `k8s.namespaceLabels ${NAMESPACE}`,
    `k8s.listObjects Secret ${copiesSelector}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(stalledBy(run)?.reason, 'ClusterConnectionNotAllowed');
  assert.match(
    stalledBy(run)?.message ?? '',
    /^TemporalClusterConnection shared: namespace shop may not use it: its spec\.allowedNamespaces does not select it/,
  );
  assert.deepEqual(run.events, ['Warning ClusterConnectionNotAllowed']);
});

test('a namespace taken out of allowedNamespaces loses the copies made there, only those the worker deployment owns, each said', async () => {
  const usersOwn: V1Secret = {
    metadata: { ...apiKeyCopy.metadata, name: 'orders-temporal-ca', uid: 'uid-users', ownerReferences: [] },
  };
  const ofAnEarlierOrders: V1Secret = {
    metadata: {
      ...apiKeyCopy.metadata,
      name: 'orders-temporal-tls',
      uid: 'uid-earlier',
      ownerReferences: ownedBy('uid-gone'),
    },
  };
  const run = await recordedReconcile(
    runningWorld({ secrets: [...sources, apiKeyCopy, usersOwn, ofAnEarlierOrders], namespaceLabels: {} }),
  );
  assert.deepEqual(run.calls, [
    `k8s.namespaceLabels ${NAMESPACE}`,
    `k8s.listObjects Secret ${copiesSelector}`,
    'k8s.deleteObject Secret/orders-temporal-api-key',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(stalledBy(run)?.reason, 'ClusterConnectionNotAllowed');
  assert.match(
    stalledBy(run)?.message ?? '',
    /spec\.allowedNamespaces does not select it.*the copies made before are deleted/,
  );
  assert.deepEqual(
    run.eventMessages.filter((m) => m.startsWith('SecretCopyDeleted')),
    [
      "SecretCopyDeleted: deleted Secret shop/orders-temporal-api-key, the worker Pods' copy of a Secret of TemporalClusterConnection shared, which namespace shop may no longer use (ClusterConnectionNotAllowed): running Pods keep what they read, new ones cannot start on it",
    ],
  );
  assert.deepEqual(run.secretCopyRevocations, ['shop shared deleted'], 'counted for twc_secret_copy_revocations_total');
});

test('a connection that loses its workerAuth: the copies go from namespaces outside its own; one that cannot be deleted is said in the stall', async () => {
  const connection = structuredClone(shared);
  delete connection.spec.workerAuth;
  const run = await recordedReconcile(runningWorld({ connection }));
  assert.deepEqual(run.calls, [
    `k8s.namespaceLabels ${NAMESPACE}`,
    `k8s.listObjects Secret ${copiesSelector}`,
    'k8s.deleteObject Secret/orders-temporal-api-key',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(stalledBy(run)?.reason, 'ClusterConnectionWithoutWorkerAuth');

  const refused = await recordedReconcile(
    runningWorld({ connection, failures: { 'k8s.deleteObject Secret/': new Error('secrets is forbidden') } }),
  );
  assert.equal(stalledBy(refused)?.reason, 'ClusterConnectionWithoutWorkerAuth');
  assert.match(
    stalledBy(refused)?.message ?? '',
    /; also cannot delete the copies of TemporalClusterConnection shared's Secrets in namespace shop, which may no longer use it: secrets is forbidden; tried again at the next poll$/,
  );
  assert.deepEqual(refused.secretCopyRevocations, ['shop shared failed'], 'a credential left behind is counted');
});

test("a Secret of the user's where a copy goes is never written over, whatever its labels: Stalled naming it", async () => {
  const usersOwn: V1Secret = { ...apiKeyCopy, metadata: { ...apiKeyCopy.metadata, ownerReferences: [] } };
  const run = await recordedReconcile(runningWorld({ secrets: [...sources, usersOwn] }));
  assert.deepEqual(run.calls, [`k8s.namespaceLabels ${NAMESPACE}`, 'k8s.replaceStatus orders@10']);
  assert.equal(stalledBy(run)?.reason, 'SecretCopyConflict');
  assert.match(
    stalledBy(run)?.message ?? '',
    /Secret shop\/orders-temporal-api-key, where the worker Pods' copy of Secret platform\/worker-key goes, is not this worker deployment's copy \(no owner reference of it names TemporalWorkerDeployment orders\): rename or delete it/,
  );
});
