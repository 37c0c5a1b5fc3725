// Background deliveries: retried with exponential backoff on a fake clock, bounded tries and
// queues, every delivery's end counted; whoever enqueues never waits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Deliveries, type Delivery, type DeliveryResult } from '../../src/runtime/deliveries.ts';
import { silentLogger, type Logger } from '../../src/runtime/logger.ts';
import { FakeTimers, settle } from '../support/fake-timers.ts';

const delivery = (body: string): Delivery => ({ url: 'http://receiver/hook', headers: {}, body });

/** A receiver answering each send with the next of `answers` (the last one repeats); an Error rejects. */
function world(answers: (number | Error)[], options: { maxAttempts?: number; maxQueued?: number } = {}) {
  const timers = new FakeTimers();
  const sent: { body: string; at: number }[] = [];
  const counted: DeliveryResult[] = [];
  const warnings: string[] = [];
  const why: unknown[] = [];
  const log = {
    ...silentLogger,
    warn: (fields: { error?: unknown }, message: string) => {
      warnings.push(message);
      why.push(fields.error);
    },
  } as Logger;
  let held: Promise<void> | undefined;
  const deliveries = new Deliveries({
    send: async (d) => {
      sent.push({ body: d.body, at: timers.now() });
      if (held) await held;
      const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    timers,
    count: (result) => void counted.push(result),
    log,
    baseMs: 1_000,
    maxMs: 8_000,
    jitter: 0,
    ...options,
  });
  return { timers, sent, counted, warnings, why, deliveries, hold: (p: Promise<void>): void => void (held = p) };
}

test('a delivery answered 2xx is sent once and counted sent', async () => {
  const w = world([204]);
  w.deliveries.enqueue('shop/hook', delivery('a'));
  await settle();
  assert.deepEqual(w.sent, [{ body: 'a', at: 0 }]);
  assert.deepEqual(w.counted, ['sent']);
  assert.equal(w.deliveries.queued('shop/hook'), 0);
});

test('a 500 or no answer is tried again after 1 s, 2 s, 4 s: then it is sent', async () => {
  const w = world([500, new Error('ECONNREFUSED'), 503, 200]);
  w.deliveries.enqueue('shop/hook', delivery('a'));
  await settle();
  await w.timers.advance(60_000);
  assert.deepEqual(
    w.sent.map((s) => s.at),
    [0, 1_000, 3_000, 7_000],
  );
  assert.deepEqual(w.counted, ['sent']);
});

test('its tries spent, a delivery is given up, counted failed and logged; the next one goes on', async () => {
  const w = world([500, 500, 500, 200], { maxAttempts: 3 });
  w.deliveries.enqueue('shop/hook', delivery('a'));
  w.deliveries.enqueue('shop/hook', delivery('b'));
  await settle();
  await w.timers.advance(60_000);
  assert.deepEqual(
    w.sent.map((s) => s.body),
    ['a', 'a', 'a', 'b'],
  );
  assert.deepEqual(w.counted, ['failed', 'sent']);
  assert.deepEqual(w.warnings, ['a notification could not be delivered: given up']);
});

test('a full queue drops its oldest waiting delivery, not the one being sent, and counts it', async () => {
  const w = world([200], { maxQueued: 2 });
  let release = (): void => {};
  w.hold(new Promise<void>((resolve) => (release = resolve)));
  for (const body of ['a', 'b', 'c', 'd']) w.deliveries.enqueue('shop/hook', delivery(body));
  assert.deepEqual(w.counted, ['dropped']);
  release();
  await w.timers.advance(1_000);
  assert.deepEqual(
    w.sent.map((s) => s.body),
    ['a', 'c', 'd'],
  );
  assert.deepEqual(w.counted, ['dropped', 'sent', 'sent', 'sent']);
});

test('enqueue returns before the receiver answers: a hung receiver holds no caller', async () => {
  const w = world([200]);
  w.hold(new Promise<void>(() => {}));
  w.deliveries.enqueue('shop/hook', delivery('a'));
  w.deliveries.enqueue('shop/other', delivery('b'));
  await settle();
  assert.deepEqual(
    w.sent.map((s) => s.body),
    ['a', 'b'],
    'one receiver hung does not hold another',
  );
});

test('stopped (leadership lost): what waits is dropped and counted, nothing more is sent', async () => {
  const w = world([500]);
  w.deliveries.enqueue('shop/hook', delivery('a'));
  w.deliveries.enqueue('shop/hook', delivery('b'));
  await settle();
  w.deliveries.stop();
  await w.timers.advance(60_000);
  assert.equal(w.sent.length, 1);
  assert.deepEqual(w.counted, ['dropped', 'dropped']);
  w.deliveries.enqueue('shop/hook', delivery('c'));
  assert.deepEqual(w.counted, ['dropped', 'dropped', 'dropped']);
});

test("the log line of a delivery given up says why, from fetch's cause, and not the URL", async () => {
  const w = world(
    [new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) })],
    {
      maxAttempts: 1,
    },
  );
  w.deliveries.enqueue('shop/hook', delivery('a'));
  await settle();
  assert.deepEqual(w.why, ['the receiver could not be reached (ECONNREFUSED)']);
});
