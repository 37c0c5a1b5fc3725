// The figures collector's schedule: a source (here a build's backlog) is read at most once per poll
// interval, only with a token of the read budget, longest unread first; figures that are too old,
// or of a source that is gone, are not served.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Figures, FiguresCollector, type FiguresSource } from '../../src/controller/figures-collector.ts';
import type { TaskQueueFigures } from '../../src/domain/backlog.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { FakeTimers } from '../support/fake-timers.ts';

const POLL_MS = 10_000;

function world(
  buildIds: string[],
  onRead?: (read: Figures<TaskQueueFigures[]>, previous?: Figures<TaskQueueFigures[]>) => void,
) {
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
  const sources = (): FiguresSource<TaskQueueFigures[]>[] =>
    state.builds.map((buildId) => ({
      key: buildId,
      takeRead: () => (state.tokens >= 1 ? (state.tokens--, true) : false),
      read: () => {
        reads.push(buildId);
        return state.failing ? Promise.reject(new Error('unavailable')) : Promise.resolve(backlog(buildId));
      },
    }));
  const collector = new FiguresCollector({
    sources,
    pollIntervalMs: POLL_MS,
    log: silentLogger,
    timers,
    ...(onRead ? { onRead } : {}),
  });
  return { timers, reads, state, collector };
}

test('each build is read once per poll interval, and its figures are served with the time they were read', async () => {
  const { timers, reads, collector } = world(['v1', 'v2']);
  collector.start();
  await timers.advance(0);
  assert.deepEqual(reads, ['v1', 'v2']);
  assert.deepEqual(
    collector.fresh().map((f) => [f.key, f.readAt.getTime(), f.value[0]?.taskQueue]),
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
    collector.fresh().map((f) => f.key),
    ['v1', 'v2'],
    'failed reads leave the last figures while they are recent',
  );
  await timers.advance(15_000);
  assert.deepEqual(collector.fresh(), [], 'five intervals (at least two minutes) without a read: not fresh');
  assert.equal(collector.latest('v1')?.readAt.getTime(), 0, 'but still the latest read of a source listed');
  state.failing = false;
  await timers.advance(POLL_MS);
  state.builds = ['v2'];
  await timers.advance(POLL_MS);
  assert.deepEqual(
    collector.fresh().map((f) => f.key),
    ['v2'],
    'from the next look on, within an interval',
  );
  assert.equal(collector.latest('v1'), undefined, 'a source no longer listed keeps nothing');
  collector.stop();
});

test('each read is told with the figures it replaces', async () => {
  const told: [string, number | undefined, number | undefined][] = [];
  const { timers, collector } = world(['v1'], (read, previous) =>
    told.push([read.key, read.value[0]?.backlogCount, previous?.value[0]?.backlogCount]),
  );
  collector.start();
  await timers.advance(0);
  await timers.advance(POLL_MS);
  assert.deepEqual(told, [
    ['v1', 1, undefined],
    ['v1', 2, 1],
  ]);
  collector.stop();
});

test('an idle collector wakes when a source comes due, not every second; while the budget refuses, every tenth of an interval', async () => {
  const timers = new FakeTimers();
  let looks = 0;
  let tokens = Infinity;
  const source = (key: string, everyMs: number): FiguresSource<string> => ({
    key,
    takeRead: () => (tokens >= 1 ? (tokens--, true) : false),
    read: () => Promise.resolve(key),
    everyMs,
  });
  const collector = new FiguresCollector({
    sources: () => (looks++, [source('pollers', 15 * POLL_MS), source('queues', 180 * POLL_MS)]),
    pollIntervalMs: POLL_MS,
    log: silentLogger,
    timers,
  });
  collector.start();
  await timers.advance(0);
  looks = 0;
  await timers.advance(15 * POLL_MS);
  assert.equal(looks, 15, 'once an interval at the most while nothing comes due before');
  assert.equal(collector.latest('pollers')?.readAt.getTime(), 15 * POLL_MS, 'and at the time one comes due');
  tokens = 0;
  looks = 0;
  await timers.advance(15 * POLL_MS + 9000);
  assert.equal(looks, 15 + 9, 'refused its token when due: looked at again every tenth of an interval');
  collector.stop();
});

test('a source read less often than every interval waits that much longer for its turn when reads are short', async () => {
  const timers = new FakeTimers();
  const reads: string[] = [];
  let tokens = 0;
  const source = (key: string, everyMs?: number): FiguresSource<string> => ({
    key,
    takeRead: () => (tokens >= 1 ? (tokens--, true) : false),
    read: () => (reads.push(key), Promise.resolve(key)),
    ...(everyMs ? { everyMs } : {}),
  });
  const collector = new FiguresCollector({
    sources: () => [source('build'), source('pollers', 3 * POLL_MS)],
    pollIntervalMs: POLL_MS,
    log: silentLogger,
    timers,
  });
  tokens = 2;
  collector.start();
  await timers.advance(0);
  assert.deepEqual(reads, ['build', 'pollers']);
  // One read a poll interval: the build's comes due each time, the pollers' every third.
  for (let i = 0; i < 6; i++) {
    tokens = 1;
    await timers.advance(POLL_MS);
  }
  assert.deepEqual(reads.slice(2), ['build', 'build', 'build', 'pollers', 'build', 'build']);
  // However long reads stay short, the pollers take a quarter of them: read a third as often.
  for (let i = 0; i < 120; i++) {
    tokens = 1;
    await timers.advance(POLL_MS);
  }
  const share = reads.slice(8).filter((r) => r === 'pollers').length / 120;
  assert.ok(Math.abs(share - 0.25) < 0.02, `the pollers' share of the reads: ${share}`);
  collector.stop();
});

test('a source a rollout waits on is read before the others due, however long they waited', async () => {
  const timers = new FakeTimers();
  const reads: string[] = [];
  let tokens = 0;
  let rolloutWaits = false;
  const source = (key: string, everyMs?: number): FiguresSource<string> => ({
    key,
    takeRead: () => (tokens >= 1 ? (tokens--, true) : false),
    read: () => (reads.push(key), Promise.resolve(key)),
    ...(everyMs ? { everyMs } : {}),
    ...(key === 'pollers' && rolloutWaits ? { first: true } : {}),
  });
  const backlogs = ['a', 'b', 'c', 'd', 'e', 'f'].map((key) => source(key));
  const collector = new FiguresCollector({
    sources: () => [...backlogs, source('pollers', 3 * POLL_MS)],
    pollIntervalMs: POLL_MS,
    log: silentLogger,
    timers,
  });
  // One read an interval for six backlogs due every interval and pollers due every third.
  const pollersRead = async (intervals: number) => {
    const from = reads.length;
    for (let i = 0; i < intervals; i++) {
      tokens = 1;
      await timers.advance(POLL_MS);
    }
    return reads.slice(from).filter((r) => r === 'pollers').length;
  };
  collector.start();
  await pollersRead(30);
  assert.ok((await pollersRead(18)) <= 1, 'in turn: once its wait is as many of its intervals as theirs, six');
  rolloutWaits = true;
  assert.equal(await pollersRead(18), 6, 'first: every third interval, as soon as it is due');
  collector.stop();
});
