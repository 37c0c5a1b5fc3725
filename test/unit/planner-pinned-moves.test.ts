// The moves of pinned workflows onto the current build: when a round starts and what it reads,
// that only the runs a check found to replay are moved (by their IDs, under a job ID of the
// round), what is said of the others, when a round stops, fails or is followed by another, and
// how it holds the ladder.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CheckRun, MoveMemory, MoveObservation, PinnedRun } from '../../src/domain/pinned-move.ts';
import {
  MOVE_RETRY_MS,
  MOVE_SETTLE_MS,
  type MoveBuild,
  type MoveContext,
  moveJobId,
  moveReads,
  planMoves,
  replayCheckWorkflowId,
} from '../../src/planner/pinned-moves.ts';
import { batchJobIdPrefix, batchOperationOf } from '../../src/planner/pinned-workflows.ts';

const temporalName = 'shop/orders';
const now = new Date('2026-11-28T12:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const checkId = (queue: string, round = 1) => replayCheckWorkflowId(temporalName, 'v1', 'v2', round, queue);
const jobId = (round = 1) => moveJobId(temporalName, 'v1', 'v2', round);
const askedBy = 'spec.sunset.pinnedWorkflows.moveToCurrent';

function context(build: Partial<MoveBuild> = {}, more: Partial<MoveContext> = {}): MoveContext {
  return {
    now,
    temporalName,
    currentBuildId: 'v2',
    onto: { buildId: 'v2', workflowTaskQueues: ['orders', 'payments'] },
    builds: [{ buildId: 'v1', source: true, askedBy, running: 3, ladderBatchRunning: false, ...build }],
    ...more,
  };
}

const run = (id: string, taskQueue = 'orders'): PinnedRun => ({ workflowId: id, runId: `${id}-run`, taskQueue });
const nothingRead: MoveObservation = { runs: {}, checks: {}, batches: {} };
const listed = (...runs: PinnedRun[]): MoveObservation => ({ ...nothingRead, runs: { v1: runs } });

const checking = (more: Partial<MoveMemory> = {}): MoveMemory => ({
  to: 'v2',
  round: 1,
  phase: 'Checking',
  startedAt: now,
  checks: [{ taskQueue: 'orders', workflowId: checkId('orders') }],
  checked: 3,
  notMoved: 0,
  ...more,
});

const completedCheck = (results: CheckRun['results']): CheckRun => ({
  workflowId: checkId('orders'),
  runId: 'check-run',
  workflowType: 'replayCheck',
  pinnedTo: { deploymentName: temporalName, buildId: 'v2' },
  status: 'Completed',
  results,
});

test('IDs: the move batch sits under the ladder prefix of its build and says Move; each round and queue has its own check', () => {
  assert.ok(jobId().startsWith(batchJobIdPrefix(temporalName, 'v1')));
  assert.equal(batchOperationOf(jobId()), 'Move');
  assert.notEqual(jobId(1), jobId(2));
  assert.notEqual(moveJobId(temporalName, 'v1', 'v3', 1), jobId(1));
  assert.notEqual(checkId('orders'), checkId('payments'));
  assert.notEqual(checkId('orders', 1), checkId('orders', 2));
});

test('nothing is read, started or said without moveToCurrent, without a settled current build, or on a build the ladder is busy with', () => {
  for (const c of [
    context({ askedBy: undefined }),
    context({}, { onto: undefined }),
    context({ ladderBatchRunning: true }),
    context({ buildId: 'v2' }),
  ]) {
    assert.deepEqual(moveReads(c), { list: [], checks: [], batches: [] });
    const plan = planMoves(c, listed(run('a')));
    assert.deepEqual([plan.actions, plan.status, plan.notes], [[], {}, []]);
  }
});

test('a round lists the build, then starts one check per task queue pinned to the current build; runs on a queue it does not serve are named', () => {
  assert.deepEqual(moveReads(context()), { list: [{ buildId: 'v1', above: 0 }], checks: [], batches: [] });
  const plan = planMoves(context(), listed(run('a'), run('b', 'payments'), run('c', 'legacy'), run('d')));
  assert.deepEqual(
    plan.actions.map((a) => (a.action === 'startReplayCheck' ? [a.onto, a.taskQueue, a.workflowId, a.runs] : a)),
    [
      ['v2', 'orders', checkId('orders'), [run('a'), run('d')].map(({ workflowId, runId }) => ({ workflowId, runId }))],
      ['v2', 'payments', checkId('payments'), [{ workflowId: 'b', runId: 'b-run' }]],
    ],
  );
  const last = plan.actions.at(-1);
  assert.equal(last?.action, 'startReplayCheck');
  // The memory each start leaves holds the checks started so far: a start that fails leaves the round short, not wrong.
  assert.deepEqual(last.action === 'startReplayCheck' ? last.move : undefined, {
    to: 'v2',
    round: 1,
    phase: 'Checking',
    startedAt: now,
    checks: [
      { taskQueue: 'orders', workflowId: checkId('orders') },
      { taskQueue: 'payments', workflowId: checkId('payments') },
    ],
    checked: 4,
    notMoved: 1,
    notMovedRuns: [{ workflowId: 'c', runId: 'c-run', reason: 'no worker of build v2 polls task queue legacy' }],
  });
  // Until a start is carried out, the status keeps what it had (nothing); the ladder and the build's sunset wait.
  assert.deepEqual(plan.status, {});
  assert.ok(plan.holdsLadder.has('v1'));
  assert.deepEqual([...plan.underWay], ['v1']);
});

test('a round whose runs no worker of the current build serves ends at once, moving nothing', () => {
  const plan = planMoves(context(), listed(run('c', 'legacy')));
  assert.deepEqual(plan.actions, []);
  assert.equal(plan.status.v1?.phase, 'Done');
  assert.equal(plan.status.v1?.notMoved, 1);
  assert.equal(plan.notes[0]?.reason, 'PinnedWorkflowsNotMoved');
});

test('only the runs the check found to replay are moved, by their IDs, under the round job ID; the others are named with why', () => {
  const m = checking();
  assert.deepEqual(moveReads(context({ memory: m })).checks, [checkId('orders')]);
  const plan = planMoves(context({ memory: m }), {
    ...nothingRead,
    checks: {
      [checkId('orders')]: completedCheck([
        { workflowId: 'a', runId: 'a-run', replays: true },
        {
          workflowId: 'b',
          runId: 'b-run',
          replays: false,
          event: '5 ActivityTaskScheduled',
          message: '[TMPRL1100] nondeterminism',
        },
        { workflowId: 'c', runId: 'c-run', replays: false, skipped: 'history of 12 MiB, over maxHistoryBytes' },
      ]),
    },
  });
  assert.equal(plan.actions.length, 1);
  const start = plan.actions[0];
  assert.equal(start?.action, 'startMoveBatch');
  if (start?.action !== 'startMoveBatch') return;
  assert.deepEqual([start.jobId, start.onto, start.executions], [jobId(), 'v2', [{ workflowId: 'a', runId: 'a-run' }]]);
  assert.deepEqual(start.move.notMovedRuns, [
    {
      workflowId: 'b',
      runId: 'b-run',
      reason: 'does not replay on build v2 at event 5 ActivityTaskScheduled: [TMPRL1100] nondeterminism',
    },
    { workflowId: 'c', runId: 'c-run', reason: 'not checked: history of 12 MiB, over maxHistoryBytes' },
  ]);
  assert.equal(start.move.phase, 'Moving');
  assert.equal(start.move.batch?.total, 1);
  assert.match(
    start.reason,
    /moving 1 pinned workflow of build v1 onto build v2, whose code replays their histories; 2 workflows stay/,
  );
});

test('a check not yet done, or not read, waits; one that failed, hangs, is gone or is not ours fails the round', () => {
  const m = checking();
  const running = { ...completedCheck(undefined), status: 'Running' as const };
  for (const read of [undefined, running]) {
    const plan = planMoves(context({ memory: m }), {
      ...nothingRead,
      checks: read ? { [checkId('orders')]: read } : {},
    });
    assert.deepEqual([plan.actions, plan.status.v1], [[], m]);
    assert.ok(plan.holdsLadder.has('v1'));
  }
  const failures: [CheckRun | null, RegExp][] = [
    [null, /is gone from Temporal/],
    [
      { ...running, stuck: 'its workflow task fails: unknown workflow type replayCheck' },
      /cannot run: its workflow task fails/,
    ],
    [{ ...running, status: 'Failed', message: 'failed: InvalidCheckInput' }, /failed: failed: InvalidCheckInput/],
    [{ ...running, workflowType: 'somethingElse' }, /is not the controller's replay check/],
    [{ ...running, pinnedTo: { deploymentName: temporalName, buildId: 'v1' } }, /pinned to v1/],
  ];
  for (const [read, why] of failures) {
    const plan = planMoves(context({ memory: m }), { ...nothingRead, checks: { [checkId('orders')]: read } });
    assert.deepEqual(plan.actions, []);
    assert.equal(plan.status.v1?.phase, 'Failed');
    assert.match(plan.status.v1?.message ?? '', why);
    assert.equal(plan.notes[0]?.type, 'Warning');
    assert.equal(plan.outcomes.failedRounds, 1);
    // The ladder waits a moment more, and the round is tried again later.
    assert.ok(plan.holdsLadder.has('v1'));
    assert.deepEqual(plan.recheckAt, later(MOVE_SETTLE_MS));
  }
});

test('a failed round is tried again after the retry delay, as the next round', () => {
  const failed = checking({ phase: 'Failed', endedAt: now, message: 'x' });
  assert.deepEqual(moveReads(context({ memory: failed }, { now: later(MOVE_RETRY_MS - 1) })).list, []);
  const plan = planMoves(context({ memory: failed }, { now: later(MOVE_RETRY_MS) }), listed(run('a')));
  const start = plan.actions[0];
  assert.equal(start?.action === 'startReplayCheck' ? start.workflowId : undefined, checkId('orders', 2));
});

test('a move batch that completes ends the round, says what moved, and the next round waits for visibility to settle', () => {
  const batch = {
    jobId: jobId(),
    operation: 'Move' as const,
    state: 'Running' as const,
    total: 2,
    completed: 0,
    failed: 0,
  };
  const m = checking({ phase: 'Moving', batch, notMoved: 1 });
  assert.deepEqual(moveReads(context({ memory: m })).batches, [{ jobId: jobId(), operation: 'Move' }]);
  const done = { ...batch, state: 'Completed' as const, completed: 2 };
  const waiting = planMoves(context({ memory: m }), { ...nothingRead, batches: { [jobId()]: batch } });
  assert.deepEqual([...waiting.underWay], ['v1'], "the build's sunset waits for the batch's end");
  const plan = planMoves(context({ memory: m }), { ...nothingRead, batches: { [jobId()]: done } });
  assert.equal(plan.status.v1?.phase, 'Done');
  assert.deepEqual([...plan.underWay], [], 'ended: the build retires on its own delays');
  assert.deepEqual(plan.outcomes, { moved: 2, notMoved: 1, failedRounds: 0 });
  assert.match(
    plan.notes[0]?.message ?? '',
    /round 1 moved 2 pinned workflows of build v1 onto build v2; 1 workflow stays on build v1/,
  );
  const ended = plan.status.v1;
  assert.ok(ended);
  // Within the settle time the ladder still waits and no round is listed; after it, more than it left are worth a round.
  assert.ok(plan.holdsLadder.has('v1'));
  assert.deepEqual(moveReads(context({ memory: ended }, { now: later(MOVE_SETTLE_MS - 1) })).list, []);
  assert.deepEqual(moveReads(context({ memory: ended }, { now: later(MOVE_SETTLE_MS) })).list, [
    { buildId: 'v1', above: 1 },
  ]);
  const settled = context({ memory: ended, running: 1 }, { now: later(MOVE_SETTLE_MS) });
  assert.deepEqual(planMoves(settled, listed(run('b'))).actions, [], 'no more run than the round left: no round');
  assert.equal(planMoves(settled, listed(run('b'))).holdsLadder.has('v1'), false);
});

test('a round that moved nothing ends the moves onto that build; a new current build starts them again, once visibility settled', () => {
  const none = checking({ phase: 'Done', endedAt: now, notMoved: 3 });
  assert.deepEqual(moveReads(context({ memory: none }, { now: later(MOVE_RETRY_MS) })).list, []);
  const onV3 = (at: Date) =>
    context(
      { memory: none },
      { now: at, currentBuildId: 'v3', onto: { buildId: 'v3', workflowTaskQueues: ['orders'] } },
    );
  // The last round's moves may not show yet: its runs would be listed here again.
  assert.deepEqual(moveReads(onV3(later(MOVE_SETTLE_MS - 1))).list, []);
  assert.deepEqual(moveReads(onV3(later(MOVE_SETTLE_MS))).list, [{ buildId: 'v1', above: 0 }]);
});

test('a round under way stops when its build is active again, the build it moves onto is no longer current, or the spec drops the move', () => {
  const batch = {
    jobId: jobId(),
    operation: 'Move' as const,
    state: 'Running' as const,
    total: 2,
    completed: 1,
    failed: 0,
  };
  const moving = checking({ phase: 'Moving', batch });
  for (const c of [
    context({ memory: moving, source: false }),
    context({ memory: moving }, { currentBuildId: 'v1', onto: undefined }),
    context({ memory: moving, askedBy: undefined }),
  ]) {
    const plan = planMoves(c, { ...nothingRead, batches: { [jobId()]: batch } });
    assert.deepEqual(
      plan.actions.map((a) => [a.action, a.action === 'stopBatch' ? a.jobId : '']),
      [['stopBatch', jobId()]],
    );
    assert.equal(plan.status.v1?.phase, 'Failed');
    assert.match(plan.status.v1?.message ?? '', /^stopped: /);
  }
  // A batch that completed just before is a round done, not stopped.
  const done = { ...batch, state: 'Completed' as const, completed: 2 };
  const plan = planMoves(context({ memory: moving, source: false }), {
    ...nothingRead,
    batches: { [jobId()]: done },
  });
  assert.deepEqual([plan.actions, plan.status.v1?.phase], [[], 'Done']);
  // Checks are only reads: a round stopped while checking stops nothing in Temporal.
  const stopped = planMoves(context({ memory: checking() }, { currentBuildId: 'v3' }), nothingRead);
  assert.deepEqual([stopped.actions, stopped.status.v1?.phase], [[], 'Failed']);
});

test('reads that failed start nothing and say so', () => {
  const plan = planMoves(context(), {
    ...nothingRead,
    failure: 'cannot list the pinned workflows running on build v1: boom',
  });
  assert.deepEqual(plan.actions, []);
  assert.deepEqual(plan.notes, [
    {
      type: 'Warning',
      reason: 'PinnedWorkflowsUnread',
      message: 'cannot list the pinned workflows running on build v1: boom',
    },
  ]);
});
