// Copies are deleted by ownership, not by a label anyone can set: a twor that goes takes with it
// only the objects that carry the controller's labels and are owned by a Deployment of its worker
// deployment. The Kubernetes API is a recording stand-in that lists what the test gives it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import { reconcileOwnedResource } from '../../src/controller/owned-resource-release.ts';
import { FINALIZER } from '../../src/domain/finalizer.ts';
import { KubernetesApiError } from '../../src/runtime/kube/api-errors.ts';
import type { ServiceAccountRef } from '../../src/domain/token-policy.ts';
import type { ClusterClient, ListedObject } from '../../src/k8s/cluster-client.ts';
import { isCopyOf } from '../../src/k8s/owned-resource-copies.ts';
import { silentLogger } from '../../src/runtime/logger.ts';

const LABEL = { 'temporal.io/owned-resource': 'orders-pdb' };
const MANAGED = { ...LABEL, 'app.kubernetes.io/managed-by': 'temporal-worker-controller' };
const ours = new Set(['uid-orders-v1']);
const owned = (uid: string) => [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'orders-v1', uid }];

test('a copy is one whose labels say so and whose owner is a Deployment of the worker deployment', () => {
  const cases: [string, ListedObject['metadata'], boolean][] = [
    [
      'both labels and our Deployment as owner',
      { name: 'a', namespace: 'shop', labels: MANAGED, ownerReferences: owned('uid-orders-v1') },
      true,
    ],
    [
      "the twor's label alone (a user's own object)",
      { name: 'b', namespace: 'shop', labels: LABEL, ownerReferences: owned('uid-orders-v1') },
      false,
    ],
    ['both labels, no owner', { name: 'c', namespace: 'shop', labels: MANAGED }, false],
    [
      'both labels, owned by something else',
      { name: 'd', namespace: 'shop', labels: MANAGED, ownerReferences: owned('uid-other') },
      false,
    ],
    [
      "another twor's copy",
      {
        name: 'e',
        namespace: 'shop',
        labels: { ...MANAGED, 'temporal.io/owned-resource': 'other' },
        ownerReferences: owned('uid-orders-v1'),
      },
      false,
    ],
  ];
  for (const [what, metadata, expected] of cases)
    assert.equal(isCopyOf({ metadata }, 'orders-pdb', ours), expected, what);
});

test("a twor being deleted: only its copies owned by its worker deployment's Deployments go, each by its uid, as its ServiceAccount; a user's labelled object stays", async () => {
  const calls: string[] = [];
  const pdb = (name: string, labels: Record<string, string>, owner?: string): ListedObject => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      labels,
      ...(owner ? { ownerReferences: owned(owner) } : {}),
    },
  });
  const deployments: ListedObject[] = [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'orders-v1',
        namespace: 'shop',
        uid: 'uid-orders-v1',
        ownerReferences: [
          { apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalWorkerDeployment', name: 'orders', uid: 'uid-orders' },
        ],
      },
    },
    // Labelled as the worker deployment's, but not owned by it: its objects are no copies.
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'mine', namespace: 'shop', uid: 'uid-mine' } },
  ];
  const cluster = {
    listObjects: (kind: { kind: string }, _namespace: string, selector: string, as?: ServiceAccountRef) => {
      calls.push(`listObjects ${kind.kind} ${selector}${as ? ` as ${as.name}` : ''}`);
      if (kind.kind === 'Deployment') return Promise.resolve(deployments);
      return Promise.resolve([
        pdb('orders-pdb-v1', MANAGED, 'uid-orders-v1'),
        pdb('users-own', MANAGED),
        pdb('on-my-deployment', MANAGED, 'uid-mine'),
      ]);
    },
    deleteObject: (object: ListedObject, as?: ServiceAccountRef) => {
      calls.push(`deleteObject ${object.kind}/${object.metadata.name} uid ${object.metadata.uid ?? ''} as ${as?.name}`);
      return Promise.resolve();
    },
    setFinalizers: (plural: string) => {
      calls.push(`setFinalizers ${plural}`);
      return Promise.resolve('2');
    },
  } as unknown as ClusterClient;
  const twor = {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerOwnedResource',
    metadata: {
      name: 'orders-pdb',
      namespace: 'shop',
      deletionTimestamp: '2026-11-26T12:00:00Z',
      finalizers: [FINALIZER],
    },
    spec: { workerRef: { name: 'orders' }, object: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } },
  } as unknown as TemporalWorkerOwnedResource;
  await reconcileOwnedResource(
    { cluster, now: () => new Date(), log: silentLogger, ownedResourcesServiceAccount: 'copier' },
    twor,
    true,
  );
  assert.deepEqual(calls, [
    'listObjects Deployment temporal.io/deployment-name=orders',
    'listObjects PodDisruptionBudget temporal.io/owned-resource=orders-pdb,app.kubernetes.io/managed-by=temporal-worker-controller as copier',
    'deleteObject PodDisruptionBudget/orders-pdb-v1 uid uid-orders-pdb-v1 as copier',
    'setFinalizers temporalworkerownedresources',
  ]);
});

test("a twor being deleted goes even when its copies cannot be deleted as its ServiceAccount (forbidden, or none named): never with the controller's rights", async () => {
  const twor = {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerOwnedResource',
    metadata: {
      name: 'orders-pdb',
      namespace: 'shop',
      deletionTimestamp: '2026-11-26T12:00:00Z',
      finalizers: [FINALIZER],
    },
    spec: { workerRef: { name: 'orders' }, object: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } },
  } as unknown as TemporalWorkerOwnedResource;
  for (const [what, account, calls] of [
    ['forbidden', 'copier', ['listObjects Deployment', 'listObjects PodDisruptionBudget as copier', 'setFinalizers']],
    ['none named, no default', undefined, ['setFinalizers']],
  ] as const) {
    const seen: string[] = [];
    const cluster = {
      listObjects: (kind: { kind: string }, _namespace: string, _selector: string, as?: ServiceAccountRef) => {
        seen.push(`listObjects ${kind.kind}${as ? ` as ${as.name}` : ''}`);
        if (kind.kind === 'Deployment') return Promise.resolve([]);
        return Promise.reject(new KubernetesApiError('GET', '/x', 403, undefined));
      },
      setFinalizers: () => {
        seen.push('setFinalizers');
        return Promise.resolve('2');
      },
    } as unknown as ClusterClient;
    await reconcileOwnedResource(
      { cluster, now: () => new Date(), log: silentLogger, ownedResourcesServiceAccount: account },
      twor,
      true,
    );
    assert.deepEqual(seen, calls, what);
  }
});
