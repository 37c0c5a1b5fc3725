import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ofOwnedResource } from '../../src/controller/owned-resources.ts';
import { Backoff, RetrySchedule } from '../../src/runtime/backoff.ts';

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

test("a twor's copies are forgotten when it or its worker deployment is deleted, and no other's", () => {
  const retries = new RetrySchedule<string>(new Backoff({ baseMs: 1000, maxMs: 60_000 }));
  const keys = [
    'shop/metrics/orders-v1-metrics',
    'shop/metrics-2/orders-v1-metrics-2',
    'other/metrics/orders-v1-metrics',
  ];
  for (const key of keys) retries.failed(key, 0);
  retries.forgetWhere(ofOwnedResource('shop', 'metrics'));
  assert.deepEqual(
    keys.map((key) => retries.due(key, 1)),
    [true, false, false],
  );
  assert.equal(retries.failed(keys[0]!, 1), 1000, 'its backoff starts over');
  assert.equal(retries.failed(keys[1]!, 1), 2000, "another's goes on");
});
