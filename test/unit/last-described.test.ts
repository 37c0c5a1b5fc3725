// What Temporal last said of a Worker Deployment is recalled only for that Worker Deployment: the
// same worker deployment moved to another server, Temporal namespace or name is another one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DescribedAt, LastDescribed } from '../../src/controller/last-described.ts';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';

const at: DescribedAt = {
  hostPort: 'temporal:7233',
  namespace: 'default',
  deploymentName: 'shop/orders',
  identity: 'twc',
};
const state: TemporalDeploymentState = { exists: true, currentBuildId: 'v1', versions: [] };

test('a description is recalled where it was read, by another identity too, without its conflict token', () => {
  const last = new LastDescribed();
  last.remember('shop/orders', at, { ...state, conflictToken: new Uint8Array(64 * 1024).subarray(0, 8) });
  assert.deepEqual(last.recall('shop/orders', { ...at, identity: 'twc-2' }), state);
});

test('nothing is recalled for another server, Temporal namespace or Worker Deployment name, nor once forgotten', () => {
  const last = new LastDescribed();
  last.remember('shop/orders', at, state);
  assert.equal(last.recall('shop/orders', { ...at, hostPort: 'temporal-2:7233' }), undefined);
  assert.equal(last.recall('shop/orders', { ...at, namespace: 'other' }), undefined);
  assert.equal(last.recall('shop/orders', { ...at, deploymentName: 'shop/orders-2' }), undefined);
  assert.equal(last.recall('shop/payments', at), undefined);
  last.forget('shop/orders');
  assert.equal(last.recall('shop/orders', at), undefined);
});

test('a run of not-found answers is dated from its first, at one place, until an answer finds the Worker Deployment', () => {
  const last = new LastDescribed();
  const t0 = new Date('2026-11-28T00:00:00Z');
  const t1 = new Date('2026-11-28T00:00:10Z');
  assert.deepEqual(last.notFoundSince('shop/orders', at, t0), t0);
  last.forget('shop/orders');
  assert.deepEqual(last.notFoundSince('shop/orders', at, t1), t0, 'a failed read does not end the run');
  assert.deepEqual(
    last.notFoundSince('shop/orders', { ...at, namespace: 'other' }, t1),
    t1,
    'another place starts its own',
  );
  last.found('shop/orders');
  assert.deepEqual(last.notFoundSince('shop/orders', at, t1), t1, 'found, a new run starts');
  last.remember('shop/orders', at, state);
  last.drop('shop/orders');
  assert.equal(last.recall('shop/orders', at), undefined);
  assert.deepEqual(last.notFoundSince('shop/orders', at, t0), t0, 'the worker deployment gone, nothing is kept');
});
