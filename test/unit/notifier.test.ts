// spec.notifications carried out: each receiver gets the notices it asks for, in its format, at the
// URL and with the credential of its own Secret; a receiver refused gets nothing, and says why.
import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { Notifier } from '../../src/controller/notifications.ts';
import type { Delivery } from '../../src/runtime/deliveries.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import type { RolloutNotice } from '../../src/status/rollout-notices.ts';
import { settle } from '../support/fake-timers.ts';
import { workerDeployment } from '../support/recorded-world.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const secret = (name: string, data: Record<string, string>): V1Secret => ({
  metadata: { name, namespace: 'shop' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});
const secrets = [
  secret('ops-hook', { url: 'https://hooks.example.com/ops', authorization: 'Bearer ops-token' }),
  secret('slack-hook', { url: 'https://hooks.example.com/slack/T1' }),
  secret('elsewhere', { url: 'http://169.254.169.254/latest', authorization: 'Bearer leaked' }),
];
const notices: RolloutNotice[] = [
  { kind: 'Started', buildId: 'v2', message: 'rollout of build v2 started, replacing v1' },
  { kind: 'Promoted', buildId: 'v2', message: 'build v2 is current' },
];

function notifier(allowed = ['https://hooks.example.com/']) {
  const queued: { receiver: string; delivery: Delivery }[] = [];
  let refused = 0;
  const n = new Notifier({
    allowed,
    secret: (namespace, name) =>
      Promise.resolve(secrets.find((s) => s.metadata?.namespace === namespace && s.metadata.name === name)),
    deliveries: { enqueue: (receiver, delivery) => void queued.push({ receiver, delivery }) },
    countRefused: () => void refused++,
    log: silentLogger,
    now: () => new Date('2026-11-27T12:00:00Z'),
  });
  return { n, queued, refused: () => refused };
}

const twd = (notifications: TemporalWorkerDeployment['spec']['notifications']) =>
  workerDeployment({ buildId: 'v2', notifications });

test("each receiver gets the kinds it asks for, in its format, at its own Secret's URL with its own Secret's credential", async () => {
  const { n, queued } = notifier();
  n.notify(
    twd([
      { secretRef: { name: 'ops-hook' }, events: ['Promoted', 'Aborted'] },
      { secretRef: { name: 'slack-hook' }, format: 'Slack' },
    ]),
    notices,
  );
  await settle();
  // The payloads themselves are notification-payload.test.ts's: here, who gets which kind, in which format.
  const sent = queued.map(({ receiver, delivery }) => {
    const body = JSON.parse(delivery.body) as { kind?: string; text?: string };
    return [receiver, delivery.url, delivery.headers.authorization, body.kind ?? body.text?.split(':')[2]?.trim()];
  });
  assert.deepEqual(sent, [
    ['shop/ops-hook', 'https://hooks.example.com/ops', 'Bearer ops-token', 'Promoted'],
    ['shop/slack-hook', 'https://hooks.example.com/slack/T1', undefined, 'Rollout started'],
    ['shop/slack-hook', 'https://hooks.example.com/slack/T1', undefined, 'Promoted'],
  ]);
});

test('a Secret pointing outside the allowed destinations: nothing is queued, each notice counted refused, and the condition names the field and the flag', async () => {
  const { n, queued, refused } = notifier();
  const object = twd([{ secretRef: { name: 'ops-hook' } }, { secretRef: { name: 'elsewhere' } }]);
  n.notify(object, notices);
  await settle();
  assert.deepEqual(
    queued.map((q) => q.receiver),
    ['shop/ops-hook', 'shop/ops-hook'],
  );
  assert.equal(refused(), 2);
  const [condition] = await n.conditions(object);
  assert.equal(condition?.type, 'Degraded');
  assert.equal(condition?.reason, 'NotificationsRefused');
  assert.match(
    condition?.message ?? '',
    /spec\.notifications\[1\]\.secretRef: .*host 169\.254\.169\.254.*--notification-destinations/,
  );
  assert.doesNotMatch(condition?.message ?? '', /leaked/);
});

test('notifications off (no destination allowed): no Secret is read, the worker deployment says so', async () => {
  const { n, queued } = notifier([]);
  const object = twd([{ secretRef: { name: 'ops-hook' } }]);
  n.notify(object, notices);
  await settle();
  assert.deepEqual(queued, []);
  const [condition] = await n.conditions(object);
  assert.match(
    condition?.message ?? '',
    /spec\.notifications\[0\]\.secretRef: notifications are off in this controller/,
  );
});

test('a worker deployment without spec.notifications: no condition, nothing queued', async () => {
  const { n, queued } = notifier();
  n.notify(twd(undefined), notices);
  await settle();
  assert.deepEqual(queued, []);
  assert.deepEqual(await n.conditions(twd(undefined)), []);
});
