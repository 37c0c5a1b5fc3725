// A reconcile right after the controller scaled or deleted a Deployment decides on that write
// until the informer shows it: on a cache that lags, a build just scaled to zero still looks
// ready to take traffic.
import type { V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterClient } from '../../src/k8s/cluster-client.ts';
import { OwnDeploymentWrites } from '../../src/k8s/own-deployment-writes.ts';

const deployment = (name: string, generation: number, replicas: number, uid = `uid-${name}`): V1Deployment => ({
  metadata: { namespace: 'shop', name, uid, generation },
  spec: { replicas, selector: {}, template: {} },
  status: { readyReplicas: replicas },
});

function world(cache: V1Deployment[]): { cache: V1Deployment[]; writes: OwnDeploymentWrites; cluster: ClusterClient } {
  const writes = new OwnDeploymentWrites((namespace) => cache.filter((d) => d.metadata?.namespace === namespace));
  const cluster = {
    scaleDeployment: () => Promise.resolve(),
    deleteDeployment: () => Promise.resolve(),
  } as unknown as ClusterClient;
  return { cache, writes, cluster: writes.noting(cluster) };
}

const replicasOf = (writes: OwnDeploymentWrites, name: string): number | undefined =>
  writes.newest('shop').find((d) => d.metadata?.name === name)?.spec?.replicas;

test('a scale stands in for the cached copy of its generation or older, until the cache shows a later generation', async () => {
  const w = world([deployment('orders-v1', 3, 2), deployment('orders-v2', 1, 2)]);
  assert.equal(replicasOf(w.writes, 'orders-v1'), 2, 'nothing written: the cache');
  await w.cluster.scaleDeployment('shop', 'orders-v1', 0);
  assert.equal(replicasOf(w.writes, 'orders-v1'), 0, 'the cache still holds generation 3');
  assert.equal(replicasOf(w.writes, 'orders-v2'), 2, 'another Deployment is the cache');
  // Its status changed before the write reached the informer: the same generation, still older.
  w.cache[0] = { ...deployment('orders-v1', 3, 2), status: { readyReplicas: 1 } };
  assert.equal(replicasOf(w.writes, 'orders-v1'), 0, 'a status change of the same generation');
  assert.equal(w.writes.newest('shop')[0]?.status?.readyReplicas, 1, 'the rest is the cache');
  w.cache[0] = deployment('orders-v1', 4, 0);
  assert.equal(replicasOf(w.writes, 'orders-v1'), 0, 'the cache shows the write');
  // Someone scales it again (an autoscaler): the write is forgotten, the cache wins.
  w.cache[0] = deployment('orders-v1', 3, 2);
  assert.equal(replicasOf(w.writes, 'orders-v1'), 2, 'forgotten once the cache caught up');
});

test('a scale that failed, or of a Deployment the cache does not hold, is not kept', async () => {
  const w = world([deployment('orders-v1', 3, 2)]);
  const failing = new OwnDeploymentWrites(() => w.cache);
  const refusing = failing.noting({
    scaleDeployment: () => Promise.reject(new Error('frozen')),
  } as unknown as ClusterClient);
  await assert.rejects(refusing.scaleDeployment('shop', 'orders-v1', 0), /frozen/);
  assert.equal(failing.newest('shop')[0]?.spec?.replicas, 2);
  await w.cluster.scaleDeployment('shop', 'orders-v9', 0);
  w.cache.push(deployment('orders-v9', 1, 3));
  assert.equal(replicasOf(w.writes, 'orders-v9'), 3, 'no generation was known to judge the cache by');
});

test('a deleted Deployment is hidden while the cache holds it, and one created again under its name is not', async () => {
  const w = world([deployment('orders-v1', 3, 0), deployment('orders-v2', 1, 2)]);
  await w.cluster.deleteDeployment('shop', 'orders-v1');
  assert.deepEqual(
    w.writes.newest('shop').map((d) => d.metadata?.name),
    ['orders-v2'],
    'the cache still holds it',
  );
  w.cache.splice(0, 1);
  assert.deepEqual(
    w.writes.newest('shop').map((d) => d.metadata?.name),
    ['orders-v2'],
  );
  w.cache.push(deployment('orders-v1', 1, 1, 'uid-again'));
  assert.deepEqual(
    w.writes.newest('shop').map((d) => d.metadata?.name),
    ['orders-v2', 'orders-v1'],
    'a new object of that name',
  );
});

test('a deleted Deployment a finalizer holds is shown again once the cache shows it being deleted', async () => {
  const w = world([deployment('orders-v1', 3, 0)]);
  await w.cluster.deleteDeployment('shop', 'orders-v1');
  assert.deepEqual(w.writes.newest('shop'), [], 'the cache still holds the copy from before the delete');
  const held = {
    ...deployment('orders-v1', 3, 0),
    metadata: { ...deployment('orders-v1', 3, 0).metadata, deletionTimestamp: new Date() },
  };
  w.cache[0] = held;
  assert.deepEqual(w.writes.newest('shop'), [held]);
});
