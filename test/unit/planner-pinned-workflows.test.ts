// The pinned-workflow ladder's decisions: which counts and batches it reads, which batch it starts
// (once per step, build and that step's own spec), what it never starts on a guess, and the status it keeps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PinnedWorkflowsLadder } from '../../src/api/temporal-worker-deployment.ts';
import type { LadderObservation } from '../../src/domain/observation.ts';
import type { BatchProgress } from '../../src/domain/snapshot.ts';
import {
  batchJobId,
  batchJobIdPrefix,
  batchOperationOf,
  type LadderBuild,
  type LadderContext,
  ladderReads,
  planLadder,
} from '../../src/planner/pinned-workflows.ts';

const temporalName = 'shop/orders';
const deactivatedAt = new Date('2026-11-25T10:00:00Z');
const at = (seconds: number) => new Date(deactivatedAt.getTime() + seconds * 1000);
const ladder: PinnedWorkflowsLadder = {
  signalAfter: '1m',
  signalName: 'ContinueAsNewRequested',
  cancelAfter: '10m',
  terminateAfter: '1h',
  reason: 'build v1 retired',
};
const signalJob = batchJobId(temporalName, 'v1', 'Signal', ladder);

function context(now: Date, more: Partial<LadderContext> = {}, build: Partial<LadderBuild> = {}): LadderContext {
  return {
    now,
    ladder,
    temporalName,
    builds: [{ buildId: 'v1', deactivatedAt, ...build }],
    reactivated: [],
    ...more,
  };
}

function observed(more: Partial<LadderObservation> = {}): LadderObservation {
  return { running: { v1: 2 }, batches: {}, ...more };
}

const completed = (jobId: string): BatchProgress => ({
  jobId,
  operation: 'Signal',
  state: 'Completed',
  total: 2,
  completed: 2,
  failed: 0,
});

test('without a ladder, or with one that sets no step, nothing is read, done or said', () => {
  for (const none of [undefined, { signalName: 'X' }]) {
    const c = context(at(7200), { ladder: none });
    assert.deepEqual(ladderReads(c), { count: [], batches: [], listed: [] });
    assert.deepEqual(planLadder(c, observed()), { actions: [], status: {}, notes: [] });
  }
});

test('before the first step: the workflows are counted, nothing is started, and the plan looks again when the step comes', () => {
  const c = context(at(30));
  assert.deepEqual(ladderReads(c), { count: ['v1'], batches: [], listed: [] });
  assert.deepEqual(planLadder(c, observed()), {
    actions: [],
    status: { v1: { step: 'Waiting', running: 2, countedAt: at(30), nextStepAt: at(60) } },
    notes: [],
    recheckAt: at(60),
  });
});

test('at signalAfter, a batch Temporal does not know is started with the signal, on the build’s running workflows', () => {
  const c = context(at(61));
  assert.deepEqual(ladderReads(c), { count: ['v1'], batches: [{ jobId: signalJob, operation: 'Signal' }], listed: [] });
  const plan = planLadder(c, observed({ batches: { [signalJob]: null } }));
  assert.equal(plan.actions.length, 1);
  assert.partialDeepStrictEqual(plan.actions[0], {
    action: 'startBatch',
    buildId: 'v1',
    operation: 'Signal',
    // The step's own spec, canonically hashed: stable across releases, so a restart finds its batch.
    jobId: 'temporal-worker-controller/pinned-workflows/shop/orders/v1/signal/87b1802b7c',
    query:
      "(TemporalWorkerDeploymentVersion = 'shop/orders:v1') AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'",
    signalName: 'ContinueAsNewRequested',
  });
  const start = plan.actions[0];
  assert.ok(start?.action === 'startBatch');
  assert.match(
    start.reason,
    /since 2026-11-25T10:00:00.000Z, longer than spec.sunset.pinnedWorkflows.signalAfter \(1m\)/,
  );
  assert.match(start.reason, /sending ContinueAsNewRequested to its 2 running workflows/);
  assert.doesNotMatch(start.batchReason, /retired/, "the spec's reason goes with cancellations and terminations");
  assert.deepEqual(plan.status.v1, { step: 'Signal', running: 2, countedAt: at(61), nextStepAt: at(600) });
});

test('cancellation and termination carry the spec’s reason; without one, the ladder’s own', () => {
  const cancel = planLadder(
    context(at(601)),
    observed({ batches: { [batchJobId(temporalName, 'v1', 'Cancel', ladder)]: null } }),
  );
  assert.partialDeepStrictEqual(cancel.actions, [
    { action: 'startBatch', operation: 'Cancel', batchReason: 'build v1 retired' },
  ]);
  const terminateJob = batchJobId(temporalName, 'v1', 'Terminate', { terminateAfter: '1h' });
  const terminate = planLadder(
    context(at(3601), { ladder: { terminateAfter: '1h' } }),
    observed({ batches: { [terminateJob]: null } }),
  );
  const start = terminate.actions[0];
  assert.ok(start?.action === 'startBatch' && start.operation === 'Terminate');
  assert.match(start.batchReason, /^build v1 of Worker Deployment shop\/orders has not been current or ramping since/);
  assert.equal(terminate.recheckAt, undefined, 'no step left');
});

test('no batch is started with nothing running, without a fresh count, or when a read failed', () => {
  const unknown = { batches: { [signalJob]: null } };
  const cases: [string, LadderObservation][] = [
    ['nothing running', observed({ ...unknown, running: { v1: 0 } })],
    ['not counted', observed({ ...unknown, running: {} })],
    ['a read failed', observed({ ...unknown, failure: 'cannot read batch operation x: refused' })],
  ];
  for (const [what, seen] of cases) assert.deepEqual(planLadder(context(at(61)), seen).actions, [], what);
  assert.deepEqual(planLadder(context(at(61)), cases[2]![1]).notes, [
    { type: 'Warning', reason: 'PinnedWorkflowsUnread', message: 'cannot read batch operation x: refused' },
  ]);
  const uncounted = planLadder(context(at(61), {}, { memory: { running: 5, countedAt: at(20) } }), cases[1]![1]);
  assert.partialDeepStrictEqual(uncounted.status.v1, { running: 5, countedAt: at(20) }, 'the last count is kept');
});

test('a batch Temporal already has (a restart lost the status) is read, not started again; its end is said once', () => {
  const running: BatchProgress = { ...completed(signalJob), state: 'Running', completed: 0 };
  const found = planLadder(context(at(70)), observed({ batches: { [signalJob]: running } }));
  assert.deepEqual(found.actions, []);
  assert.deepEqual(found.status.v1?.batch, running);
  assert.deepEqual(found.notes, []);

  const ended = planLadder(
    context(at(80), {}, { memory: { batch: running } }),
    observed({ batches: { [signalJob]: completed(signalJob) } }),
  );
  assert.deepEqual(ended.notes, [
    {
      reason: 'BatchOperationFinished',
      message: `Signal batch ${signalJob} on build v1 finished: 2 of 2 workflows done, 0 failed`,
    },
  ]);
  const remembered = context(at(90), {}, { memory: { batch: completed(signalJob) } });
  assert.deepEqual(ladderReads(remembered).batches, [], 'an ended batch is not read again');
  assert.deepEqual(planLadder(remembered, observed()), {
    actions: [],
    status: {
      v1: { step: 'Signal', running: 2, countedAt: at(90), nextStepAt: at(600), batch: completed(signalJob) },
    },
    notes: [],
    recheckAt: at(600),
  });
});

test("a change of the step's own spec runs it again, under a job ID of its own; a change of another step does not", () => {
  const resignalled = { ...ladder, signalName: 'MoveOn' };
  const next = context(at(90), { ladder: resignalled }, { memory: { batch: completed(signalJob) } });
  const nextJob = batchJobId(temporalName, 'v1', 'Signal', resignalled);
  assert.notEqual(nextJob, signalJob);
  assert.deepEqual(ladderReads(next).batches, [{ jobId: nextJob, operation: 'Signal' }]);
  assert.partialDeepStrictEqual(planLadder(next, observed({ batches: { [nextJob]: null } })).actions, [
    { action: 'startBatch', jobId: nextJob },
  ]);
  const laterTermination = { ...ladder, terminateAfter: '2h' };
  assert.equal(batchJobId(temporalName, 'v1', 'Signal', laterTermination), signalJob);
  const same = context(at(90), { ladder: laterTermination }, { memory: { batch: completed(signalJob) } });
  assert.deepEqual(ladderReads(same).batches, [], 'the signal step ended under its own spec');
});

test('a build current, ramping or the target again has its running batch read, stopped and remembered until Temporal says it ended', () => {
  const batch: BatchProgress = { ...completed(signalJob), state: 'Running' };
  const active = context(at(70), { builds: [], reactivated: [{ buildId: 'v1', batch }] });
  assert.deepEqual(ladderReads(active), {
    count: [],
    batches: [{ jobId: signalJob, operation: 'Signal' }],
    listed: [],
  });
  const plan = planLadder(active, observed({ batches: { [signalJob]: batch } }));
  assert.partialDeepStrictEqual(plan.actions, [{ action: 'stopBatch', buildId: 'v1', jobId: signalJob }]);
  assert.deepEqual(plan.status, { v1: { step: 'Signal', batch } }, 'no ladder, only the batch');
  const unread = planLadder(active, observed({ failure: 'refused' }));
  assert.partialDeepStrictEqual(unread.actions, [{ action: 'stopBatch', jobId: signalJob }], 'stopped unread');
  for (const ended of [completed(signalJob), null]) {
    const after = planLadder(active, observed({ batches: { [signalJob]: ended } }));
    assert.deepEqual([after.actions, after.status], [[], {}], 'forgotten once it ended');
  }
});

test('a batch the status does not remember on a build active again is looked for by job ID and in the list, and stopped only if it runs', () => {
  const active = context(at(70), { builds: [], suspect: 'v1' });
  const cancelJob = batchJobId(temporalName, 'v1', 'Cancel', ladder);
  const terminateJob = batchJobId(temporalName, 'v1', 'Terminate', ladder);
  assert.deepEqual(ladderReads(active), {
    count: [],
    batches: [
      { jobId: signalJob, operation: 'Signal' },
      { jobId: cancelJob, operation: 'Cancel' },
      { jobId: terminateJob, operation: 'Terminate' },
    ],
    listed: ['v1'],
  });
  const running: BatchProgress = { ...completed(signalJob), state: 'Running' };
  const plan = planLadder(active, observed({ batches: { [signalJob]: running } }));
  assert.partialDeepStrictEqual(plan.actions, [{ action: 'stopBatch', buildId: 'v1', jobId: signalJob }]);
  assert.deepEqual(plan.status, { v1: { step: 'Signal', batch: running } }, 'remembered until Temporal says it ended');
  for (const none of [completed(signalJob), null, undefined]) {
    const after = planLadder(active, observed({ batches: none === undefined ? {} : { [signalJob]: none } }));
    assert.deepEqual([after.actions, after.status], [[], {}], 'ended, never started, or not read: nothing to stop');
  }

  // Started under an earlier spec of the ladder (another job ID), or with no ladder left in the spec: listed.
  const earlierJob = batchJobId(temporalName, 'v1', 'Cancel', { cancelAfter: '3m' });
  const earlier: BatchProgress = { ...completed(earlierJob), operation: 'Cancel', state: 'Running' };
  for (const spec of [ladder, undefined]) {
    const c = context(at(70), { builds: [], suspect: 'v1', ladder: spec });
    assert.deepEqual(ladderReads(c).listed, ['v1']);
    const listed = planLadder(c, observed({ listed: [earlierJob], batches: { [earlierJob]: earlier } }));
    assert.deepEqual(
      listed.actions.map((a) => [a.action, a.jobId]),
      [['stopBatch', earlierJob]],
    );
    assert.deepEqual(listed.status, { v1: { step: 'Cancel', batch: earlier } });
  }
  const two = planLadder(
    active,
    observed({ listed: [earlierJob], batches: { [signalJob]: running, [earlierJob]: earlier } }),
  );
  assert.deepEqual(
    two.actions.map((a) => a.jobId),
    [signalJob, earlierJob],
    'every one running is stopped',
  );
  assert.deepEqual(two.status, { v1: { step: 'Signal', batch: running } }, 'one remembered');
});

test('a job ID of the ladder says its build (by prefix) and its operation', () => {
  const cancelJob = batchJobId(temporalName, 'v1', 'Cancel', ladder);
  assert.ok(cancelJob.startsWith(batchJobIdPrefix(temporalName, 'v1')));
  assert.ok(!batchJobId(temporalName, 'v10', 'Cancel', ladder).startsWith(batchJobIdPrefix(temporalName, 'v1')));
  assert.equal(batchOperationOf(cancelJob), 'Cancel');
  assert.equal(batchOperationOf(signalJob), 'Signal');
  assert.equal(batchOperationOf(batchJobId(temporalName, 'v1', 'Terminate', ladder)), 'Terminate');
  assert.equal(batchOperationOf(`${batchJobIdPrefix(temporalName, 'v1')}reset/abc`), undefined);
});
