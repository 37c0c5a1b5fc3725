import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TokenBucket } from '../../src/runtime/token-bucket.ts';
import { FakeTimers } from '../support/fake-timers.ts';

test('a full bucket gives its burst at once, then one token per 1/rate, each borrower waiting behind the last', () => {
  const timers = new FakeTimers();
  const bucket = new TokenBucket({ perSecond: 4, burst: 2 }, timers);
  assert.deepEqual([bucket.take(), bucket.take()], [0, 0]);
  assert.equal(bucket.msUntilAvailable(), 250);
  assert.deepEqual([bucket.take(), bucket.take(), bucket.take()], [250, 500, 750]);
  assert.equal(bucket.msUntilAvailable(), 1000, 'a token is free only once the debt is paid');
});

test('tokens come back with time, never beyond the burst', async () => {
  const timers = new FakeTimers();
  const bucket = new TokenBucket({ perSecond: 10, burst: 3 }, timers);
  for (let i = 0; i < 3; i++) bucket.take();
  await timers.advance(150);
  assert.equal(bucket.take(), 0, '1.5 tokens came back');
  assert.equal(bucket.take(), 50, 'half of one is left: 50 ms to the next');
  await timers.advance(10_000);
  assert.deepEqual([bucket.take(), bucket.take(), bucket.take(), bucket.take()], [0, 0, 0, 100]);
});

test('a rate below one a second spaces tokens seconds apart', () => {
  const timers = new FakeTimers();
  const bucket = new TokenBucket({ perSecond: 0.5, burst: 1 }, timers);
  assert.deepEqual([bucket.take(), bucket.take(), bucket.take()], [0, 2000, 4000]);
});
