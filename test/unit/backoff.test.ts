import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Backoff } from '../../src/runtime/backoff.ts';

test('delays double per failure of a key up to the cap, and a reset starts over', () => {
  const backoff = new Backoff<string>({ baseMs: 100, maxMs: 1000 });
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map(() => backoff.next('a')),
    [100, 200, 400, 800, 1000, 1000],
  );
  assert.equal(backoff.next('b'), 100, 'keys count apart');
  backoff.reset('a');
  assert.equal(backoff.next('a'), 100);
});

test('jitter moves each delay by at most its fraction either way', () => {
  const draws = [0, 1, 0.5];
  const backoff = new Backoff<string>({ baseMs: 1000, maxMs: 1000, jitter: 0.2, random: () => draws.shift() ?? 0.5 });
  assert.deepEqual([backoff.next('a'), backoff.next('a'), backoff.next('a')], [800, 1200, 1000]);
});
