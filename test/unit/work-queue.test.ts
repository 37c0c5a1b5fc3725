import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ReconcileResult, ReconcileTimeoutError, WorkQueue } from '../../src/runtime/work-queue.ts';
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
    reconcile: (key, _priority, _signal, waitedMs) => {
      events.push(`reconcile ${key} after ${waitedMs}`);
      return new Promise((resolve, reject) =>
        timers.setTimeout(() => (key === 'b' ? reject(new Error('down')) : resolve(undefined)), key === 'b' ? 10 : 50),
      );
    },
    observer: {
      added: (depth) => events.push(`added depth=${depth}`),
      started: (depth, active, waitedMs) => events.push(`started depth=${depth} active=${active} waited=${waitedMs}`),
      finished: (active, outcome, durationMs) => events.push(`finished active=${active} ${outcome} in ${durationMs}`),
      retried: () => events.push('retried'),
      timedOut: () => events.push('timed out'),
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
    'reconcile a after 0',
    'added depth=1',
    'added depth=2', // 'a' again while running: waits until its reconcile ends
    'finished active=0 success in 50',
    'started depth=1 active=1 waited=50',
    'reconcile b after 50',
    'retried',
    'finished active=0 error in 10',
    'started depth=0 active=1 waited=60',
    'reconcile a after 60',
    'finished active=0 success in 50',
  ]);
  await queue.shutdown();
});

/** A queue of one worker held by 'blocker' until `release`, recording each key with the lane it was taken from. */
function heldQueue(timers: FakeTimers, result: (key: string) => ReconcileResult = () => undefined) {
  const runs: string[] = [];
  const gate = deferred();
  const queue = new WorkQueue<string>({
    concurrency: 1,
    timers,
    reconcile: async (key, priority) => {
      runs.push(`${key} ${priority}`);
      if (key === 'blocker') await gate.promise;
      return result(key);
    },
  });
  queue.add('blocker');
  return { queue, runs, release: gate.resolve };
}

test('a key an event adds is taken before keys that came back after their delay', async () => {
  const timers = new FakeTimers();
  const { queue, runs, release } = heldQueue(timers);
  for (const key of ['a', 'b', 'c']) queue.addAfter(key, 10, 'low');
  await timers.advance(10);
  queue.add('change');
  release();
  await timers.advance(0);
  await settle();
  assert.deepEqual(runs, ['blocker high', 'change high', 'a low', 'b low', 'c low']);
  await queue.shutdown();
});

test('a low key added again by an event moves to the high lane, and runs once', async () => {
  const timers = new FakeTimers();
  const { queue, runs, release } = heldQueue(timers);
  for (const key of ['a', 'b', 'c']) queue.addAfter(key, 10, 'low');
  await timers.advance(10);
  queue.add('c');
  queue.add('c');
  release();
  await settle();
  assert.deepEqual(runs, ['blocker high', 'c high', 'a low', 'b low']);
  await queue.shutdown();
});

test('while low keys wait, one is taken after every four high ones: changes slow routine looks, never stop them', async () => {
  const timers = new FakeTimers();
  const { queue, runs, release } = heldQueue(timers);
  for (const key of ['low1', 'low2']) queue.addAfter(key, 10, 'low');
  await timers.advance(10);
  for (let i = 1; i <= 6; i++) queue.add(`high${i}`);
  release();
  await settle();
  assert.deepEqual(
    runs.map((r) => r.split(' ')[0]),
    ['blocker', 'high1', 'high2', 'high3', 'high4', 'low1', 'high5', 'high6', 'low2'],
  );
  await queue.shutdown();
});

test("a rollout's progress goes before other changes: top keys first, a waiting key added top moves up, low keys keep their share", async () => {
  const timers = new FakeTimers();
  const { queue, runs, release } = heldQueue(timers);
  for (const key of ['low1', 'low2']) queue.addAfter(key, 10, 'low');
  await timers.advance(10);
  for (const key of ['spec1', 'spec2', 'spec3']) queue.add(key);
  queue.add('available1', 'top');
  queue.add('spec3', 'top');
  queue.add('available2', 'top');
  queue.add('available1', 'high');
  queue.add('available3', 'top');
  release();
  await settle();
  assert.deepEqual(runs, [
    'blocker high',
    'available1 top',
    'spec3 top',
    'available2 top',
    'available3 top',
    'low1 low',
    'spec1 high',
    'spec2 high',
    'low2 low',
  ]);
  await queue.shutdown();
});

test('a top key added while it runs runs again top; a top reconcile that asks to run again at once, or high later, stays top', async () => {
  const timers = new FakeTimers();
  const asked: Record<string, ReconcileResult> = {
    unfinished: { requeueAfterMs: 0 },
    due: { requeueAfterMs: 5, priority: 'high' },
    routine: { requeueAfterMs: 5 },
  };
  const once = new Set<string>();
  const { queue, runs, release } = heldQueue(timers, (key) =>
    once.has(key) ? undefined : (once.add(key), asked[key]),
  );
  for (const key of Object.keys(asked)) queue.add(key, 'top');
  queue.add('blocker', 'top');
  queue.add('other');
  release();
  await settle();
  await timers.advance(5);
  await settle();
  assert.deepEqual(runs, [
    'blocker high',
    'unfinished top',
    'due top',
    'routine top',
    'blocker top',
    'unfinished top',
    'other high',
    'due top',
    'routine low',
  ]);
  await queue.shutdown();
});

test('a timed requeue comes back low unless its reconcile asks for high; again at once is high', async () => {
  const timers = new FakeTimers();
  const asked: Record<string, ReconcileResult> = {
    routine: { requeueAfterMs: 100 },
    rollout: { requeueAfterMs: 100, priority: 'high' },
    unfinished: { requeueAfterMs: 0 },
  };
  const once = new Set<string>();
  const { queue, runs, release } = heldQueue(timers, (key) =>
    once.has(key) ? undefined : (once.add(key), asked[key]),
  );
  release();
  for (const key of Object.keys(asked)) queue.add(key, 'low');
  await settle();
  await timers.advance(100);
  await settle();
  assert.deepEqual(runs, [
    'blocker high',
    'routine low',
    'rollout low',
    'unfinished low',
    'unfinished high',
    'routine low',
    'rollout high',
  ]);
  await queue.shutdown();
});

test('of two delays asked for one key, the earlier time wins, in the higher lane', async () => {
  const timers = new FakeTimers();
  const { queue, runs, release } = heldQueue(timers);
  release();
  await settle();
  queue.addAfter('a', 10, 'low');
  queue.addAfter('a', 50, 'high');
  queue.addAfter('b', 10, 'high');
  queue.addAfter('b', 5, 'low');
  await timers.advance(10);
  await settle();
  assert.deepEqual(runs, ['blocker high', 'b high', 'a high']);
  await timers.advance(100);
  assert.equal(runs.length, 3, 'each ran once');
  await queue.shutdown();
});

test('a reconcile that hangs past its timeout gives its slot to the next key; its key is retried once that reconcile stopped', async () => {
  const timers = new FakeTimers();
  const runs: string[] = [];
  const errors: string[] = [];
  const events: string[] = [];
  const hung = deferred();
  let hungSignal: AbortSignal | undefined;
  const queue = new WorkQueue<string>({
    concurrency: 1,
    timers,
    timeoutMs: 60_000,
    reconcile: async (key, _priority, signal) => {
      runs.push(key);
      if (key === 'hung' && !hungSignal) {
        hungSignal = signal;
        await hung.promise;
      }
      return undefined;
    },
    onError: (key, error) => errors.push(`${key}: ${(error as Error).message}`),
    observer: {
      added: () => {},
      started: () => {},
      finished: (active, outcome) => events.push(`finished active=${active} ${outcome}`),
      retried: () => events.push('retried'),
      timedOut: () => events.push('timed out'),
    },
  });
  queue.add('hung');
  queue.add('a');
  queue.add('b');
  await timers.advance(59_999);
  assert.deepEqual(runs, ['hung'], 'until its timeout, the hung reconcile holds the only slot');
  await timers.advance(1);
  assert.deepEqual(runs, ['hung', 'a', 'b'], 'then the others run');
  assert.ok(hungSignal?.aborted, 'and its signal tells the hung one to stop');
  assert.ok(hungSignal.reason instanceof ReconcileTimeoutError);
  assert.deepEqual(errors, ['hung: the reconcile of hung ran past its timeout of 60s']);
  assert.deepEqual(events.slice(0, 3), ['retried', 'timed out', 'finished active=0 error']);
  queue.add('hung');
  await timers.advance(10_000);
  assert.deepEqual(runs, ['hung', 'a', 'b'], 'a key is never reconciled twice at once: not while the cut-off one runs');
  hung.resolve();
  await settle();
  assert.deepEqual(runs, ['hung', 'a', 'b', 'hung'], 'once it stopped, its key runs again');
  await queue.shutdown();
});
