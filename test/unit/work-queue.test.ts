import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Timers, WorkQueue } from '../../src/runtime/work-queue.ts';

/** A clock that moves only when told to. */
class FakeTimers implements Timers {
  private time = 0;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();
  private next = 0;
  now = (): number => this.time;
  setTimeout = (callback: () => void, ms: number): unknown => {
    this.pending.set(++this.next, { at: this.time + ms, callback });
    return this.next;
  };
  clearTimeout = (handle: unknown): void => void this.pending.delete(handle as number);
  /** Moves time forward, firing what falls due in order. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function deferred(): { promise: Promise<undefined>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<undefined>((r) => (resolve = () => r(undefined)));
  return { promise, resolve };
}

test('a key added many times while waiting is reconciled once', async () => {
  const runs: string[] = [];
  const gate = deferred();
  const queue = new WorkQueue<string>({ concurrency: 1, reconcile: async (key) => (runs.push(key), key === 'blocker' ? gate.promise : undefined) });
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
  const queue = new WorkQueue<number>({ concurrency: 3, reconcile: async () => ((most = Math.max(most, ++running)), await gate.promise, running--, undefined) });
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
  const queue = new WorkQueue<string>({ concurrency: 1, timers, reconcile: () => (attempts.push(timers.now()), Promise.resolve({ requeueAfterMs: 30_000 })) });
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
  const queue = new WorkQueue<string>({ concurrency: 1, reconcile: async (key) => (runs.push(key), await gate.promise, undefined) });
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
