import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkQueue } from '../../src/runtime/work-queue.ts';
import { FakeTimers, settle } from '../support/fake-timers.ts';

function deferred(): { promise: Promise<undefined>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<undefined>((r) => (resolve = () => r(undefined)));
  return { promise, resolve };
}

test('a key added many times while waiting is reconciled once', async () => {
  const runs: string[] = [];
  const gate = deferred();
  const queue = new WorkQueue<string>({
    concurrency: 1,
    reconcile: async (key) => (runs.push(key), key === 'blocker' ? gate.promise : undefined),
  });
  queue.add('blocker');
  for (let i = 0; i < 5; i++) queue.add('a');
  queue.add('b');
  gate.resolve();
  await settle();
  await settle();
  assert.deepEqual(runs, ['blocker', 'a', 'b']);
});

test('a key is never reconciled twice at once; an add during its reconcile runs it again after', async () => {
  let running = 0;
  let most = 0;
  const gates: ReturnType<typeof deferred>[] = [];
  const queue = new WorkQueue<string>({
    concurrency: 4,
    reconcile: async () => {
      most = Math.max(most, ++running);
      const gate = deferred();
      gates.push(gate);
      await gate.promise;
      running--;
      return undefined;
    },
  });
  queue.add('a');
  await settle();
  queue.add('a');
  queue.add('a');
  await settle();
  assert.equal(gates.length, 1, 'the second add waits for the first reconcile');
  gates[0]?.resolve();
  await settle();
  await settle();
  assert.equal(gates.length, 2, 'then runs once more, not twice');
  gates[1]?.resolve();
  await settle();
  assert.equal(most, 1);
});

test('different keys run concurrently up to the limit', async () => {
  let running = 0;
  let most = 0;
  const gate = deferred();
  const queue = new WorkQueue<number>({
    concurrency: 3,
    reconcile: async () => ((most = Math.max(most, ++running)), await gate.promise, running--, undefined),
  });
  for (let i = 0; i < 10; i++) queue.add(i);
  await settle();
  assert.equal(most, 3);
  gate.resolve();
  await queue.shutdown();
});

test('failures back off exponentially per key, and a success resets the backoff', async () => {
  const timers = new FakeTimers();
  const attempts: number[] = [];
  let fail = true;
  const retries: number[] = [];
  const queue = new WorkQueue<string>({
    concurrency: 1,
    timers,
    backoff: { baseMs: 100, maxMs: 1000 },
    reconcile: () => {
      attempts.push(timers.now());
      return fail ? Promise.reject(new Error('not yet')) : Promise.resolve(undefined);
    },
    onError: (_key, _error, retryInMs) => retries.push(retryInMs),
  });
  queue.add('a');
  await settle();
  await timers.advance(100 + 200 + 400 + 800 + 1000);
  assert.deepEqual(retries, [100, 200, 400, 800, 1000, 1000], 'doubling, capped');
  assert.deepEqual(attempts, [0, 100, 300, 700, 1500, 2500]);
  fail = false;
  await timers.advance(1000);
  fail = true;
  retries.length = 0;
  queue.add('a');
  await settle();
  assert.deepEqual(retries, [100], 'after a success the backoff starts over');
  await queue.shutdown();
});

test('requeueAfter runs the key again after that delay', async () => {
  const timers = new FakeTimers();
  const attempts: number[] = [];
  const queue = new WorkQueue<string>({
    concurrency: 1,
    timers,
    reconcile: () => (attempts.push(timers.now()), Promise.resolve({ requeueAfterMs: 30_000 })),
  });
  queue.add('a');
  await settle();
  await timers.advance(29_999);
  assert.deepEqual(attempts, [0]);
  await timers.advance(1);
  assert.deepEqual(attempts, [0, 30_000]);
  await queue.shutdown();
});

test('an error storm is held to the retry bucket across keys', async () => {
  const timers = new FakeTimers();
  const retries: number[] = [];
  const queue = new WorkQueue<number>({
    concurrency: 10,
    timers,
    backoff: { baseMs: 5, maxMs: 1_000_000 },
    retryBucket: { perSecond: 10, burst: 3 },
    reconcile: () => Promise.reject(new Error('down')),
    onError: (_key, _error, retryInMs) => retries.push(retryInMs),
  });
  for (let i = 0; i < 6; i++) queue.add(i);
  await settle();
  assert.deepEqual(retries, [5, 5, 5, 100, 200, 300], 'three from the burst, then one every 100ms');
  await queue.shutdown();
});

test('shutdown waits for running reconciles and drops waiting keys', async () => {
  const gate = deferred();
  const runs: string[] = [];
  const queue = new WorkQueue<string>({
    concurrency: 1,
    reconcile: async (key) => (runs.push(key), await gate.promise, undefined),
  });
  queue.add('a');
  queue.add('b');
  await settle();
  let stopped = false;
  const stopping = queue.shutdown().then(() => (stopped = true));
  await settle();
  assert.equal(stopped, false, 'a reconcile is still running');
  gate.resolve();
  await stopping;
  queue.add('c');
  await settle();
  assert.deepEqual(runs, ['a']);
});

test('the observer sees each add, wait, reconcile and retry, timed on the queue clock', async () => {
  const timers = new FakeTimers();
  const events: string[] = [];
  const queue = new WorkQueue<string>({
    concurrency: 1,
    timers,
    backoff: { baseMs: 1000, maxMs: 1000 },
    // 'a' takes 50ms and succeeds, 'b' fails after 10ms.
    reconcile: (key) =>
      new Promise((resolve, reject) =>
        timers.setTimeout(() => (key === 'b' ? reject(new Error('down')) : resolve(undefined)), key === 'b' ? 10 : 50),
      ),
    observer: {
      added: (depth) => events.push(`added depth=${depth}`),
      started: (depth, active, waitedMs) => events.push(`started depth=${depth} active=${active} waited=${waitedMs}`),
      finished: (active, outcome, durationMs) => events.push(`finished active=${active} ${outcome} in ${durationMs}`),
      retried: () => events.push('retried'),
    },
  });
  queue.add('a');
  queue.add('b');
  queue.add('b');
  queue.add('a');
  await timers.advance(110);
  assert.deepEqual(events, [
    'added depth=1',
    'started depth=0 active=1 waited=0',
    'added depth=1',
    'added depth=2', // 'a' again while running: waits until its reconcile ends
    'finished active=0 success in 50',
    'started depth=1 active=1 waited=50',
    'retried',
    'finished active=0 error in 10',
    'started depth=0 active=1 waited=60',
    'finished active=0 success in 50',
  ]);
  await queue.shutdown();
});
