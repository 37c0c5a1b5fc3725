// When `npm start` restarts its controller and when it gives up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { afterExit, MAX_RESTARTS, RESTART_WINDOW_MS } from '../../dev/localenv/controller-supervisor.ts';

const now = new Date('2026-11-23T12:00:00Z');
const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000);

test('a controller that exits is restarted, up to MAX_RESTARTS times within the window', () => {
  assert.equal(MAX_RESTARTS, 3);
  assert.equal(RESTART_WINDOW_MS, 60_000);
  assert.equal(afterExit([now], now), 'restart');
  assert.equal(afterExit([secondsAgo(20), secondsAgo(10), now], now), 'restart');
  assert.equal(afterExit([secondsAgo(30), secondsAgo(20), secondsAgo(10), now], now), 'give up');
});

test('exits older than the window do not count', () => {
  assert.equal(afterExit([secondsAgo(300), secondsAgo(200), secondsAgo(60), now], now), 'restart');
  assert.equal(afterExit([secondsAgo(59), secondsAgo(40), secondsAgo(10), now], now), 'give up');
});
