// Events: one written per window for the same thing said of the same object, counted after that,
// and never a failed reconcile for an Event that could not be written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventRecorder } from '../../src/controller/events.ts';
import type { KubernetesApi } from '../../src/runtime/kube/api-client.ts';

const about = {
  apiVersion: 'temporal.io/v1alpha1',
  kind: 'TemporalWorkerDeployment',
  metadata: { name: 'orders', namespace: 'shop', uid: 'u1' },
};
const said = { type: 'Normal' as const, reason: 'Promoted', message: 'v2 is current' };

function recorder(fail = false) {
  const calls: string[] = [];
  let now = new Date('2026-11-27T10:00:00Z');
  const api = {
    create: (path: string, body: { metadata: { name: string }; count: number }) => {
      calls.push(`create ${path} count=${body.count}`);
      return fail ? Promise.reject(new Error('forbidden')) : Promise.resolve(body);
    },
    mergePatch: (path: string, body: { count: number }) => {
      calls.push(`patch ${path.replace(/orders\.[0-9a-f]+$/, 'orders.*')} count=${body.count}`);
      return Promise.resolve(body);
    },
  } as unknown as KubernetesApi;
  const events = new EventRecorder({ api, instance: 'twc-0', repeatWindowMs: 60_000, now: () => now });
  return { calls, events, later: (ms: number) => void (now = new Date(now.getTime() + ms)) };
}

test('the same event of the same object is written once a window, then its count', async () => {
  const { calls, events, later } = recorder();
  await events.record(about, said);
  later(10_000);
  await events.record(about, said);
  await events.record(about, said);
  later(60_000);
  await events.record(about, said);
  await events.record(about, { ...said, message: 'v3 is current' });
  assert.deepEqual(calls, [
    'create /api/v1/namespaces/shop/events count=1',
    'patch /api/v1/namespaces/shop/events/orders.* count=4',
    'create /api/v1/namespaces/shop/events count=1',
  ]);
});

test('an event that cannot be written does not fail its reconcile, and is tried afresh next time', async () => {
  const { calls, events } = recorder(true);
  await events.record(about, said);
  await events.record(about, said);
  assert.deepEqual(calls, [
    'create /api/v1/namespaces/shop/events count=1',
    'create /api/v1/namespaces/shop/events count=1',
  ]);
});
