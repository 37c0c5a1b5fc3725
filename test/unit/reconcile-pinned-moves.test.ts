// spec.sunset.pinnedWorkflows.moveToCurrent through the adapter interfaces, asserting the exact
// calls (see test/support/recorded-world.ts): a round lists the old build's pinned workflows and
// starts the replay check pinned to the current build while the ladder's due step waits; the next
// reconcile moves exactly the runs that replay; the status says what stayed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { MOVE_ROUND_RUNS, moveJobId, replayCheckWorkflowId } from '../../src/planner/pinned-moves.ts';
import { batchJobId, batchJobIdPrefix } from '../../src/planner/pinned-workflows.ts';
import {
  connection,
  deployment,
  IDENTITY,
  NAMESPACE,
  recordedReconcile,
  TASK_QUEUE,
  workerDeployment,
  type World,
} from '../support/recorded-world.ts';

const now = new Date('2026-11-28T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const temporalName = `${NAMESPACE}/orders`;
const ladder = { signalAfter: '1m', moveToCurrent: true };
const checkId = replayCheckWorkflowId(temporalName, 'v1', 'v2', 1, TASK_QUEUE);
const signalJob = batchJobId(temporalName, 'v1', 'Signal', ladder);
const progressive = { strategy: 'Progressive' as const, steps: [{ rampPercentage: 10, pauseDuration: '5m' }] };
const temporalCalls = (calls: string[]) => calls.filter((c) => c.startsWith('temporal.'));

/** v2 current and the target since 4 minutes, v1 draining with three pinned workflows. */
function world(status?: TemporalWorkerDeployment['status']): World {
  const owner = workerDeployment(
    { buildId: 'v2', sunset: { pinnedWorkflows: ladder } },
    {},
    status ?? {
      currentVersion: {
        buildID: 'v2',
        status: 'Current',
        taskQueues: [
          { name: TASK_QUEUE, type: 'workflow' },
          { name: TASK_QUEUE, type: 'activity' },
        ],
      },
      deprecatedVersions: [{ buildID: 'v1', status: 'Draining', lastCurrentTime: minutesAgo(4).toISOString() }],
    },
  );
  return {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [
      deployment(owner, 'v1', { since: minutesAgo(120) }),
      deployment(owner, 'v2', { since: minutesAgo(10) }),
    ],
    temporal: {
      exists: true,
      currentBuildId: 'v2',
      managerIdentity: IDENTITY,
      versions: [
        {
          buildId: 'v1',
          status: 'Draining',
          everActive: true,
          lastCurrentAt: minutesAgo(4),
          deactivatedAt: minutesAgo(4),
        },
        { buildId: 'v2', status: 'Current', everActive: true },
      ],
    },
    runningWorkflows: { v1: 3 },
    pinnedRuns: {
      v1: ['a', 'b', 'c'].map((id) => ({ workflowId: id, runId: `${id}-run`, taskQueue: TASK_QUEUE })),
    },
  };
}

test('a round starts the replay check pinned to the current build, and the ladder step due on the build waits for it', async () => {
  const run = await recordedReconcile(world());
  assert.deepEqual(temporalCalls(run.calls), [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    `temporal.describeBatch ${signalJob}`,
    `temporal.listPinnedRuns v1 (${MOVE_ROUND_RUNS})`,
    `temporal.startReplayCheck ${checkId} on ${TASK_QUEUE} pinned to v2: a,b,c`,
  ]);
  const move = run.status?.deprecatedVersions?.find((v) => v.buildID === 'v1')?.pinnedWorkflows?.move;
  assert.deepEqual(move, {
    to: 'v2',
    round: 1,
    phase: 'Checking',
    startedAt: now.toISOString(),
    checks: [{ taskQueue: TASK_QUEUE, workflowID: checkId }],
    checked: 3,
    notMoved: 0,
  });
});

test('the next reconcile moves exactly the runs that replay, and the status names the one that does not', async () => {
  const first = await recordedReconcile(world());
  const next: World = {
    ...world(first.status),
    replayChecks: {
      [checkId]: {
        workflowId: checkId,
        runId: 'check-run',
        workflowType: 'replayCheck',
        pinnedTo: { deploymentName: temporalName, buildId: 'v2' },
        status: 'Completed',
        results: [
          { workflowId: 'a', runId: 'a-run', replays: true },
          {
            workflowId: 'b',
            runId: 'b-run',
            replays: false,
            event: '5 ActivityTaskScheduled',
            message: '[TMPRL1100] nondeterminism',
          },
          { workflowId: 'c', runId: 'c-run', replays: true },
        ],
      },
    },
  };
  const run = await recordedReconcile(next);
  const job = moveJobId(temporalName, 'v1', 'v2', 1);
  assert.deepEqual(temporalCalls(run.calls), [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    `temporal.describeBatch ${signalJob}`,
    `temporal.readReplayCheck ${checkId}`,
    `temporal.startBatch Move ${job} onto v2: a,c`,
  ]);
  const move = run.status?.deprecatedVersions?.find((v) => v.buildID === 'v1')?.pinnedWorkflows?.move;
  assert.equal(move?.phase, 'Moving');
  assert.equal(move?.batch?.jobID, job);
  assert.deepEqual(move?.notMovedWorkflows, [
    {
      workflowID: 'b',
      runID: 'b-run',
      reason: 'does not replay on build v2 at event 5 ActivityTaskScheduled: [TMPRL1100] nondeterminism',
    },
  ]);
  assert.ok(
    run.events.some((e) => e.includes('PinnedWorkflowsMoveStarted')),
    `an event says the move started:\n${run.events.join('\n')}`,
  );
});

/** v2's rollout aborted (as `owner` says), v1 current again, one pinned workflow still running on v2. */
function abortedWorld(owner: TemporalWorkerDeployment, more: Partial<World>): World {
  return {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [
      deployment(owner, 'v1', { since: minutesAgo(120) }),
      deployment(owner, 'v2', { since: minutesAgo(20) }),
    ],
    temporal: {
      exists: true,
      currentBuildId: 'v1',
      managerIdentity: IDENTITY,
      versions: [
        { buildId: 'v1', status: 'Current', everActive: true },
        { buildId: 'v2', status: 'Draining', everActive: true, deactivatedAt: minutesAgo(2) },
      ],
    },
    runningWorkflows: { v2: 1 },
    ...more,
  };
}

test("after an abort, onAbort: MoveToPrevious moves the aborted build's pinned workflows that the current build replays", async () => {
  const owner = workerDeployment(
    { buildId: 'v2', rollout: { ...progressive, abort: 'v2', onAbort: 'MoveToPrevious' } },
    {},
    {
      targetVersion: { buildID: 'v2', status: 'Inactive' },
      currentVersion: { buildID: 'v1', status: 'Current', taskQueues: [{ name: TASK_QUEUE, type: 'workflow' }] },
    },
  );
  const aborted = abortedWorld(owner, {
    pinnedRuns: { v2: [{ workflowId: 'a', runId: 'a-run', taskQueue: TASK_QUEUE }] },
  });
  const run = await recordedReconcile(aborted);
  const check = replayCheckWorkflowId(temporalName, 'v2', 'v1', 1, TASK_QUEUE);
  const listed = `temporal.listRunningBatches ${batchJobIdPrefix(temporalName, 'v2')}`;
  assert.deepEqual(temporalCalls(run.calls), [
    'temporal.describe',
    'temporal.countRunningWorkflows v2',
    // The target once active is looked at for batches its status may have lost (see the ladder).
    listed,
    `temporal.listPinnedRuns v2 (${MOVE_ROUND_RUNS})`,
    `temporal.startReplayCheck ${check} on ${TASK_QUEUE} pinned to v1: a`,
  ]);
  assert.equal(run.status?.targetVersion?.pinnedWorkflows?.move?.to, 'v1');
  // Without onAbort (Stay, the default), nothing of v2's is read or moved.
  const stay = {
    ...aborted,
    workerDeployment: { ...owner, spec: { ...owner.spec, rollout: { ...progressive, abort: 'v2' } } },
  };
  assert.deepEqual(temporalCalls((await recordedReconcile(stay)).calls), ['temporal.describe']);
});

test('the move batch of a round under way on an aborted target is its own: the look for batches the status lost leaves it running', async () => {
  const job = moveJobId(temporalName, 'v2', 'v1', 1);
  const check = replayCheckWorkflowId(temporalName, 'v2', 'v1', 1, TASK_QUEUE);
  const batch = {
    jobId: job,
    operation: 'Move' as const,
    state: 'Running' as const,
    total: 1,
    completed: 0,
    failed: 0,
  };
  const owner = workerDeployment(
    {
      buildId: 'v2',
      rollout: { ...progressive, abort: 'v2', onAbort: 'MoveToPrevious' },
      // A ladder: the target once active is looked at for its batches the status may have lost.
      sunset: { pinnedWorkflows: { signalAfter: '1h' } },
    },
    {},
    {
      targetVersion: {
        buildID: 'v2',
        status: 'Inactive',
        pinnedWorkflows: {
          step: 'Waiting',
          move: {
            to: 'v1',
            round: 1,
            phase: 'Moving',
            startedAt: minutesAgo(1).toISOString(),
            checks: [{ taskQueue: TASK_QUEUE, workflowID: check }],
            checked: 1,
            notMoved: 0,
            batch: { jobID: job, operation: 'Move', state: 'Running', total: 1, completed: 0, failed: 0 },
          },
        },
      },
      currentVersion: { buildID: 'v1', status: 'Current', taskQueues: [{ name: TASK_QUEUE, type: 'workflow' }] },
    },
  );
  const run = await recordedReconcile(abortedWorld(owner, { batches: { [job]: batch } }));
  assert.deepEqual(temporalCalls(run.calls), [
    'temporal.describe',
    `temporal.listRunningBatches ${batchJobIdPrefix(temporalName, 'v2')}`,
    `temporal.describeBatch ${batchJobId(temporalName, 'v2', 'Signal', { signalAfter: '1h' })}`,
    `temporal.describeBatch ${job}`,
  ]);
  assert.equal(run.status?.targetVersion?.pinnedWorkflows?.move?.phase, 'Moving');
});
