// Where two features meet: the breaks of the promise a review reproduced (rollback × ladder, a
// failed canary × a new generation, routing × scaling, gates × pools, deletion × drainage, gates
// and the ladder × a pause), each as one reconcile through the adapter interfaces, asserting the
// exact calls (see test/support/recorded-world.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { TemporalVersion } from '../../src/domain/snapshot.ts';
import { gateWorkflowId, QUEUE_PROPAGATION_MS } from '../../src/planner/gates.ts';
import { batchJobId, batchJobIdPrefix } from '../../src/planner/pinned-workflows.ts';
import {
  connection,
  deployment,
  IDENTITY,
  NAMESPACE,
  type Recorded,
  recordedReconcile,
  STARTED_GATE_RUN,
  workerDeployment,
  type World,
} from '../support/recorded-world.ts';

const now = new Date('2026-11-23T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const temporalName = `${NAMESPACE}/orders`;
const smoke = { workflowType: 'Smoke' };
const baked = { strategy: 'AllAtOnce' as const, analysis: { window: '10m', maxFailureRate: 0.05 } };
/** What the status remembers of v2's AllAtOnce bake that failed, at generation 1. */
const failedBake = {
  generation: 1,
  step: 1,
  verdict: 'Failed',
  windowStart: minutesAgo(15).toISOString(),
  closed: 40,
  failed: 8,
  message: 'analysis of build v2 since its promotion: 8 of 40 workflows closed on the promoted build failed (20%)',
  checkedAt: minutesAgo(5).toISOString(),
};
const temporalCalls = (calls: string[]) => calls.filter((c) => c.startsWith('temporal.'));

/** `owner`'s builds, each with its Deployment available since the minutes given, as Temporal lists `versions`. */
function builds(
  owner: TemporalWorkerDeployment,
  availableMinutesAgo: Record<string, number>,
  versions: TemporalVersion[],
  currentBuildId: string,
): World {
  return {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: Object.entries(availableMinutesAgo).map(([build, m]) =>
      deployment(owner, build, { since: minutesAgo(m) }),
    ),
    temporal: { exists: true, currentBuildId, managerIdentity: IDENTITY, versions },
  };
}

/**
 * The world when a gate held back after Temporal first listed its queue may start (see
 * QUEUE_PROPAGATION_MS), with the status `run` wrote.
 */
function whenGateMayStart(world: World, run: Recorded): World {
  const since = run.status?.targetVersion?.gateQueuesListed?.since;
  assert.ok(since, 'the reconcile held a gate back, remembering when its queue was listed');
  const now = new Date(Date.parse(since) + QUEUE_PROPAGATION_MS);
  return { ...world, now, workerDeployment: { ...world.workerDeployment, status: run.status } };
}

/** v2 promoted (AllAtOnce) `promotedMinutesAgo`, v1 in `v1Status` before it. */
function bakeWorld(
  spec: Partial<TemporalWorkerDeployment['spec']>,
  status: TemporalWorkerDeployment['status'],
  options: { promotedMinutesAgo: number; v1Status: 'Draining' | 'Drained'; v1Replicas: number },
): World {
  const owner = workerDeployment({ buildId: 'v2', rollout: baked, ...spec }, {}, status);
  return {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [
      deployment(owner, 'v1', { since: minutesAgo(120), replicas: options.v1Replicas }),
      deployment(owner, 'v2', { since: minutesAgo(options.promotedMinutesAgo + 2) }),
    ],
    temporal: {
      exists: true,
      currentBuildId: 'v2',
      currentChangedAt: minutesAgo(options.promotedMinutesAgo),
      managerIdentity: IDENTITY,
      versions: [
        {
          buildId: 'v1',
          status: options.v1Status,
          everActive: true,
          ...(options.v1Status === 'Drained' ? { drainedSince: minutesAgo(options.promotedMinutesAgo - 5) } : {}),
        },
        {
          buildId: 'v2',
          status: 'Current',
          everActive: true,
          firstActiveAt: minutesAgo(options.promotedMinutesAgo),
        },
      ],
    },
    outcomes: { v2: { closed: 40, failed: 8 } },
  };
}

test('A1: a failed AllAtOnce analysis goes back to the previous build and starts no ladder batch on it', async () => {
  const world = bakeWorld(
    { sunset: { pinnedWorkflows: { terminateAfter: '5m' } } },
    {
      deprecatedVersions: [
        {
          buildID: 'v1',
          status: 'Draining',
          lastCurrentTime: minutesAgo(6).toISOString(),
          deactivatedAt: minutesAgo(6).toISOString(),
        },
      ],
    },
    { promotedMinutesAgo: 6, v1Status: 'Draining', v1Replicas: 2 },
  );
  const run = await recordedReconcile({ ...world, runningWorkflows: { v1: 3 } });
  const calls = temporalCalls(run.calls);
  assert.ok(calls.includes('temporal.changeRouting setCurrent v1'), calls.join('\n'));
  assert.ok(!calls.some((c) => c.startsWith('temporal.startBatch')), calls.join('\n'));
});

test('A2: a batch still running on a build that is current again is stopped, and remembered until Temporal says it ended', async () => {
  const job = `temporal-worker-controller/pinned-workflows/${temporalName}/v1/terminate/x`;
  const batch = { jobID: job, operation: 'Terminate', state: 'Running', total: 3, completed: 0, failed: 0 };
  const owner = workerDeployment(
    { buildId: 'v2', rollout: baked, sunset: { pinnedWorkflows: { terminateAfter: '5m' } } },
    {},
    {
      currentVersion: { buildID: 'v1', status: 'Current', pinnedWorkflows: { step: 'Terminate', batch } },
      // v2 failed its analysis and the rollout went back to v1 (A1): v2 stays where it is.
      targetVersion: { buildID: 'v2', status: 'Draining', analysis: failedBake },
    },
  );
  const world: World = {
    ...builds(
      owner,
      { v1: 120, v2: 9 },
      [
        { buildId: 'v1', status: 'Current', everActive: true },
        { buildId: 'v2', status: 'Draining', everActive: true },
      ],
      'v1',
    ),
    batches: { [job]: { jobId: job, operation: 'Terminate', state: 'Running', total: 3, completed: 1, failed: 0 } },
  };
  const run = await recordedReconcile(world);
  assert.ok(run.calls.includes(`temporal.stopBatch ${job}`), run.calls.join('\n'));
  assert.equal(
    run.status?.currentVersion?.pinnedWorkflows?.batch?.jobID,
    job,
    'remembered until Temporal says it ended',
  );

  const ended = await recordedReconcile({
    ...world,
    workerDeployment: { ...owner, status: run.status },
    batches: { [job]: { jobId: job, operation: 'Terminate', state: 'Failed', total: 3, completed: 1, failed: 0 } },
  });
  assert.ok(!ended.calls.some((c) => c.startsWith('temporal.stopBatch')), ended.calls.join('\n'));
  assert.equal(ended.status?.currentVersion?.pinnedWorkflows, undefined, 'forgotten once Temporal says it ended');
});

test('A3: a build that failed its canary is not promoted again by a new generation within the rollback window', async () => {
  const owner = workerDeployment(
    { buildId: 'v2', replicas: 3, rollout: baked },
    { generation: 2 },
    {
      currentVersion: { buildID: 'v1', status: 'Current' },
      targetVersion: {
        buildID: 'v2',
        status: 'Draining',
        lastCurrentTime: minutesAgo(5).toISOString(),
        analysis: failedBake,
      },
    },
  );
  const run = await recordedReconcile(
    builds(
      owner,
      { v1: 120, v2: 20 },
      [
        { buildId: 'v1', status: 'Current', everActive: true },
        { buildId: 'v2', status: 'Draining', everActive: true, lastCurrentAt: minutesAgo(5) },
      ],
      'v1',
    ),
  );
  assert.ok(!run.calls.some((c) => c.startsWith('temporal.changeRouting')), run.calls.join('\n'));
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Stalled')?.reason, 'AnalysisFailed');
});

test('A3: a new template that names a build which failed before is not promoted by the rollback shortcut', async () => {
  const owner = workerDeployment(
    { buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate: { workflowType: 'Smoke' } } },
    { generation: 3 },
    {
      currentVersion: { buildID: 'v3', status: 'Current' },
      failedBuilds: [
        { buildID: 'v2', reason: 'AnalysisFailed', message: 'analysis failed', at: minutesAgo(8).toISOString() },
      ],
      deprecatedVersions: [{ buildID: 'v2', status: 'Draining', lastCurrentTime: minutesAgo(8).toISOString() }],
    },
  );
  const world = builds(
    owner,
    { v2: 20, v3: 9 },
    [
      { buildId: 'v2', status: 'Draining', everActive: true, lastCurrentAt: minutesAgo(8) },
      { buildId: 'v3', status: 'Current', everActive: true },
    ],
    'v3',
  );
  const held = await recordedReconcile(world);
  const run = await recordedReconcile(whenGateMayStart(world, held));
  for (const { calls } of [held, run])
    assert.ok(!calls.includes('temporal.changeRouting setCurrent v2'), calls.join('\n'));
  assert.ok(
    run.calls.some((c) => c.startsWith('temporal.startGate v2')),
    `its gate runs again: ${run.calls.join('\n')}`,
  );
});

test('A4: a failed analysis does not go back to a build at 0 replicas', async () => {
  const world = bakeWorld(
    {
      sunset: { scaledownDelay: '5m', deleteDelay: '24h' },
      rollout: { ...baked, analysis: { window: '30m', maxFailureRate: 0.05 } },
    },
    { deprecatedVersions: [{ buildID: 'v1', status: 'Drained', lastCurrentTime: minutesAgo(20).toISOString() }] },
    { promotedMinutesAgo: 20, v1Status: 'Drained', v1Replicas: 0 },
  );
  const run = await recordedReconcile(world);
  assert.ok(!run.calls.some((c) => c.startsWith('temporal.changeRouting')), run.calls.join('\n'));
});

test('A5: a plan never scales down a build it routes to', async () => {
  const world = bakeWorld(
    {
      sunset: { scaledownDelay: '5m', deleteDelay: '24h' },
      rollout: { ...baked, analysis: { window: '30m', maxFailureRate: 0.05 } },
    },
    { deprecatedVersions: [{ buildID: 'v1', status: 'Drained', lastCurrentTime: minutesAgo(20).toISOString() }] },
    { promotedMinutesAgo: 20, v1Status: 'Drained', v1Replicas: 2 },
  );
  const run = await recordedReconcile(world);
  assert.ok(run.calls.includes('temporal.changeRouting setCurrent v1'), run.calls.join('\n'));
  assert.ok(!run.calls.some((c) => c.startsWith('k8s.scaleDeployment orders-v1')), run.calls.join('\n'));
});

test('A6: a pool added after the gate passed has the gate run on its queue before any traffic moves', async () => {
  const pools = [
    { name: 'a', taskQueue: 'orders' },
    { name: 'b', taskQueue: 'payments' },
  ];
  const rollout = { strategy: 'AllAtOnce' as const, gate: { workflowType: 'Smoke' } };
  const owner = workerDeployment(
    { buildId: 'v2', pools, rollout },
    { generation: 2 },
    {
      targetVersion: {
        buildID: 'v2',
        status: 'Inactive',
        gates: [
          {
            stage: 'rollout',
            taskQueue: 'orders',
            workflowID: gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate: smoke }, 'orders'),
            runID: 'r1',
            status: 'Completed',
            generation: 1,
          },
        ],
      },
    },
  );
  const world: World = {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [
      deployment(owner, 'v1', { since: minutesAgo(120), pool: 'a' }),
      deployment(owner, 'v2', { since: minutesAgo(5), pool: 'a' }),
      deployment(owner, 'v2', { since: minutesAgo(5), pool: 'b' }),
    ],
    temporal: {
      exists: true,
      currentBuildId: 'v1',
      managerIdentity: IDENTITY,
      versions: [
        { buildId: 'v1', status: 'Current', everActive: true },
        { buildId: 'v2', status: 'Inactive', everActive: false },
      ],
    },
    taskQueues: { workflow: ['orders', 'payments'], activity: ['orders', 'payments'] },
    gateRuns: {
      [gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate: smoke }, 'orders')]: {
        workflowId: gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate: smoke }, 'orders'),
        runId: 'r1',
        workflowType: 'Smoke',
        pinnedTo: { deploymentName: temporalName, buildId: 'v2' },
        status: 'Completed',
      },
    },
  };
  const held = await recordedReconcile(world);
  const run = await recordedReconcile(whenGateMayStart(world, held));
  for (const { calls } of [held, run])
    assert.ok(!calls.some((c) => c.startsWith('temporal.changeRouting')), calls.join('\n'));
  assert.ok(!held.calls.some((c) => c.startsWith('temporal.startGate')), held.calls.join('\n'));
  assert.ok(run.calls.includes('temporal.startGate v2 Smoke on payments'), run.calls.join('\n'));
});

test('a running gate is not restarted by a new generation that leaves the gate as it was (twc pause)', async () => {
  const rollout = { strategy: 'AllAtOnce' as const, gate: { workflowType: 'Smoke' } };
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate: smoke }, 'orders');
  const first = workerDeployment({ buildId: 'v2', rollout });
  const listed = builds(
    first,
    { v1: 120, v2: 5 },
    [
      { buildId: 'v1', status: 'Current', everActive: true },
      { buildId: 'v2', status: 'Inactive', everActive: false },
    ],
    'v1',
  );
  // The gate's queue was listed 10 s before: its run starts now.
  const base = whenGateMayStart(listed, await recordedReconcile(listed));
  const started = await recordedReconcile(base);
  assert.ok(started.calls.includes('temporal.startGate v2 Smoke on orders'), started.calls.join('\n'));
  const pinnedTo = { deploymentName: temporalName, buildId: 'v2' };
  const ownRun = {
    workflowId: id,
    runId: STARTED_GATE_RUN,
    workflowType: 'Smoke',
    pinnedTo,
    status: 'Running' as const,
  };
  const paused = workerDeployment(
    { buildId: 'v2', rollout: { ...rollout, paused: true } },
    { generation: 2 },
    started.status,
  );
  const run = await recordedReconcile({
    ...base,
    workerDeployment: paused,
    gateRuns: { [id]: ownRun },
  });
  assert.ok(!run.calls.some((c) => c.startsWith('temporal.terminateGate')), run.calls.join('\n'));
  assert.ok(!run.calls.some((c) => c.startsWith('temporal.startGate')), run.calls.join('\n'));

  // The gate's own spec changed: its running run is replaced.
  const changed = workerDeployment(
    { buildId: 'v2', rollout: { ...rollout, gate: { workflowType: 'Smoke', input: { value: 'deeper' } } } },
    { generation: 3 },
    started.status,
  );
  const replaced = await recordedReconcile({
    ...base,
    workerDeployment: changed,
    gateRuns: { [id]: ownRun },
  });
  // Its runs have an ID of their own: the run of the old spec is ended, one of the new started.
  assert.ok(replaced.calls.includes(`temporal.terminateGate ${id} ${STARTED_GATE_RUN}`), replaced.calls.join('\n'));
  assert.ok(replaced.calls.includes('temporal.startGate v2 Smoke on orders'), replaced.calls.join('\n'));
});

test('the ladder does not run its step again for a new generation that leaves spec.sunset.pinnedWorkflows as it was', async () => {
  const ladder = { cancelAfter: '30m' };
  const draining: TemporalVersion[] = [
    { buildId: 'v1', status: 'Draining', everActive: true },
    { buildId: 'v2', status: 'Current', everActive: true },
  ];
  const first = workerDeployment(
    { buildId: 'v2', sunset: { pinnedWorkflows: ladder } },
    {},
    { deprecatedVersions: [{ buildID: 'v1', status: 'Draining', deactivatedAt: minutesAgo(40).toISOString() }] },
  );
  const base: World = { ...builds(first, { v1: 120, v2: 50 }, draining, 'v2'), runningWorkflows: { v1: 2 } };
  const started = await recordedReconcile(base);
  const start = started.calls.find((c) => c.startsWith('temporal.startBatch Cancel'));
  assert.ok(start, started.calls.join('\n'));
  const job = start.split(' ')[2] ?? '';
  const batches = {
    [job]: { jobId: job, operation: 'Cancel' as const, state: 'Completed' as const, total: 2, completed: 2, failed: 0 },
  };
  const rescaled = workerDeployment(
    { buildId: 'v2', replicas: 5, sunset: { pinnedWorkflows: ladder } },
    { generation: 2 },
    started.status,
  );
  const run = await recordedReconcile({ ...base, workerDeployment: rescaled, batches, runningWorkflows: { v1: 1 } });
  assert.ok(!run.calls.some((c) => c.startsWith('temporal.startBatch')), run.calls.join('\n'));
});

test('A7 (reconcile): deleting a worker deployment keeps a once-active build whose drainage Temporal has not reported', async () => {
  const alive = workerDeployment({ buildId: 'v2' });
  // The informers' objects carry the deletion time, which the API's type does not list.
  const owner = { ...alive, metadata: { ...alive.metadata, deletionTimestamp: now } };
  const run = await recordedReconcile({
    ...builds(
      owner,
      { v1: 120, v2: 50 },
      [
        { buildId: 'v1', status: 'Inactive', everActive: true },
        { buildId: 'v2', status: 'Current', everActive: true },
      ],
      'v2',
    ),
    runningWorkflows: { v1: 1 },
  });
  assert.ok(!run.calls.includes('k8s.deleteDeployment orders-v1'), run.calls.join('\n'));
  assert.ok(!run.calls.some((c) => c.startsWith('temporal.deleteVersionRecord v1')), run.calls.join('\n'));
});

test('a failed AllAtOnce analysis goes back only to a build current within the rollback window, and never to one that failed', async () => {
  const stale = bakeWorld(
    {},
    { deprecatedVersions: [{ buildID: 'v1', status: 'Draining', lastCurrentTime: minutesAgo(90).toISOString() }] },
    { promotedMinutesAgo: 6, v1Status: 'Draining', v1Replicas: 2 },
  );
  const old = await recordedReconcile(stale);
  assert.ok(!old.calls.some((c) => c.startsWith('temporal.changeRouting')), old.calls.join('\n'));
  const failedToo = bakeWorld(
    {},
    {
      deprecatedVersions: [{ buildID: 'v1', status: 'Draining', lastCurrentTime: minutesAgo(6).toISOString() }],
      failedBuilds: [{ buildID: 'v1', reason: 'AnalysisFailed', message: 'x', at: minutesAgo(60).toISOString() }],
    },
    { promotedMinutesAgo: 6, v1Status: 'Draining', v1Replicas: 2 },
  );
  const run = await recordedReconcile(failedToo);
  assert.ok(!run.calls.some((c) => c.startsWith('temporal.changeRouting')), run.calls.join('\n'));
});

test('a rollback to a build whose batch the status lost, started under an earlier spec of the ladder, stops that batch before routing to it', async () => {
  // The status write that recorded the Cancel batch was refused (409); the ladder's spec changed
  // since, so the job IDs of the ladder as it is name other batches: only Temporal's list finds it.
  const earlierJob = batchJobId(temporalName, 'v2', 'Cancel', { cancelAfter: '3m' });
  const ladder = { signalAfter: '10m', cancelAfter: '30m' };
  const owner = workerDeployment(
    { buildId: 'v2', sunset: { pinnedWorkflows: ladder } },
    {},
    {
      currentVersion: { buildID: 'v4', status: 'Current' },
      deprecatedVersions: [{ buildID: 'v2', status: 'Draining', lastCurrentTime: minutesAgo(4).toISOString() }],
    },
  );
  const world: World = {
    ...builds(
      owner,
      { v2: 60, v4: 10 },
      [
        { buildId: 'v2', status: 'Draining', everActive: true, lastCurrentAt: minutesAgo(4) },
        { buildId: 'v4', status: 'Current', everActive: true },
      ],
      'v4',
    ),
    batches: {
      [earlierJob]: { jobId: earlierJob, operation: 'Cancel', state: 'Running', total: 5, completed: 1, failed: 0 },
    },
  };
  const run = await recordedReconcile(world);
  assert.deepEqual(temporalCalls(run.calls), [
    'temporal.describe',
    `temporal.listRunningBatches ${batchJobIdPrefix(temporalName, 'v2')}`,
    `temporal.describeBatch ${batchJobId(temporalName, 'v2', 'Signal', ladder)}`,
    `temporal.describeBatch ${batchJobId(temporalName, 'v2', 'Cancel', ladder)}`,
    `temporal.describeBatch ${earlierJob}`,
    `temporal.stopBatch ${earlierJob}`,
    'temporal.changeRouting setCurrent v2',
  ]);
});
