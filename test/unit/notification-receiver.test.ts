// Deliveries to a real HTTP receiver (node:http on 127.0.0.1): what arrives, a retry after a 500,
// the Slack payload, only the Secret's own credential sent, and no redirect followed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { Notifier } from '../../src/controller/notifications.ts';
import { Deliveries, type DeliveryResult, httpSend } from '../../src/runtime/deliveries.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { realTimers } from '../../src/runtime/timers.ts';
import type { RolloutNotice } from '../../src/status/rollout-notices.ts';
import { notificationReceiver } from '../support/notification-receiver.ts';
import { workerDeployment } from '../support/recorded-world.ts';

function pipeline(base: string, url: string, format: 'Generic' | 'Slack') {
  const counted: DeliveryResult[] = [];
  let settled = (): void => {};
  const done = new Promise<void>((resolve) => (settled = resolve));
  const deliveries = new Deliveries({
    send: httpSend(2_000),
    timers: realTimers,
    count: (result) => {
      counted.push(result);
      settled();
    },
    log: silentLogger,
    baseMs: 20,
    maxMs: 100,
    maxAttempts: 3,
  });
  const secret: V1Secret = {
    metadata: { name: 'hook', namespace: 'shop' },
    data: {
      url: Buffer.from(url).toString('base64'),
      authorization: Buffer.from('Bearer from-the-secret').toString('base64'),
    },
  };
  const notifier = new Notifier({
    allowed: [`${base}/hooks/`],
    secret: () => Promise.resolve(secret),
    deliveries,
    countRefused: () => {},
    log: silentLogger,
    now: () => new Date('2026-11-27T12:00:00Z'),
  });
  const twd = workerDeployment({ buildId: 'v2', notifications: [{ secretRef: { name: 'hook' }, format }] });
  return { counted, done, deliveries, notify: (notice: RolloutNotice) => notifier.notify(twd, [notice]) };
}

const promoted: RolloutNotice = { kind: 'Promoted', buildId: 'v2', message: 'build v2 is current' };

test('a receiver that answers 500 first gets the notice again, and it is counted sent once', async (t) => {
  const r = await notificationReceiver(t, [500, 200]);
  const p = pipeline(r.base, `${r.base}/hooks/ops`, 'Generic');
  p.notify(promoted);
  await p.done;
  assert.deepEqual(p.counted, ['sent']);
  assert.equal(r.received.length, 2, 'tried again after the 500');
  for (const got of r.received) {
    assert.equal(got.path, '/hooks/ops');
    assert.deepEqual(JSON.parse(got.body), {
      kind: 'Promoted',
      namespace: 'shop',
      workerDeployment: 'orders',
      buildID: 'v2',
      message: 'build v2 is current',
      time: '2026-11-27T12:00:00.000Z',
    });
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers.authorization, 'Bearer from-the-secret', "the Secret's credential, and no other");
    assert.equal(got.headers.cookie, undefined);
  }
});

test('a Slack receiver gets {"text", "blocks"}', async (t) => {
  const r = await notificationReceiver(t, [200]);
  const p = pipeline(r.base, `${r.base}/hooks/slack`, 'Slack');
  p.notify({ kind: 'Aborted', buildId: 'v2', message: 'RolloutAborted: aborted by spec.rollout.abort' });
  await p.done;
  const body = JSON.parse(r.received[0]?.body ?? '{}') as { text?: string; blocks?: { type: string }[] };
  assert.equal(body.text, ':x: Rollout aborted: shop/orders: RolloutAborted: aborted by spec.rollout.abort');
  assert.deepEqual(
    body.blocks?.map((b) => b.type),
    ['section', 'context'],
  );
});

test("a redirect is not followed: the Secret's credential never reaches where the allowed prefixes do not", async (t) => {
  const elsewhere = await notificationReceiver(t);
  const r = await notificationReceiver(t, [302], `${elsewhere.base}/collect`);
  const p = pipeline(r.base, `${r.base}/hooks/ops`, 'Generic');
  p.notify(promoted);
  await p.done;
  assert.deepEqual(p.counted, ['failed']);
  assert.equal(r.received.length, 3, 'each try got the 302');
  assert.deepEqual(elsewhere.received, []);
});
