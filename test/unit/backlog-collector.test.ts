// The backlog collector's schedule: a build is read at most once per poll interval, only with a
// token of the read budget, longest unread first; figures that are too old, or of a build that is
// gone, are not served.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BacklogBuild, BacklogCollector } from '../../src/controller/backlog-collector.ts';
import type { TaskQueueFigures } from '../../src/domain/backlog.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { FakeTimers } from '../support/fake-timers.ts';

const POLL_MS = 10_000;

function world(buildIds: string[]) {
  const timers = new FakeTimers();
  const reads: string[] = [];
  const state = { tokens: Infinity, builds: buildIds, failing: false };
  const backlog = (buildId: string): TaskQueueFigures[] => [
    {
      taskQueue: `orders-${buildId}`,
      type: 'workflow',
      backlogCount: reads.length,
      backlogAgeSeconds: 0,
      addRate: 0,
      dispatchRate: 0,
    },
  ];
  const builds = (): BacklogBuild[] =>
    state.builds.map((buildId) => ({
      build: { namespace: 'shop', workerDeployment: 'orders', buildId, pools: {} },
      takeRead: () => (state.tokens >= 1 ? (state.tokens--, true) : false),
      read: () => {
        reads.push(buildId);
        return state.failing ? Promise.reject(new Error('unavailable')) : Promise.resolve(backlog(buildId));
      },
    }));
  const collector = new BacklogCollector({ builds, pollIntervalMs: POLL_MS, log: silentLogger, timers });
  return { timers, reads, state, collector };
}

test('each build is read once per poll interval, and its figures are served with the time they were read', async () => {
  const { timers, reads, collector } = world(['v1', 'v2']);
  collector.start();
  await timers.advance(0);
  assert.deepEqual(reads, ['v1', 'v2']);
  assert.deepEqual(
    collector.figures().map((b) => [b.buildId, b.readAt.getTime(), b.queues[0]?.taskQueue]),
    [
      ['v1', 0, 'orders-v1'],
      ['v2', 0, 'orders-v2'],
    ],
  );
  await timers.advance(POLL_MS - 1);
  assert.equal(reads.length, 2, 'not again within the interval');
  await timers.advance(1000);
  assert.deepEqual(reads, ['v1', 'v2', 'v1', 'v2'], 'again within a tenth of an interval after it');
  await timers.advance(10 * POLL_MS);
  assert.equal(reads.length, 4 + 20, 'one read per build per interval, however long it runs');
  collector.stop();
});

test('without a token nothing is read; the builds unread longest go first when tokens come', async () => {
  const { timers, reads, state, collector } = world(['v1', 'v2', 'v3']);
  state.tokens = 1;
  collector.start();
  await timers.advance(0);
  assert.deepEqual(reads, ['v1']);
  await timers.advance(3000);
  assert.deepEqual(reads, ['v1'], 'no token, no read');
  state.tokens = 1;
  await timers.advance(1000);
  state.tokens = 1;
  await timers.advance(1000);
  assert.deepEqual(reads, ['v1', 'v2', 'v3']);
  state.tokens = 1;
  await timers.advance(POLL_MS);
  assert.deepEqual(reads, ['v1', 'v2', 'v3', 'v1'], 'the one read longest ago');
  collector.stop();
});

test('figures too old to act on, or of a build no longer listed, are not served', async () => {
  const { timers, state, collector } = world(['v1', 'v2']);
  collector.start();
  await timers.advance(0);
  state.failing = true;
  await timers.advance(110_000);
  assert.deepEqual(
    collector.figures().map((b) => b.buildId),
    ['v1', 'v2'],
    'failed reads leave the last figures while they are recent',
  );
  await timers.advance(15_000);
  assert.deepEqual(collector.figures(), [], 'five intervals (at least two minutes) without a read: gone');
  state.failing = false;
  await timers.advance(POLL_MS);
  state.builds = ['v2'];
  await timers.advance(1000);
  assert.deepEqual(
    collector.figures().map((b) => b.buildId),
    ['v2'],
  );
  collector.stop();
});
