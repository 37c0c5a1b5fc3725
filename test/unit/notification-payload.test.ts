// What a receiver gets: a generic JSON object, or a Slack incoming webhook's {"text", "blocks"}.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notificationBody } from '../../src/status/notification-payload.ts';

const context = { namespace: 'shop', workerDeployment: 'orders', at: new Date('2026-11-27T12:00:00Z') };
const notice = { kind: 'Aborted' as const, buildId: 'v2', message: 'RolloutAborted: <abort> & rolled back' };

test('generic payload: one flat object with the stable fields', () => {
  assert.deepEqual(JSON.parse(notificationBody('Generic', notice, context)), {
    kind: 'Aborted',
    namespace: 'shop',
    workerDeployment: 'orders',
    buildID: 'v2',
    message: 'RolloutAborted: <abort> & rolled back',
    time: '2026-11-27T12:00:00.000Z',
  });
});

test('Slack payload: text alone says it all, blocks add the object; markup is escaped', () => {
  const body = JSON.parse(notificationBody('Slack', notice, context)) as { text: string; blocks: unknown[] };
  assert.equal(body.text, ':x: Rollout aborted: shop/orders: RolloutAborted: &lt;abort&gt; &amp; rolled back');
  assert.deepEqual(body.blocks, [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: '*:x: Rollout aborted*\nRolloutAborted: &lt;abort&gt; &amp; rolled back' },
    },
    {
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: 'TemporalWorkerDeployment shop/orders · build v2 · 2026-11-27T12:00:00.000Z' },
      ],
    },
  ]);
});
