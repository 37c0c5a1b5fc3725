// When an old build stopped being current or ramping, which the ladder's delays count from: the
// server's word first, then the status's, then now for a build last seen active; never for a
// build that never took traffic.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { MoveMemory } from '../../src/domain/pinned-move.ts';
import type { BatchProgress, TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import { deactivationTimes, ladderMemories, pinnedWorkflowsStatus } from '../../src/status/pinned-workflows.ts';

const now = new Date('2026-11-25T12:00:00Z');
const earlier = new Date('2026-11-25T11:00:00Z');
const temporal: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v4',
  rampingBuildId: 'v5',
  versions: [
    { buildId: 'v0', status: 'Inactive', everActive: false },
    { buildId: 'v1', status: 'Draining', everActive: true, deactivatedAt: earlier },
    { buildId: 'v2', status: 'Draining', everActive: true },
    { buildId: 'v3', status: 'Inactive', everActive: false },
    { buildId: 'v4', status: 'Current', everActive: true },
    { buildId: 'v5', status: 'Ramping', everActive: true },
    { buildId: 'v6', status: 'Draining', everActive: true },
  ],
};

test('deactivation times: the server’s, the status’s, now for a build last seen active, none for one never active', () => {
  const previous: TemporalWorkerDeployment['status'] = {
    currentVersion: { buildID: 'v3', status: 'Current' },
    targetVersion: { buildID: 'v5', status: 'Ramping', rampPercentage: 10 },
    deprecatedVersions: [
      { buildID: 'v1', status: 'Draining', deactivatedAt: '2026-11-25T10:00:00Z' },
      { buildID: 'v2', status: 'Draining', deactivatedAt: '2026-11-25T10:30:00Z' },
    ],
  };
  assert.deepEqual(deactivationTimes(previous, temporal, now), {
    v1: earlier,
    v2: new Date('2026-11-25T10:30:00Z'),
    v3: now,
    v6: now,
  });
  assert.deepEqual(deactivationTimes(undefined, temporal, now), { v1: earlier, v2: now, v6: now });
});

test('a target that ramped, now neither current nor ramping, was last seen active: now; one that never ramped, never', () => {
  const notRouted: TemporalDeploymentState = {
    exists: true,
    currentBuildId: 'v4',
    versions: [
      { buildId: 'v4', status: 'Current', everActive: true },
      { buildId: 'v5', status: 'Inactive', everActive: false },
    ],
  };
  const ramped = { targetVersion: { buildID: 'v5', status: 'Ramping', rampPercentage: 10 } };
  assert.deepEqual(deactivationTimes(ramped, notRouted, now), { v5: now });
  const neverRamped = { targetVersion: { buildID: 'v5', status: 'Inactive' } };
  assert.deepEqual(deactivationTimes(neverRamped, notRouted, now), {});
});

test("each build's ladder goes into the status and comes back as it went, whole or in part", () => {
  const batch: BatchProgress = {
    jobId: 'job-1',
    operation: 'Cancel',
    state: 'Completed',
    startTime: earlier,
    closeTime: now,
    total: 4,
    completed: 3,
    failed: 1,
  };
  const whole = { running: 2, countedAt: earlier, step: 'Cancel' as const, nextStepAt: now, batch };
  const written = pinnedWorkflowsStatus(whole);
  assert.deepEqual(written, {
    step: 'Cancel',
    running: 2,
    countedAt: earlier.toISOString(),
    nextStepAt: now.toISOString(),
    batch: {
      jobID: 'job-1',
      operation: 'Cancel',
      state: 'Completed',
      startTime: earlier.toISOString(),
      closeTime: now.toISOString(),
      total: 4,
      completed: 3,
      failed: 1,
    },
  });
  const status = {
    currentVersion: { buildID: 'v4', status: 'Current', pinnedWorkflows: { step: 'Cancel', batch: written.batch } },
    deprecatedVersions: [{ buildID: 'v1', status: 'Draining', pinnedWorkflows: written }],
  };
  assert.deepEqual(ladderMemories(status), {
    v4: { batch },
    v1: { running: 2, countedAt: earlier, batch },
  });
  const zero = pinnedWorkflowsStatus({ step: 'Waiting', running: 0 });
  assert.deepEqual(zero, { step: 'Waiting', running: 0 }, 'a count of 0 is a count');
  assert.deepEqual(pinnedWorkflowsStatus({ step: 'Waiting' }), { step: 'Waiting' });
  const bare = { deprecatedVersions: [{ buildID: 'v1', status: 'Draining', pinnedWorkflows: zero }] };
  assert.deepEqual(ladderMemories(bare), { v1: { running: 0 } });
  const running = { jobID: 'job-2', operation: 'Signal', state: 'Running' };
  const counts = ladderMemories({
    deprecatedVersions: [{ buildID: 'v1', status: 'Draining', pinnedWorkflows: { step: 'Signal', batch: running } }],
  });
  assert.deepEqual(counts.v1?.batch, {
    jobId: 'job-2',
    operation: 'Signal',
    state: 'Running',
    total: 0,
    completed: 0,
    failed: 0,
  });
  assert.deepEqual(ladderMemories(undefined), {});
});

test("each build's last round of moves goes into the status and comes back as it went, whole or in part", () => {
  const batch: BatchProgress = {
    jobId: 'move-1',
    operation: 'Move',
    state: 'Completed',
    startTime: earlier,
    closeTime: now,
    total: 2,
    completed: 2,
    failed: 0,
  };
  const whole: MoveMemory = {
    to: 'v4',
    round: 2,
    phase: 'Done',
    startedAt: earlier,
    endedAt: now,
    checks: [{ taskQueue: 'orders', workflowId: 'check-1' }],
    checked: 3,
    batch,
    notMoved: 1,
    notMovedRuns: [{ workflowId: 'b', runId: 'b-run', reason: 'does not replay on build v4' }],
  };
  const written = pinnedWorkflowsStatus({ step: 'Waiting', move: whole });
  assert.deepEqual(written.move, {
    to: 'v4',
    round: 2,
    phase: 'Done',
    startedAt: earlier.toISOString(),
    endedAt: now.toISOString(),
    checks: [{ taskQueue: 'orders', workflowID: 'check-1' }],
    checked: 3,
    batch: {
      jobID: 'move-1',
      operation: 'Move',
      state: 'Completed',
      startTime: earlier.toISOString(),
      closeTime: now.toISOString(),
      total: 2,
      completed: 2,
      failed: 0,
    },
    notMoved: 1,
    notMovedWorkflows: [{ workflowID: 'b', runID: 'b-run', reason: 'does not replay on build v4' }],
  });
  const failed: MoveMemory = { ...whole, phase: 'Failed', message: 'stopped: build v4 is no longer current' };
  delete failed.batch;
  delete failed.notMoved;
  delete failed.notMovedRuns;
  for (const move of [whole, failed]) {
    const status = {
      deprecatedVersions: [
        { buildID: 'v1', status: 'Draining', pinnedWorkflows: pinnedWorkflowsStatus({ step: 'Waiting', move }) },
      ],
    };
    assert.deepEqual(ladderMemories(status), { v1: { move } });
  }
});
