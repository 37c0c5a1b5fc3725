// One reconcile, driven through the adapter interfaces over plain data: each scenario asserts the
// exact Kubernetes and Temporal calls, in order (see test/support/recorded-world.ts).
import type { V1ConfigMap } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildIdOf } from '../../src/k8s/build-id.ts';
import { readConfiguration } from '../../src/k8s/configuration-digests.ts';
import { configurationReferences } from '../../src/k8s/configuration-references.ts';
import { KubernetesApiError } from '../../src/runtime/kube/api-errors.ts';
import { TemporalConnectError } from '../../src/temporal/client-pool.ts';
import { GrpcStatus, TemporalCallError } from '../../src/temporal/call-status.ts';
import type { GateRun, TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import { copyName } from '../../src/k8s/owned-resource-copies.ts';
import { KindRefusedError, refusedKind } from '../../src/domain/owned-resources.ts';
import { gateWorkflowId } from '../../src/planner/gates.ts';
import { batchJobId } from '../../src/planner/pinned-workflows.ts';
import { Backoff, RetrySchedule } from '../../src/runtime/backoff.ts';
import { OwnWrites } from '../../src/runtime/own-writes.ts';
import { WorkQueue } from '../../src/runtime/work-queue.ts';
import { FakeTimers, settle } from '../support/fake-timers.ts';
import { LastDescribed } from '../../src/controller/last-described.ts';
import { NOT_FOUND_RECHECK_MS } from '../../src/controller/reconciler.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { KINDS } from '../../src/api/kinds.ts';
import { validate } from '../../src/api/validate.ts';
import {
  connection,
  deployment,
  IDENTITY,
  NAMESPACE,
  recordedReconcile,
  STARTED_GATE_RUN,
  TASK_QUEUE,
  workerDeployment,
  type World,
} from '../support/recorded-world.ts';

const now = new Date('2026-11-23T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const v1Current: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v1',
  managerIdentity: IDENTITY,
  versions: [
    { buildId: 'v1', status: 'Current', everActive: true },
    { buildId: 'v2', status: 'Inactive', everActive: false },
  ],
};
const v2CurrentV1Draining: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v2',
  managerIdentity: IDENTITY,
  versions: [
    { buildId: 'v1', status: 'Draining', everActive: true },
    { buildId: 'v2', status: 'Current', everActive: true },
  ],
};
const progressive = {
  strategy: 'Progressive' as const,
  steps: [
    { rampPercentage: 10, pauseDuration: '5m' },
    { rampPercentage: 50, pauseDuration: '5m' },
  ],
};
const gate = { workflowType: 'Smoke' };
const temporalName = `${NAMESPACE}/orders`;

/** v1 current and available, v2 the target, registered and available: ready to move traffic. */
function rolloutWorld(spec: Parameters<typeof workerDeployment>[0] = { buildId: 'v2' }, temporal = v1Current): World {
  const owner = workerDeployment(spec);
  return {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [
      deployment(owner, 'v1', { since: minutesAgo(60) }),
      deployment(owner, 'v2', { since: minutesAgo(2) }),
    ],
    temporal,
  };
}

/**
 * The world a minute after Temporal listed the target's queue: a gate's first run may start on it
 * (see QUEUE_PROPAGATION_MS).
 */
function listedBefore(world: World): World {
  const owner = world.workerDeployment;
  const listing = { taskQueues: [TASK_QUEUE], since: minutesAgo(1).toISOString() };
  const targetVersion = {
    buildID: 'v2',
    status: 'Inactive',
    ...owner.status?.targetVersion,
    gateQueuesListed: listing,
  };
  return { ...world, workerDeployment: { ...owner, status: { ...owner.status, targetVersion } } };
}

const ramping = (percentage: number, changedMinutesAgo: number): TemporalDeploymentState => ({
  ...v1Current,
  rampingBuildId: 'v2',
  rampPercentage: percentage,
  rampChangedAt: minutesAgo(changedMinutesAgo),
  versions: [
    { buildId: 'v1', status: 'Current', everActive: true },
    { buildId: 'v2', status: 'Ramping', everActive: true },
  ],
});

/** Nothing of the worker deployment exists yet, nor any finalizer. */
function firstBuildWorld(): World {
  return {
    now,
    workerDeployment: workerDeployment({ buildId: 'v1' }, { finalizers: [] }),
    connection: connection([]),
    deployments: [],
    temporal: { exists: false, versions: [] },
  };
}

test('first build: the finalizers go on, its Deployment is created, the status is written once', async () => {
  const run = await recordedReconcile(firstBuildWorld());
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'k8s.setFinalizers temporalworkerdeployments/orders [temporal.io/delete-protection]',
    'k8s.setFinalizers temporalconnections/temporal [temporal.io/delete-protection]',
    'k8s.createDeployment orders-v1',
    'k8s.replaceStatus orders@11',
  ]);
  assert.deepEqual(run.events, ['Normal DeploymentCreated']);
  assert.equal(run.status?.targetVersion?.status, 'NotRegistered');
});

const modified = () =>
  new KubernetesApiError('PATCH', '/x', 409, { kind: 'Status', message: 'the object has been modified' });
const connectionFinalizerRefused = { 'k8s.setFinalizers temporalconnections': modified() };

test("first build: the connection's finalizer refused (409) because another worker deployment's reconcile put it on: the connection as stored says so, and the reconcile goes on", async () => {
  const run = await recordedReconcile({
    ...firstBuildWorld(),
    storedConnection: connection(['temporal.io/delete-protection']),
    failures: connectionFinalizerRefused,
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'k8s.setFinalizers temporalworkerdeployments/orders [temporal.io/delete-protection]',
    'k8s.setFinalizers temporalconnections/temporal [temporal.io/delete-protection]',
    'k8s.readStored temporalconnections/temporal',
    'k8s.createDeployment orders-v1',
    'k8s.replaceStatus orders@11',
  ]);
  assert.deepEqual(run.events, ['Normal DeploymentCreated']);
});

test("first build: the connection's finalizer refused (409) by another change of its metadata: written again on the connection as stored", async () => {
  const stored = connection([]);
  stored.metadata = { ...stored.metadata, resourceVersion: '42', annotations: { team: 'payments' } };
  const run = await recordedReconcile({
    ...firstBuildWorld(),
    storedConnection: stored,
    failures: connectionFinalizerRefused,
  });
  assert.deepEqual(run.calls.slice(2, 5), [
    'k8s.setFinalizers temporalconnections/temporal [temporal.io/delete-protection]',
    'k8s.readStored temporalconnections/temporal',
    'k8s.setFinalizers temporalconnections/temporal [temporal.io/delete-protection]',
  ]);
  assert.ok(run.calls.includes('k8s.createDeployment orders-v1'));
});

for (const [what, change] of [
  ['its spec changed meanwhile (a new generation)', { generation: 2 }],
  ['it is being deleted', { deletionTimestamp: '2026-11-26T12:00:00Z' }],
] as const)
  test(`first build: the connection's finalizer refused (409) and ${what}: no failure, no Warning, decided again at once on what the cache then holds`, async () => {
    const stored = connection(['temporal.io/delete-protection']);
    stored.metadata = { ...stored.metadata, ...change };
    const run = await recordedReconcile({
      ...firstBuildWorld(),
      storedConnection: stored,
      failures: connectionFinalizerRefused,
    });
    assert.equal(run.calls.at(-2), 'k8s.readStored temporalconnections/temporal');
    assert.ok(!run.calls.includes('k8s.createDeployment orders-v1'), 'nothing made on a plan the change may undo');
    assert.deepEqual(run.events, [], 'no Warning for a race the next reconcile settles');
    assert.deepEqual(run.result, { requeueAfterMs: 0 });
    const progressingNow = run.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([progressingNow?.status, progressingNow?.reason], ['True', 'Conflict']);
  });

test('AllAtOnce: a registered, available target is promoted, and nothing else is read', async () => {
  const run = await recordedReconcile(rolloutWorld());
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.changeRouting setCurrent v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal VersionPromoted']);
  assert.equal(
    run.status?.currentVersion?.buildID,
    'v2',
    'the status says what the change made, without reading again',
  );
  assert.deepEqual(
    run.status?.deprecatedVersions?.map((v) => [v.buildID, v.status]),
    [['v1', 'Draining']],
  );
});

test('spec.notifications: a reconcile that promotes a build queues a Promoted notification for the receivers that want it, once', async () => {
  const hook = {
    metadata: { name: 'ops-hook', namespace: NAMESPACE },
    data: { url: Buffer.from('https://hooks.example.com/ops').toString('base64') },
  };
  const world = rolloutWorld({
    buildId: 'v2',
    notifications: [
      { secretRef: { name: 'ops-hook' }, events: ['Promoted'] },
      { secretRef: { name: 'ops-hook' }, events: ['Aborted'] },
    ],
  });
  const before = {
    targetVersion: { buildID: 'v2', status: 'Inactive' },
    currentVersion: { buildID: 'v1', status: 'Current' },
  };
  world.workerDeployment = { ...world.workerDeployment, status: before };
  const run = await recordedReconcile({
    ...world,
    secrets: [hook],
    notificationDestinations: ['https://hooks.example.com/'],
  });
  assert.deepEqual(run.events, ['Normal VersionPromoted']);
  assert.deepEqual(run.notifications, [`${NAMESPACE}/ops-hook Promoted v2`]);
  assert.equal(
    run.status?.conditions?.some((c) => c.type === 'Degraded'),
    false,
    'an allowed receiver is no trouble',
  );
  // The next reconcile, on the status written, tells nothing again.
  const again = await recordedReconcile({
    ...world,
    workerDeployment: { ...world.workerDeployment, status: run.status },
    temporal: v2CurrentV1Draining,
    secrets: [hook],
    notificationDestinations: ['https://hooks.example.com/'],
  });
  assert.deepEqual(again.notifications, []);
});

test('spec.notifications refused (the controller allows no destination): the rollout goes on, Degraded names the field and the flag', async () => {
  const world = rolloutWorld({ buildId: 'v2', notifications: [{ secretRef: { name: 'ops-hook' } }] });
  const run = await recordedReconcile({ ...world, notificationDestinations: [] });
  assert.deepEqual(run.events, ['Normal VersionPromoted']);
  assert.deepEqual(run.notifications, []);
  const degradedNow = run.status?.conditions?.find((c) => c.type === 'Degraded');
  assert.equal(degradedNow?.reason, 'NotificationsRefused');
  assert.match(degradedNow?.message ?? '', /spec\.notifications\[0\]\.secretRef: .*--notification-destinations/);
});

test('a build promoted while an older target ramps clears that ramp in the same change', async () => {
  const owner = workerDeployment({ buildId: 'v3' });
  const run = await recordedReconcile({
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [
      deployment(owner, 'v1', { since: minutesAgo(60) }),
      deployment(owner, 'v2', { since: minutesAgo(30) }),
      deployment(owner, 'v3', { since: minutesAgo(2) }),
    ],
    temporal: {
      ...v1Current,
      rampingBuildId: 'v2',
      rampPercentage: 40,
      rampChangedAt: minutesAgo(20),
      versions: [
        { buildId: 'v1', status: 'Current', everActive: true },
        { buildId: 'v2', status: 'Ramping', everActive: true },
        { buildId: 'v3', status: 'Inactive', everActive: false },
      ],
    },
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.changeRouting setCurrent v3 clearing the ramp of v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.status?.targetVersion?.rampPercentage, undefined);
  assert.deepEqual(
    run.status?.deprecatedVersions?.map((v) => [v.buildID, v.status]),
    [
      ['v1', 'Draining'],
      ['v2', 'Draining'],
    ],
  );
});

test('a free manager identity is claimed with the first routing change', async () => {
  const free = { ...v1Current };
  delete free.managerIdentity;
  const run = await recordedReconcile(rolloutWorld({ buildId: 'v2' }, free));
  assert.deepEqual(run.calls.slice(1, 2), ['temporal.changeRouting setCurrent v2 (claiming the manager identity)']);
  assert.equal(run.status?.managerIdentity, IDENTITY);
});

test('the identity held elsewhere: no routing call, Stalled ManagedElsewhere with the command to release it', async () => {
  const run = await recordedReconcile(rolloutWorld({ buildId: 'v2' }, { ...v1Current, managerIdentity: 'ops-team' }));
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  const stalled = run.status?.conditions?.find((c) => c.type === 'Stalled');
  assert.equal(stalled?.reason, 'ManagedElsewhere');
  assert.match(stalled?.message ?? '', /managed by "ops-team".*manager-identity unset --deployment-name shop\/orders/);
  assert.deepEqual(run.events, ['Warning ManagedElsewhere']);
});

test('Progressive: the first step sets the ramp', async () => {
  const run = await recordedReconcile(rolloutWorld({ buildId: 'v2', rollout: progressive }));
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.changeRouting setRamp v2 10%',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.status?.targetVersion?.rampPercentage, 10);
  assert.deepEqual(run.status?.targetVersion?.rampHistory, [{ percentage: 10, at: now.toISOString() }]);
});

test('Progressive: during a pause nothing is called but the status, and the reconcile comes back when it ends', async () => {
  const world = { ...rolloutWorld({ buildId: 'v2', rollout: progressive }, ramping(10, 2)) };
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual(
    run.result,
    { requeueAfterMs: 10_000 },
    'the poll interval comes before the pause end (3 minutes): a routine look',
  );
  const ending = await recordedReconcile(
    rolloutWorld({ buildId: 'v2', rollout: progressive }, ramping(10, 5 - 4 / 60)),
  );
  assert.deepEqual(
    ending.result,
    { requeueAfterMs: 4_000, priority: 'high' },
    'the pause ends in 4 s: the next step falls due then, ahead of routine looks',
  );
});

/** What the leader read of the builds' queues and pollers: each build's workflow and activity queue, polled by `polled`. */
function pollersRead(readAt: Date, workers: Record<string, number>, polled = Object.keys(workers)) {
  const queues = [
    { name: TASK_QUEUE, type: 'activity' as const },
    { name: TASK_QUEUE, type: 'workflow' as const },
  ];
  return {
    readAt,
    workers,
    taskQueues: { v1: queues, v2: queues },
    polled: queues.map((q) => ({ ...q, builds: polled })),
  };
}

test('pollers, task queues and the ramp so far come from what the controller holds: no Temporal call for them', async () => {
  const world = rolloutWorld({ buildId: 'v2', rollout: progressive }, ramping(50, 2));
  const history = [{ percentage: 10, at: minutesAgo(8).toISOString() }];
  world.workerDeployment.status = { targetVersion: { buildID: 'v2', status: 'Ramping', rampHistory: history } };
  world.pollers = pollersRead(minutesAgo(0.5), { v1: 2, v2: 1 });
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual([run.status?.targetVersion?.pollers, run.status?.currentVersion?.pollers], [1, 2]);
  const queues = [
    { name: TASK_QUEUE, type: 'activity' },
    { name: TASK_QUEUE, type: 'workflow' },
  ];
  assert.deepEqual([run.status?.targetVersion?.taskQueues, run.status?.currentVersion?.taskQueues], [queues, queues]);
  assert.deepEqual(run.buildsWithoutPollers, [0], 'judged: every build polls');
  assert.deepEqual(run.status?.targetVersion?.rampHistory, [
    ...history,
    { percentage: 50, at: minutesAgo(2).toISOString() },
  ]);
});

test('NoPollers: the current build Ready for an hour, no poller of it on its workflow queue: Degraded and a Warning once, nothing done, no Temporal read for it', async () => {
  const owner = workerDeployment({ buildId: 'v1' });
  const world: World = {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [deployment(owner, 'v1', { since: minutesAgo(60) })],
    temporal: { exists: true, currentBuildId: 'v1', managerIdentity: IDENTITY, versions: [v1Current.versions[0]!] },
    pollers: {
      ...pollersRead(minutesAgo(1), { v1: 1 }),
      polled: [
        { name: TASK_QUEUE, type: 'activity', builds: ['v1'] },
        { name: TASK_QUEUE, type: 'workflow', builds: [] },
      ],
    },
  };
  const first = await recordedReconcile(world);
  assert.deepEqual(first.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual(first.events, ['Warning NoPollers']);
  assert.match(
    first.eventMessages[0] ?? '',
    /^NoPollers: build v1 is current and its Deployment orders-v1 has had every Pod Ready since .*, yet Temporal remembers no poller of it on workflow task queue orders within its poller history \(5m\): check the workers' TEMPORAL_ADDRESS/,
  );
  const degraded = first.status?.conditions?.find((c) => c.type === 'Degraded');
  assert.deepEqual([degraded?.status, degraded?.reason], ['True', 'NoPollers']);
  assert.equal(
    first.status?.conditions?.find((c) => c.type === 'Ready')?.status,
    'True',
    'the rollout is done all the same',
  );
  assert.deepEqual(first.buildsWithoutPollers, [1]);

  const again = await recordedReconcile({ ...world, workerDeployment: { ...owner, status: first.status } });
  assert.deepEqual(again.calls, ['temporal.describe'], 'the status says it already');
  assert.deepEqual(again.events, [], 'the Warning is written when it starts');
  assert.deepEqual(again.buildsWithoutPollers, [1]);

  const polling = await recordedReconcile({
    ...world,
    workerDeployment: { ...owner, status: first.status },
    pollers: pollersRead(now, { v1: 1 }),
  });
  assert.deepEqual(polling.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.equal(
    polling.status?.conditions?.find((c) => c.type === 'Degraded'),
    undefined,
    'gone once it polls',
  );
  assert.deepEqual(polling.buildsWithoutPollers, [0]);
});

test('Progressive: a pause that is over moves to the next step, and the last one promotes', async () => {
  const next = await recordedReconcile(rolloutWorld({ buildId: 'v2', rollout: progressive }, ramping(10, 6)));
  assert.deepEqual(next.calls, [
    'temporal.describe',
    'temporal.changeRouting setRamp v2 50%',
    'k8s.replaceStatus orders@10',
  ]);
  const last = await recordedReconcile(rolloutWorld({ buildId: 'v2', rollout: progressive }, ramping(50, 6)));
  assert.deepEqual(last.calls, [
    'temporal.describe',
    'temporal.changeRouting setCurrent v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(last.events, ['Normal VersionPromoted']);
});

test("analysis: a pause that is over reads both builds' outcomes since the ramp; a healthy build moves on, said once", async () => {
  const analysed = { ...progressive, analysis: { maxFailureRate: 0.05, maxFailureRateIncrease: 0.1 } };
  const world = {
    ...rolloutWorld({ buildId: 'v2', rollout: analysed }, ramping(10, 6)),
    outcomes: { v2: { closed: 30, failed: 1 }, v1: { closed: 300, failed: 6 } },
  };
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, [
    'temporal.describe',
    `temporal.countOutcomes v2 since ${minutesAgo(6).toISOString()}`,
    `temporal.countOutcomes v1 since ${minutesAgo(6).toISOString()}`,
    'temporal.changeRouting setRamp v2 50%',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal AnalysisPassed', 'Normal VersionRamped']);
  assert.deepEqual(run.analysisVerdicts, ['Passed'], 'counted for twc_analysis_verdicts_total');
  assert.partialDeepStrictEqual(run.status?.targetVersion?.analysis, {
    step: 1,
    verdict: 'Passed',
    closed: 30,
    failed: 1,
  });
});

test('analysis: a build over the limit inside its pause has its ramp removed; the next reconcile reads no count and ramps nothing', async () => {
  const analysed = { ...progressive, analysis: { maxFailureRate: 0.05 } };
  const world = {
    ...rolloutWorld({ buildId: 'v2', rollout: analysed }, ramping(10, 2)),
    outcomes: { v2: { closed: 20, failed: 6 } },
  };
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, [
    'temporal.describe',
    `temporal.countOutcomes v2 since ${minutesAgo(2).toISOString()}`,
    'temporal.changeRouting clearRamp',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal RampCleared', 'Warning AnalysisFailed']);
  assert.deepEqual(run.analysisVerdicts, ['Failed']);
  const stored = { ...world.workerDeployment, status: run.status };
  const after = await recordedReconcile({
    ...rolloutWorld({ buildId: 'v2', rollout: analysed }),
    workerDeployment: stored,
  });
  assert.deepEqual(after.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual(after.events, ['Warning AnalysisFailed'], 'the same Warning, which the recorder counts as a repeat');
  assert.deepEqual(after.analysisVerdicts, [], 'the verdict is counted once');
});

const byMetrics = {
  ...progressive,
  analysis: {
    prometheus: { name: 'main' },
    metrics: [{ name: 'errors', query: 'sum(rate(failures{build="{{ .BuildID }}"}[{{ .Window }}]))', max: 0.1 }],
  },
};
const main = { name: 'main', url: 'http://prometheus.monitoring:9090', tenantAuth: false };

test('metric analysis: an answer over its max inside the pause removes the ramp, read with no count of workflows; the status keeps the answer', async () => {
  const world = {
    ...rolloutWorld({ buildId: 'v2', rollout: byMetrics }, ramping(10, 2)),
    analysisPrometheus: [main],
    metricAnswers: { 'sum(rate(failures{build="v2"}[120s]))': { value: 0.3 } },
  };
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'prometheus.query http://prometheus.monitoring:9090 sum(rate(failures{build="v2"}[120s]))',
    'temporal.changeRouting clearRamp',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal RampCleared', 'Warning AnalysisFailed']);
  assert.deepEqual(run.analysisVerdicts, ['Failed']);
  assert.partialDeepStrictEqual(run.status?.targetVersion?.analysis, {
    verdict: 'Failed',
    metrics: [{ name: 'errors', value: 0.3 }],
    message: 'analysis of step 1 of build v2: metric errors is 0.3, above max 0.1',
  });
  assert.equal(run.status?.targetVersion?.analysis?.closed, undefined, 'no workflows counted');
});

test('metric analysis: an endpoint the controller does not allow holds the step, past its pause, and says so; nothing is queried', async () => {
  const world = {
    ...rolloutWorld({ buildId: 'v2', rollout: byMetrics }, ramping(10, 6)),
    analysisPrometheus: [{ ...main, name: 'other' }],
  };
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10'], 'no query, no ramp');
  assert.deepEqual(run.analysisVerdicts, []);
  const progressing = run.status?.conditions?.find((c) => c.type === 'Progressing');
  assert.match(
    progressing?.message ?? '',
    /spec\.rollout\.analysis\.prometheus\.name: "main" is not a Prometheus endpoint this controller allows \(--analysis-prometheus: other\)/,
  );
});

test("metric analysis: a tenant-auth endpoint is queried with the worker deployment's own token, and refused without one", async () => {
  const tenant = { ...main, tenantAuth: true };
  const withToken = {
    ...byMetrics,
    analysis: {
      ...byMetrics.analysis,
      prometheus: { name: 'main', bearerTokenSecretRef: { name: 'prom', key: 'token' } },
    },
  };
  const run = await recordedReconcile({
    ...rolloutWorld({ buildId: 'v2', rollout: withToken }, ramping(10, 6)),
    analysisPrometheus: [tenant],
    secrets: [
      {
        metadata: { namespace: NAMESPACE, name: 'prom' },
        data: { token: Buffer.from('tenant-token\n').toString('base64') },
      },
    ],
    metricAnswers: { 'sum(rate(failures{build="v2"}[360s]))': { value: 0.01 } },
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'prometheus.query http://prometheus.monitoring:9090 sum(rate(failures{build="v2"}[360s])) with bearer tenant-token',
    'temporal.changeRouting setRamp v2 50%',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal AnalysisPassed', 'Normal VersionRamped']);
  const refused = await recordedReconcile({
    ...rolloutWorld({ buildId: 'v2', rollout: byMetrics }, ramping(10, 6)),
    analysisPrometheus: [tenant],
  });
  assert.deepEqual(refused.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.match(
    refused.status?.conditions?.find((c) => c.type === 'Progressing')?.message ?? '',
    /bearerTokenSecretRef: endpoint main takes queries only with the worker deployment's own token/,
  );
});

test('analysis after an AllAtOnce promotion: counted since Temporal promoted it; a failure makes the build current before current again; a rollback is not judged', async () => {
  const baked = { strategy: 'AllAtOnce' as const, analysis: { window: '10m', maxFailureRate: 0.05 } };
  const promoted: TemporalDeploymentState = { ...v2CurrentV1Draining, currentChangedAt: minutesAgo(3) };
  const stored = workerDeployment({ buildId: 'v2', rollout: baked });
  stored.status = {
    deprecatedVersions: [{ buildID: 'v1', status: 'Draining', lastCurrentTime: minutesAgo(3).toISOString() }],
  };
  const world = {
    ...rolloutWorld({ buildId: 'v2', rollout: baked }, promoted),
    workerDeployment: stored,
    outcomes: { v2: { closed: 40, failed: 8 } },
  };
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, [
    'temporal.describe',
    `temporal.countOutcomes v2 since ${minutesAgo(3).toISOString()}`,
    'temporal.changeRouting setCurrent v1',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.status?.currentVersion?.buildID, 'v1');
  assert.partialDeepStrictEqual(run.status?.targetVersion?.analysis, { verdict: 'Failed', closed: 40, failed: 8 });

  const healthy = await recordedReconcile({ ...world, outcomes: { v2: { closed: 40, failed: 0 } } });
  assert.deepEqual(healthy.calls, [
    'temporal.describe',
    `temporal.countOutcomes v2 since ${minutesAgo(3).toISOString()}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(
    healthy.status?.conditions?.find((c) => c.type === 'Progressing')?.reason,
    'AnalysisPending',
    'current, and still judged until the window ends',
  );

  // A build active an hour before this promotion was rolled back to: it is not judged, so no
  // failure can send new workflows back to the build the spec just left.
  const rolledBackTo: TemporalDeploymentState = {
    ...promoted,
    versions: promoted.versions.map((v) => (v.buildId === 'v2' ? { ...v, firstActiveAt: minutesAgo(60) } : v)),
  };
  const rollback = await recordedReconcile({ ...world, temporal: rolledBackTo });
  assert.deepEqual(rollback.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.equal(rollback.status?.currentVersion?.buildID, 'v2');
});

test("the target's failing Pods are said and warned of, read from the cache: no call beyond the status", async () => {
  const world = rolloutWorld();
  const failing = (name: string, deploymentName: string) => ({
    metadata: {
      name,
      namespace: NAMESPACE,
      labels: { 'temporal.io/deployment-name': deploymentName, 'temporal.io/build-id': 'v2' },
    },
    status: {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'worker',
          image: 'orders:v2',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ImagePullBackOff', message: 'no such image' } },
        },
      ],
    },
  });
  const run = await recordedReconcile({
    ...world,
    deployments: [world.deployments[0]!, deployment(world.workerDeployment, 'v2', { available: false })],
    temporal: { ...v1Current, versions: [v1Current.versions[0]!] },
    pods: [failing('orders-v2-a', 'orders'), failing('payments-v2-a', 'payments')],
  });
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual(run.events, ['Warning PodsFailing']);
  const progressing = run.status?.conditions?.find((c) => c.type === 'Progressing');
  assert.equal(progressing?.reason, 'PodsFailing');
  assert.match(progressing?.message ?? '', /Pod orders-v2-a container worker: ImagePullBackOff: no such image/);
  assert.doesNotMatch(progressing?.message ?? '', /payments/, "another worker deployment's Pods are not this one's");
});

/** The calls of a reconcile that reads gate run `id` and starts the gate on the target, v2. */
const gateStartCalls = (id: string) => [
  'temporal.describe',
  'temporal.taskQueues v2',
  `temporal.readGate ${id}`,
  `temporal.startGate v2 Smoke on ${TASK_QUEUE}`,
  'k8s.replaceStatus orders@10',
];

test('a gate with no run yet: its task queues and run are read, it starts pinned to the target once the queue was listed 10 s before, and routing waits', async () => {
  const world = rolloutWorld({ buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } });
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const listed = await recordedReconcile(world);
  assert.deepEqual(listed.calls, [
    'temporal.describe',
    'temporal.taskQueues v2',
    `temporal.readGate ${id}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(listed.status?.targetVersion?.gateQueuesListed, {
    taskQueues: [TASK_QUEUE],
    since: now.toISOString(),
  });
  const waiting = listed.status?.targetVersion?.gates?.[0];
  assert.deepEqual([listed.result?.requeueAfterMs, waiting?.status, waiting?.runID], [10_000, 'Waiting', undefined]);
  assert.match(
    listed.status?.conditions?.find((c) => c.type === 'Progressing')?.message ?? '',
    new RegExp(`gate rollout starts on ${TASK_QUEUE} at 2026-11-23T12:00:10.000Z`),
  );

  const owner = { ...world.workerDeployment, status: listed.status };
  const run = await recordedReconcile({ ...world, now: new Date(now.getTime() + 10_000), workerDeployment: owner });
  assert.deepEqual(run.calls, gateStartCalls(id));
  assert.deepEqual(run.status?.targetVersion?.gates, [
    {
      stage: 'rollout',
      taskQueue: TASK_QUEUE,
      workflowID: id,
      runID: STARTED_GATE_RUN,
      status: 'Running',
      generation: 1,
    },
  ]);
});

test('a build whose workers poll no activities gets its gate on its workflow queue once its registration grace has passed', async () => {
  const world = rolloutWorld({ buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } });
  const workflowsOnly = { workflow: [TASK_QUEUE], activity: [] };
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const owner = world.workerDeployment;
  const young = await recordedReconcile({
    ...world,
    taskQueues: workflowsOnly,
    deployments: [
      deployment(owner, 'v1', { since: minutesAgo(60) }),
      deployment(owner, 'v2', { since: minutesAgo(0.25) }),
    ],
  });
  assert.deepEqual(young.calls, ['temporal.describe', 'temporal.taskQueues v2', 'k8s.replaceStatus orders@10']);
  assert.match(
    young.status?.conditions?.find((c) => c.type === 'Progressing')?.message ?? '',
    /gate rollout waits for the build's workers to register a task queue for workflows and activities/,
  );

  const grown = await recordedReconcile(listedBefore({ ...world, taskQueues: workflowsOnly }));
  assert.deepEqual(grown.calls, gateStartCalls(id));
});

test('a gate run of another spec of the gate, still running, is terminated; the gate of the new spec starts under its own ID', async () => {
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const old = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate: { workflowType: 'Old' } }, TASK_QUEUE);
  const started = { stage: 'rollout', taskQueue: TASK_QUEUE, workflowID: old, status: 'Running', generation: 1 };
  const owner = workerDeployment(
    { buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } },
    { generation: 2 },
    { targetVersion: { buildID: 'v2', status: 'Inactive', gates: [started] } },
  );
  const run = await recordedReconcile(
    listedBefore({
      ...rolloutWorld(),
      workerDeployment: owner,
      gateRuns: { [old]: { workflowId: old, runId: 'run-1', workflowType: 'Old', status: 'Running' } },
    }),
  );
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.taskQueues v2',
    `temporal.readGate ${id}`,
    `temporal.terminateGate ${old} `,
    `temporal.startGate v2 Smoke on ${TASK_QUEUE}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal GateTerminated', 'Normal GateStarted']);
  assert.deepEqual(run.status?.targetVersion?.gates, [
    { ...started, workflowID: id, runID: STARTED_GATE_RUN, generation: 2 },
  ]);
});

test('a stuck gate run is reported and left alone; the retry annotation replaces it, once', async () => {
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const started = {
    stage: 'rollout',
    taskQueue: TASK_QUEUE,
    workflowID: id,
    runID: 'run-1',
    status: 'Running',
    generation: 1,
  };
  const stuck = ownGateRun(id, 'Running', { stuck: 'its workflow task fails: unknown workflow type' });
  const world = (annotations: Record<string, string>, gateRetry?: string): World => ({
    ...rolloutWorld(),
    workerDeployment: workerDeployment(
      { buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } },
      { annotations },
      { targetVersion: { buildID: 'v2', status: 'Inactive', gates: [started], ...(gateRetry ? { gateRetry } : {}) } },
    ),
    gateRuns: { [id]: stuck },
  });
  const reported = await recordedReconcile(world({}));
  assert.deepEqual(reported.calls, [
    'temporal.describe',
    'temporal.taskQueues v2',
    `temporal.readGate ${id}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(reported.events, ['Warning GateStuck']);
  const stalled = reported.status?.conditions?.find((c) => c.type === 'Stalled');
  assert.equal(stalled?.reason, 'GateStuck');
  assert.match(stalled?.message ?? '', /unknown workflow type/);

  const retried = await recordedReconcile(world({ 'temporal.io/retry-gate': 'a' }));
  assert.deepEqual(retried.calls.slice(3), [
    `temporal.terminateGate ${id} run-1`,
    `temporal.startGate v2 Smoke on ${TASK_QUEUE}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(retried.status?.targetVersion?.gateRetry, 'a');
  const again = await recordedReconcile(world({ 'temporal.io/retry-gate': 'a' }, 'a'));
  assert.ok(!again.calls.some((c) => c.startsWith('temporal.terminateGate')), 'a value already acted on is not');
});

test('a gate input from a ConfigMap is read when the gate starts; a missing one stalls, naming it', async () => {
  const fromConfigMap = { workflowType: 'Smoke', inputFrom: { configMapKeyRef: { name: 'smoke', key: 'input' } } };
  const world = listedBefore(rolloutWorld({ buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate: fromConfigMap } }));
  const ok = await recordedReconcile({ ...world, keys: { 'ConfigMap/smoke/input': '{"n":1}' } });
  assert.deepEqual(ok.calls.slice(3), [
    'k8s.readKey ConfigMap/smoke',
    `temporal.startGate v2 Smoke on ${TASK_QUEUE}`,
    'k8s.replaceStatus orders@10',
  ]);
  const missing = await recordedReconcile(world);
  assert.deepEqual(missing.calls.slice(3), ['k8s.readKey ConfigMap/smoke', 'k8s.replaceStatus orders@10']);
  const stalled = missing.status?.conditions?.find((c) => c.type === 'Stalled');
  assert.deepEqual(
    [stalled?.reason, stalled?.message],
    ['GateInputInvalid', `gate rollout of build v2 cannot start: ConfigMap ${NAMESPACE}/smoke does not exist`],
  );
  assert.equal(missing.status?.targetVersion?.gates, undefined, 'a run that was not started is not remembered');
});

test('a gate that completed lets the target be promoted', async () => {
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const run = await recordedReconcile({
    ...gateStarted(rolloutWorld({ buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } }), 'rollout', id),
    gateRuns: { [id]: ownGateRun(id, 'Completed') },
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.taskQueues v2',
    `temporal.readGate ${id}`,
    'temporal.changeRouting setCurrent v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal GatePassed', 'Normal VersionPromoted']);
});

/** `world` whose status remembers starting the gate run `id` of `stage` on the target: the controller's own run. */
function gateStarted(world: World, stage: string, id: string): World {
  const status = {
    targetVersion: {
      buildID: 'v2',
      status: 'Inactive',
      gates: [{ stage, taskQueue: TASK_QUEUE, workflowID: id, runID: 'run-1', status: 'Running', generation: 1 }],
    },
  };
  return { ...world, workerDeployment: { ...world.workerDeployment, status } };
}

/** The run gateStarted remembers, as Temporal reports it: run-1 of the gate's type, pinned to v2. */
function ownGateRun(id: string, status: GateRun['status'], changes: Partial<GateRun> = {}): GateRun {
  const pinnedTo = { deploymentName: temporalName, buildId: 'v2' };
  return { workflowId: id, runId: 'run-1', workflowType: gate.workflowType, pinnedTo, status, ...changes };
}

test('a failed gate stops the rollout: no routing call, the failure is remembered and reported', async () => {
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const run = await recordedReconcile({
    ...gateStarted(rolloutWorld({ buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } }), 'rollout', id),
    gateRuns: { [id]: ownGateRun(id, 'Failed', { message: 'failed: smoke test broke' }) },
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.taskQueues v2',
    `temporal.readGate ${id}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.status?.targetVersion?.gateFailure?.workflowID, id);
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Stalled')?.reason, 'GateFailed');
});

const stepTwoGated = { ...progressive, steps: [progressive.steps[0]!, { ...progressive.steps[1]!, gate }] };
const stepTwoGate = gateWorkflowId(temporalName, 'v2', { name: 'step-2', gate }, TASK_QUEUE);

test("a step's gate runs before that step's ramp is set: the ramp of the step before holds meanwhile", async () => {
  const run = await recordedReconcile(
    listedBefore(rolloutWorld({ buildId: 'v2', rollout: stepTwoGated }, ramping(10, 6))),
  );
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.taskQueues v2',
    `temporal.readGate ${stepTwoGate}`,
    `temporal.startGate v2 Smoke on ${TASK_QUEUE}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.status?.targetVersion?.rampPercentage, 10);
  assert.match(
    run.status?.conditions?.find((c) => c.type === 'Progressing')?.message ?? '',
    /step 1 of build v2 is over: waiting for the gate of step 2 before its ramp of 50%/,
  );
});

test("a step's gate that passed lets its ramp be set", async () => {
  const run = await recordedReconcile({
    ...gateStarted(rolloutWorld({ buildId: 'v2', rollout: stepTwoGated }, ramping(10, 6)), 'step-2', stepTwoGate),
    gateRuns: { [stepTwoGate]: ownGateRun(stepTwoGate, 'Completed') },
  });
  assert.deepEqual(run.calls.slice(2), [
    `temporal.readGate ${stepTwoGate}`,
    'temporal.changeRouting setRamp v2 50%',
    'k8s.replaceStatus orders@10',
  ]);
});

test("a step's gate that failed aborts the ramp of the step before: its own ramp is never set", async () => {
  const run = await recordedReconcile({
    ...gateStarted(rolloutWorld({ buildId: 'v2', rollout: stepTwoGated }, ramping(10, 2)), 'step-2', stepTwoGate),
    gateRuns: { [stepTwoGate]: ownGateRun(stepTwoGate, 'Failed', { message: 'failed' }) },
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.taskQueues v2',
    `temporal.readGate ${stepTwoGate}`,
    'temporal.changeRouting clearRamp',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal RampCleared', 'Warning RolloutAborted']);
});

test('right after a ramp was aborted, a reconcile whose cache lacks that status write does not ramp again', async () => {
  const ownWrites = new OwnWrites<TemporalWorkerDeployment>();
  const world: World = {
    ...gateStarted(rolloutWorld({ buildId: 'v2', rollout: stepTwoGated }, ramping(10, 2)), 'step-2', stepTwoGate),
    gateRuns: { [stepTwoGate]: ownGateRun(stepTwoGate, 'Failed', { message: 'failed' }) },
    ownWrites,
  };
  const aborted = await recordedReconcile(world);
  assert.ok(aborted.calls.includes('temporal.changeRouting clearRamp'));
  // It comes back at once after the routing change; the informer has not shown the status yet.
  const next = await recordedReconcile({ ...world, temporal: v1Current });
  assert.deepEqual(
    next.calls.filter((c) => c.startsWith('temporal.changeRouting')),
    [],
    'the failed gate is remembered: no ramp is set again',
  );
});

test('a failed run the status never started (an earlier rollout of the build) is run again, not believed', async () => {
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const run = await recordedReconcile(
    listedBefore({
      ...rolloutWorld({ buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } }),
      gateRuns: { [id]: { workflowId: id, status: 'Failed', message: 'timed out: its workers were scaled away' } },
    }),
  );
  assert.deepEqual(run.calls, gateStartCalls(id));
});

test("a gate run someone else started and completed under the gate's workflow ID does not pass the gate: the controller starts its own, records its run ID, and reports the forged one", async () => {
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const world = gateStarted(rolloutWorld({ buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } }), 'rollout', id);
  const run = await recordedReconcile({
    ...world,
    gateRuns: { [id]: ownGateRun(id, 'Completed', { runId: 'forged' }) },
  });
  assert.deepEqual(run.calls, gateStartCalls(id));
  assert.deepEqual(run.events, ['Normal GateStarted', 'Warning GateRunForeign']);
  const stalled = run.status?.conditions?.find((c) => c.type === 'Stalled');
  assert.equal(stalled?.reason, 'GateRunForeign');
  assert.match(stalled?.message ?? '', new RegExp(`completed run forged of workflow ${id}`));
  assert.deepEqual(
    run.status?.targetVersion?.gates?.map((g) => g.runID),
    [STARTED_GATE_RUN],
    'the new run is the one that counts',
  );
});

test('a running gate run the controller did not start is terminated, that very run, before its own starts', async () => {
  const id = gateWorkflowId(temporalName, 'v2', { name: 'rollout', gate }, TASK_QUEUE);
  const run = await recordedReconcile(
    listedBefore({
      ...rolloutWorld({ buildId: 'v2', rollout: { strategy: 'AllAtOnce', gate } }),
      gateRuns: { [id]: ownGateRun(id, 'Running', { runId: 'forged', workflowType: 'Noop' }) },
    }),
  );
  assert.deepEqual(run.calls.slice(2), [
    `temporal.readGate ${id}`,
    `temporal.terminateGate ${id} forged`,
    `temporal.startGate v2 Smoke on ${TASK_QUEUE}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal GateTerminated', 'Normal GateStarted', 'Warning GateRunForeign']);
});

test('the gate runs of a build that is no longer the target are terminated', async () => {
  const id = gateWorkflowId(temporalName, 'v3', { name: 'rollout', gate }, TASK_QUEUE);
  const world = rolloutWorld({ buildId: 'v2' });
  const status = {
    targetVersion: {
      buildID: 'v3',
      status: 'Inactive',
      gates: [{ stage: 'rollout', taskQueue: TASK_QUEUE, workflowID: id, status: 'Running', generation: 1 }],
    },
  };
  const run = await recordedReconcile({ ...world, workerDeployment: { ...world.workerDeployment, status } });
  assert.deepEqual(run.calls.slice(0, 2), ['temporal.describe', `temporal.terminateGate ${id} `]);
});

test('rollback: a build current within the window is promoted at once, without its gate', async () => {
  const world = rolloutWorld(
    { buildId: 'v1', rollout: { strategy: 'Progressive', steps: progressive.steps, gate } },
    {
      ...v1Current,
      currentBuildId: 'v2',
      versions: [
        { buildId: 'v1', status: 'Draining', everActive: true, lastCurrentAt: minutesAgo(10) },
        { buildId: 'v2', status: 'Current', everActive: true },
      ],
    },
  );
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.changeRouting setCurrent v1',
    'k8s.replaceStatus orders@10',
  ]);
});

test("at the server's cap, the oldest drained build's record is deleted to make room for an unregistered target", async () => {
  const owner = workerDeployment({ buildId: 'v3' });
  const versions = Array.from({ length: 100 }, (_, i) => ({
    buildId: `old${i}`,
    status: 'Drained' as const,
    everActive: true,
    drainedSince: minutesAgo(600 - i),
  }));
  const run = await recordedReconcile({
    now,
    workerDeployment: owner,
    connection: connection(),
    // Every old build keeps a Deployment at 0: a build without one would lose its record anyway.
    deployments: [
      ...versions.slice(0, 99).map((v) => deployment(owner, v.buildId, { replicas: 0, since: minutesAgo(700) })),
      deployment(owner, 'v3', { since: minutesAgo(1) }),
    ],
    temporal: {
      exists: true,
      managerIdentity: IDENTITY,
      versions: [...versions.slice(0, 99), { buildId: 'v1', status: 'Current', everActive: true }],
      currentBuildId: 'v1',
    },
  });
  assert.deepEqual(
    run.calls.filter((c) => c.startsWith('temporal.deleteVersionRecord')),
    ['temporal.deleteVersionRecord old0'],
  );
  assert.ok(run.status?.targetVersion?.madeRoomAt, 'the status remembers when room was made');
});

// A spec admission would refuse now, stored before the rule, and a field this controller does not
// know (a newer CRD, the controller rolled back: ignored, a newer version's field that holds a
// rollout back would let traffic move). Either way nothing runs but the status, which names it.
for (const { what, change, said } of [
  {
    what: 'a stored object that admission now refuses (a reserved env name)',
    change: (spec: TemporalWorkerDeployment['spec']) =>
      Object.assign(spec.template.spec.containers[0]!, { env: [{ name: 'TEMPORAL_API_KEY', value: 'mine' }] }),
    said:
      'spec.template.spec.containers[0].env: container worker sets TEMPORAL_API_KEY, which only the controller sets ' +
      '(from the TemporalConnection and the build): remove it from the template',
  },
  {
    what: 'a spec field this controller does not know (a newer CRD, the controller rolled back)',
    change: (spec: TemporalWorkerDeployment['spec']) =>
      Object.assign(spec, { rollout: { strategy: 'AllAtOnce', holdUntilApproved: true } }),
    said: "spec.rollout.holdUntilApproved: a field this controller does not know (a newer version's?)",
  },
]) {
  test(`${what}: nothing runs but the status, which names it`, async () => {
    const world = rolloutWorld();
    change(world.workerDeployment.spec);
    const run = await recordedReconcile(world);
    assert.deepEqual(run.calls, ['k8s.replaceStatus orders@10']);
    assert.deepEqual(run.events, ['Warning InvalidSpec']);
    const stalled = run.status?.conditions?.find((c) => c.type === 'Stalled');
    assert.deepEqual(
      [stalled?.status, stalled?.reason, stalled?.message],
      ['True', 'InvalidSpec', `${said}; the running builds are left as they are until the spec is fixed`],
    );
  });
}

test('a stored status an older controller wrote (no analysis.checkedAt) stops nothing: the reconcile goes on, says so once, and writes a status that fits', async () => {
  const baked = { strategy: 'AllAtOnce' as const, analysis: { window: '10m', maxFailureRate: 0.05 } };
  const world = {
    ...rolloutWorld({ buildId: 'v2', rollout: baked }, { ...v2CurrentV1Draining, currentChangedAt: minutesAgo(3) }),
    outcomes: { v2: { closed: 40, failed: 0 } },
  };
  const written = (await recordedReconcile(world)).status;
  const { checkedAt, ...older } = written?.targetVersion?.analysis ?? {};
  assert.ok(checkedAt, 'the status this controller writes has it');
  const stored = {
    ...world.workerDeployment,
    status: { ...written, targetVersion: { ...written!.targetVersion!, analysis: older } },
  } as TemporalWorkerDeployment;
  assert.notDeepEqual(validate(KINDS.TemporalWorkerDeployment.schema, stored), [], 'the older status does not fit');

  const run = await recordedReconcile({ ...world, workerDeployment: stored });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    `temporal.countOutcomes v2 since ${minutesAgo(3).toISOString()}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.eventMessages, [
    "StatusUnreadable: the stored status does not fit this controller's schema (an older controller wrote it?): " +
      'status.targetVersion.analysis.checkedAt: Expected required property; the controller goes on as if that part ' +
      'had never been written, and writes the status anew',
  ]);
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Stalled')?.status ?? 'False', 'False');
  assert.deepEqual(validate(KINDS.TemporalWorkerDeployment.schema, { ...stored, status: run.status }), []);
  assert.equal(run.status?.targetVersion?.analysis?.checkedAt, now.toISOString());
  const again = await recordedReconcile({ ...world, workerDeployment: stored });
  assert.deepEqual(again.events, [], 'said once for the object the cache holds');
});

test('each Kubernetes action is an event that says what was done, to which Deployment, and why', async () => {
  const owner = workerDeployment({ buildId: 'v3', replicas: 1 });
  const run = await recordedReconcile({
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [
      deployment(owner, 'v1', { replicas: 0, since: minutesAgo(300) }),
      deployment(owner, 'v2', { replicas: 2, since: minutesAgo(200) }),
    ],
    temporal: v2CurrentV1Draining,
  });
  assert.deepEqual(run.eventMessages, [
    'DeploymentCreated: created Deployment orders-v3 for build v3',
    'DeploymentScaled: scaled Deployment orders-v1 of build v1 to 1 replica: build v1 may still have pinned workflows (draining)',
    'DeploymentScaled: scaled Deployment orders-v2 of build v2 to 1 replica: build v2 is current and spec.replicas says 1',
  ]);
});

test('a drained build: scaled to 0 replicas after scaledownDelay, deleted after deleteDelay, each event saying so', async () => {
  const owner = workerDeployment({ buildId: 'v3', sunset: { scaledownDelay: '1h', deleteDelay: '2h' } });
  const drained = (buildId: string, hoursAgo: number) => ({
    buildId,
    status: 'Drained' as const,
    everActive: true,
    drainedSince: minutesAgo(hoursAgo * 60),
  });
  const run = await recordedReconcile({
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [
      deployment(owner, 'v1', { replicas: 0, since: minutesAgo(600) }),
      deployment(owner, 'v2', { replicas: 2, since: minutesAgo(300) }),
      deployment(owner, 'v3', { since: minutesAgo(200) }),
    ],
    temporal: {
      exists: true,
      currentBuildId: 'v3',
      managerIdentity: IDENTITY,
      versions: [drained('v1', 4), drained('v2', 2), { buildId: 'v3', status: 'Current', everActive: true }],
    },
  });
  assert.deepEqual(run.eventMessages, [
    'DeploymentDeleted: deleted Deployment orders-v1 of build v1: build v1 has been drained since 2026-11-23T08:00:00.000Z: past scaledownDelay + deleteDelay',
    'DeploymentScaled: scaled Deployment orders-v2 of build v2 to 0 replicas: build v2 has been drained for longer than scaledownDelay (1h)',
  ]);
  assert.deepEqual(run.result, { requeueAfterMs: 10_000 }, 'the target is current: the next look is a routine one');
});

test('Temporal unreachable: nothing is written but the status, which keeps what it last said of the builds', async () => {
  const world = rolloutWorld();
  const run = await recordedReconcile({
    ...world,
    failures: { 'temporal.describe': new TemporalConnectError('connect ECONNREFUSED') },
  });
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'TemporalUnreachable');
  assert.deepEqual(run.result, { requeueAfterMs: 10_000 });
});

test('Temporal answers not found right after it described the Worker Deployment (its workflow continuing as new): nothing is written, it is asked again in a second, as a look that falls due, and then believed', async () => {
  const lastDescribed = new LastDescribed();
  const world = rolloutWorld({ buildId: 'v1' }, { ...v1Current, versions: v1Current.versions.slice(0, 1) });
  const steady = { ...world, deployments: world.deployments.slice(0, 1), lastDescribed };
  assert.deepEqual((await recordedReconcile(steady)).calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);

  const betweenRuns = await recordedReconcile({ ...steady, temporal: { exists: false, versions: [] } });
  assert.deepEqual(betweenRuns.calls, ['temporal.describe'], 'no status saying every build unregistered');
  assert.deepEqual(betweenRuns.events, []);
  assert.deepEqual(
    betweenRuns.result,
    { requeueAfterMs: NOT_FOUND_RECHECK_MS, priority: 'high' },
    'not a routine look, which waits for a free read token',
  );

  const again = await recordedReconcile({ ...steady, temporal: { exists: false, versions: [] } });
  assert.deepEqual(again.calls, ['temporal.describe', 'k8s.replaceStatus orders@10'], 'asked again, it is believed');
  assert.equal(again.status?.targetVersion?.status, 'NotRegistered');
});

test('Temporal answers not found though the status lists builds it registered: nothing is planned on it until the answer has stood 30 s, the status keeps them and says why', async () => {
  const owner = workerDeployment({ buildId: 'v1' }, {}, { currentVersion: { buildID: 'v1', status: 'Current' } });
  const lastDescribed = new LastDescribed();
  const world: World = {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [deployment(owner, 'v1', { since: minutesAgo(60) })],
    temporal: { exists: false, versions: [] },
    lastDescribed,
  };
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual([run.status?.currentVersion?.buildID, run.status?.currentVersion?.status], ['v1', 'Current']);
  const progressingNow = run.status?.conditions?.find((c) => c.type === 'Progressing');
  assert.deepEqual([progressingNow?.status, progressingNow?.reason], ['False', 'TemporalDeploymentNotFound']);
  assert.equal(
    progressingNow?.message,
    `Temporal has answered since ${now.toISOString()} that Worker Deployment ${temporalName} does not exist, though it registered build v1 (see the status): it answers so for a moment after each change it makes, so the answer is believed once it has stood 30 s; meanwhile the controller asks again and scales down and deletes nothing`,
  );
  assert.deepEqual(run.result, { requeueAfterMs: 10_000 });

  const later = await recordedReconcile({ ...world, now: new Date(now.getTime() + 25_000) });
  assert.deepEqual(later.result, { requeueAfterMs: 5_000 }, 'looked at again when the answer is believed');
  const stood = await recordedReconcile({ ...world, now: new Date(now.getTime() + 30_000) });
  assert.equal(stood.status?.targetVersion?.status, 'NotRegistered', 'believed once it has stood');
});

/** The spec moves on to v3 (a new generation) from the first call starting with `after` on. */
const specChangedToV3After = (after: string): World['changed'] => ({
  after,
  workerDeployment: workerDeployment({ buildId: 'v3' }, { generation: 2, resourceVersion: '11' }),
});

/** v1 current; the spec has just changed to v2, of which nothing exists yet; the last status counted `versionCount` versions. */
function templateChangedWorld(versionCount: number): World {
  const owner = workerDeployment({ buildId: 'v2' }, { generation: 2 }, { observedGeneration: 1, versionCount });
  return {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [deployment(owner, 'v1', { since: minutesAgo(60) })],
    temporal: { ...v1Current, versions: [{ buildId: 'v1', status: 'Current', everActive: true }] },
  };
}

test("a template change creates the new build's Deployment before Temporal is read (issue 11, item 8)", async () => {
  const run = await recordedReconcile(templateChangedWorld(1));
  assert.deepEqual(run.calls, ['k8s.createDeployment orders-v2', 'temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.deepEqual(run.events, ['Normal DeploymentCreated']);
  assert.equal(run.status?.targetVersion?.buildID, 'v2');
});

test('a template change while Temporal is unreachable still creates the new build, and changes nothing in Temporal', async () => {
  const run = await recordedReconcile({
    ...templateChangedWorld(1),
    failures: { 'temporal.describe': new TemporalConnectError('connect ECONNREFUSED') },
  });
  assert.deepEqual(run.calls, ['k8s.createDeployment orders-v2', 'temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'TemporalUnreachable');
});

test("a template change near the limit of versions waits for Temporal's count before creating", async () => {
  const run = await recordedReconcile(templateChangedWorld(74));
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.createDeployment orders-v2', 'k8s.replaceStatus orders@10']);
});

test('a failed early create is said in the status and tried again at the next poll, Temporal unread', async () => {
  const run = await recordedReconcile({
    ...templateChangedWorld(1),
    failures: { 'k8s.createDeployment': new Error('admission webhook denied the request') },
  });
  assert.deepEqual(run.calls, ['k8s.createDeployment orders-v2', 'k8s.replaceStatus orders@10']);
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'DeploymentCreateFailed');
  assert.deepEqual(run.events, ['Warning DeploymentCreateFailed']);
  assert.deepEqual(run.result, { requeueAfterMs: 10_000 });
});

test('a spec changed while Temporal was read: the plan made for the old spec is dropped, and the change is reconciled at once', async () => {
  const world = rolloutWorld();
  const run = await recordedReconcile({
    ...world,
    changed: specChangedToV3After('temporal.describe'),
  });
  assert.deepEqual(run.calls, ['temporal.describe']);
  assert.deepEqual(run.result, { requeueAfterMs: 0 });
});

test('a spec changed while the plan runs: the actions left are not taken, and the status says what was done', async () => {
  const world = rolloutWorld(
    { buildId: 'v2' },
    { ...v1Current, versions: [...v1Current.versions, { buildId: 'v0', status: 'Drained', everActive: true }] },
  );
  const full = await recordedReconcile(world);
  assert.deepEqual(full.calls, [
    'temporal.describe',
    'temporal.changeRouting setCurrent v2',
    'temporal.deleteVersionRecord v0',
    'k8s.replaceStatus orders@10',
  ]);
  const run = await recordedReconcile({
    ...world,
    changed: specChangedToV3After('temporal.changeRouting'),
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.changeRouting setCurrent v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.status?.currentVersion?.buildID, 'v2', 'the promotion done is remembered');
});

test(
  'a spec changed while Temporal is slow to describe: the reconcile gives way at once, without the answer',
  { timeout: 5000 },
  async () => {
    const run = await recordedReconcile({
      ...rolloutWorld(),
      describeHangs: true,
      changed: specChangedToV3After('temporal.describe'),
    });
    assert.deepEqual(run.calls, ['temporal.describe']);
    assert.deepEqual(run.result, { requeueAfterMs: 0 });
  },
);

test('Temporal rate-limited: nothing is written but the status, and the reconcile backs off', async () => {
  const limited = new TemporalCallError('DescribeWorkerDeployment', {
    code: GrpcStatus.RESOURCE_EXHAUSTED,
    details: 'namespace rate limit exceeded',
  });
  const run = await recordedReconcile({ ...rolloutWorld(), failures: { 'temporal.describe': limited } });
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'TemporalRateLimited');
});

test('a changed connection rolls every build in place, old ones included', async () => {
  const world = rolloutWorld(
    { buildId: 'v2' },
    {
      ...v1Current,
      currentBuildId: 'v2',
      versions: [
        { buildId: 'v1', status: 'Draining', everActive: true },
        { buildId: 'v2', status: 'Current', everActive: true },
      ],
    },
  );
  const owner = world.workerDeployment;
  const run = await recordedReconcile({
    ...world,
    deployments: [
      deployment(owner, 'v1', { hostPort: 'old:7233' }),
      deployment(owner, 'v2', { hostPort: 'old:7233', since: minutesAgo(2) }),
    ],
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'k8s.replaceDeployment orders-v1',
    'k8s.replaceDeployment orders-v2',
    'k8s.replaceStatus orders@10',
  ]);
});

test('a changed template under a custom build ID rolls the target in place', async () => {
  const world = rolloutWorld(
    { buildId: 'v2' },
    { ...v1Current, currentBuildId: 'v2', versions: [{ buildId: 'v2', status: 'Current', everActive: true }] },
  );
  const before = workerDeployment({
    buildId: 'v2',
    template: { spec: { containers: [{ name: 'worker', image: 'orders:old' }] } },
  });
  const run = await recordedReconcile({ ...world, deployments: [deployment(before, 'v2', { since: minutesAgo(2) })] });
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceDeployment orders-v2', 'k8s.replaceStatus orders@10']);
});

test('pools: the target gets one Deployment per pool, and is promoted only once every pool is available', async () => {
  const pools = [
    { name: 'a', replicas: 1 },
    { name: 'b', replicas: 2 },
  ];
  const owner = workerDeployment({ buildId: 'v2', pools });
  const world = {
    ...rolloutWorld({ buildId: 'v2', pools }),
    deployments: [deployment(owner, 'v1', { pool: 'a', since: minutesAgo(60) })],
  };
  const first = await recordedReconcile(world);
  assert.deepEqual(first.calls, [
    'temporal.describe',
    'k8s.createDeployment orders-a-v2',
    'k8s.createDeployment orders-b-v2',
    'k8s.replaceStatus orders@10',
  ]);
  const half = await recordedReconcile({
    ...world,
    deployments: [
      ...world.deployments,
      deployment(owner, 'v2', { pool: 'a' }),
      deployment(owner, 'v2', { pool: 'b', available: false }),
    ],
  });
  assert.deepEqual(half.calls, ['temporal.describe', 'k8s.replaceStatus orders@10'], 'pool b is not available yet');
});

test('a failed Kubernetes action stops the reconcile: no routing, no record deletion, the failure is reported', async () => {
  const world = rolloutWorld();
  const run = await recordedReconcile({
    ...world,
    temporal: {
      ...v1Current,
      versions: [...v1Current.versions, { buildId: 'v9', status: 'Drained', everActive: true }],
    },
    failures: { 'k8s.scaleDeployment': Object.assign(new Error('denied'), { code: 403 }) },
    workerDeployment: workerDeployment({ buildId: 'v2', replicas: 3 }),
  });
  // v1 is left at its count: the plan promotes v2, after which v1 drains.
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.scaleDeployment orders-v2 3', 'k8s.replaceStatus orders@10']);
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'DeploymentScaleFailed');
});

/** The world of `world`, its worker deployment being deleted. */
function deleting(
  world: World,
  annotations: Record<string, string> = {},
  status?: World['workerDeployment']['status'],
): World {
  const owner = world.workerDeployment;
  // The informers' objects carry the deletion time, which the API's type does not list.
  const metadata = { ...owner.metadata, deletionTimestamp: now, annotations };
  return {
    ...world,
    workerDeployment: {
      ...owner,
      metadata,
      ...(status ? { status } : {}),
    },
  };
}
const progressingOf = (run: { status: World['workerDeployment']['status'] }) =>
  run.status?.conditions?.find((c) => c.type === 'Progressing');

test('deletion: new workflows go back to unversioned workers, a build that never took traffic goes, the current one stays until drained', async () => {
  const run = await recordedReconcile(deleting(rolloutWorld()));
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    'temporal.changeRouting setUnversioned',
    'k8s.deleteDeployment orders-v2',
    'temporal.deleteVersionRecord v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal RoutingCleared', 'Normal DeploymentDeleted', 'Normal VersionRecordDeleted']);
  assert.equal(progressingOf(run)?.reason, 'DeletionWaitsForDrainage');
  assert.deepEqual(run.result, { requeueAfterMs: 10_000 });
});

test('deletion waits while pinned workflows run on a draining build: a Warning says how many and how to go on, once', async () => {
  const world = deleting(
    rolloutWorld(
      { buildId: 'v2' },
      {
        exists: true,
        managerIdentity: IDENTITY,
        versions: [{ buildId: 'v1', status: 'Draining', everActive: true }],
      },
    ),
  );
  world.deployments = world.deployments.slice(0, 1);
  const run = await recordedReconcile({ ...world, runningWorkflows: { v1: 3 } });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Warning DeletionWaitsForWorkflows']);
  const said = progressingOf(run);
  assert.equal(
    said?.message,
    `deletion waits for 3 running workflows on build v1 to finish: the Deployments of build v1 stay until none runs there and Temporal reports it drained. Let the workflows finish, cancel or terminate them (\`temporal workflow terminate --query "(TemporalWorkerDeploymentVersion = '${temporalName}:v1') AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'"\`), or annotate the worker deployment temporal.io/force-delete=true to delete it now and strand them`,
  );

  const again = await recordedReconcile({ ...deleting(world, {}, run.status), runningWorkflows: { v1: 3 } });
  assert.deepEqual(again.calls, ['temporal.describe', 'temporal.countRunningWorkflows v1']);
  assert.deepEqual(again.events, [], 'nothing new to say');
});

test("deletion once every build is drained: Deployments and records go, then Temporal's Worker Deployment and the finalizers", async () => {
  const world = deleting(
    rolloutWorld(
      { buildId: 'v2' },
      {
        exists: true,
        managerIdentity: IDENTITY,
        versions: [
          { buildId: 'v1', status: 'Drained', everActive: true },
          { buildId: 'v2', status: 'Drained', everActive: true },
        ],
      },
    ),
  );
  // Temporal's drained is checked: a workflow counted on a build would keep it (planner-deletion.test.ts).
  const drained = await recordedReconcile({ ...world, runningWorkflows: { v1: 0, v2: 0 } });
  assert.deepEqual(drained.calls, [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    'temporal.countRunningWorkflows v2',
    'k8s.deleteDeployment orders-v1',
    'k8s.deleteDeployment orders-v2',
    'temporal.deleteVersionRecord v1',
    'temporal.deleteVersionRecord v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(drained.result, { requeueAfterMs: 0 }, 'the records are gone: the Worker Deployment can go at once');

  const empty = await recordedReconcile({
    ...world,
    deployments: [],
    temporal: { exists: true, managerIdentity: IDENTITY, versions: [] },
  });
  assert.deepEqual(empty.calls, [
    'temporal.describe',
    'temporal.deleteDeployment',
    'k8s.setFinalizers temporalconnections/temporal []',
    'k8s.setFinalizers temporalworkerdeployments/orders []',
  ]);
  assert.deepEqual(empty.events, ['Normal TemporalCleanedUp']);
  assert.equal(empty.result, undefined);
});

test('deletion after its connection is gone: Temporal is not called, the finalizer comes off, and a Warning says what is left there', async () => {
  const world = deleting(rolloutWorld());
  const gone = {
    ...world,
    connection: { ...world.connection, metadata: { ...world.connection.metadata, name: 'other' } },
  };
  const run = await recordedReconcile(gone);
  assert.deepEqual(run.calls, ['k8s.setFinalizers temporalworkerdeployments/orders []']);
  assert.deepEqual(run.events, ['Warning TemporalCleanupSkipped']);
  assert.equal(run.result, undefined);
});

test('deletion whose record Temporal keeps for its pollers: nothing more until the next poll', async () => {
  const world = deleting(
    rolloutWorld(
      { buildId: 'v2' },
      {
        exists: true,
        managerIdentity: IDENTITY,
        versions: [{ buildId: 'v1', status: 'Drained', everActive: true }],
      },
    ),
  );
  const run = await recordedReconcile({ ...world, deployments: [], recordsWaiting: ['v1'] });
  assert.deepEqual(run.calls, ['temporal.describe', 'temporal.deleteVersionRecord v1', 'k8s.replaceStatus orders@10']);
  assert.deepEqual(run.result, { requeueAfterMs: 10_000 });
  assert.equal(progressingOf(run)?.reason, 'Deleting');
});

test('forced deletion: every build goes at once, records skip drainage, and a Warning says what is stranded', async () => {
  const world = deleting(
    rolloutWorld(
      { buildId: 'v2' },
      {
        ...v1Current,
        versions: [
          { buildId: 'v1', status: 'Current', everActive: true },
          { buildId: 'v2', status: 'Draining', everActive: true },
        ],
      },
    ),
    { 'temporal.io/force-delete': 'true' },
  );
  const run = await recordedReconcile({ ...world, runningWorkflows: { v1: 1, v2: 2 } });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    'temporal.countRunningWorkflows v2',
    'temporal.changeRouting setUnversioned',
    'k8s.deleteDeployment orders-v1',
    'k8s.deleteDeployment orders-v2',
    'temporal.deleteVersionRecord v1 (skipping drainage)',
    'temporal.deleteVersionRecord v2 (skipping drainage)',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.events[0], 'Warning ForcedDeletion');
  assert.equal(
    progressingOf(run)?.message,
    'deleting now, as the annotation temporal.io/force-delete asks: 1 running workflow on build v1, 2 running workflows on build v2 are left without workers',
  );
});

test('deletion of a Worker Deployment managed elsewhere: routing is left alone, the routed build stays, and it says who holds it', async () => {
  const world = deleting(rolloutWorld({ buildId: 'v2' }, { ...v1Current, managerIdentity: 'someone-else' }));
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    'k8s.deleteDeployment orders-v2',
    'temporal.deleteVersionRecord v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.status?.conditions?.find((c) => c.type === 'Stalled')?.reason, 'ManagedElsewhere');
});

/** A twor of `orders` as stored, its status saying what was applied. */
function ownedResource(
  name: string,
  object: Record<string, unknown>,
  status?: TemporalWorkerOwnedResource['status'],
  adopted = true,
): TemporalWorkerOwnedResource {
  return {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerOwnedResource',
    metadata: {
      name,
      namespace: NAMESPACE,
      generation: 1,
      resourceVersion: '7',
      ...(adopted
        ? {
            finalizers: ['temporal.io/delete-protection'],
            ownerReferences: [
              {
                apiVersion: 'temporal.io/v1alpha1',
                kind: 'TemporalWorkerDeployment',
                name: 'orders',
                uid: 'uid-orders',
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: { workerRef: { name: 'orders' }, object: object as TemporalWorkerOwnedResource['spec']['object'] },
    ...(status ? { status } : {}),
  };
}
const pdbObject = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  spec: { minAvailable: 1, selector: { matchLabels: {} } },
};
const hpaObject = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  spec: { scaleTargetRef: {}, minReplicas: 2, maxReplicas: 5 },
};

test('owned resources: a new twor is adopted and gets a copy per build, applied before Temporal is read; then nothing is written again', async () => {
  const world = {
    ...rolloutWorld({ buildId: 'v2' }, ramping(50, 1)),
    ownedResources: [ownedResource('orders-pdb', pdbObject, undefined, false)],
  };
  const first = await recordedReconcile(world);
  const v1 = copyName('orders', 'orders-pdb', 'v1');
  const v2 = copyName('orders', 'orders-pdb', 'v2');
  assert.deepEqual(first.calls.slice(0, 6), [
    'k8s.setOwnerReferences temporalworkerownedresources/orders-pdb [TemporalWorkerDeployment/orders]',
    'k8s.setFinalizers temporalworkerownedresources/orders-pdb [temporal.io/delete-protection]',
    `k8s.apply PodDisruptionBudget/${v1} as twc/${NAMESPACE}/orders-pdb impersonating ${NAMESPACE}/copier`,
    `k8s.apply PodDisruptionBudget/${v2} as twc/${NAMESPACE}/orders-pdb impersonating ${NAMESPACE}/copier`,
    'k8s.replaceOwnedResourceStatus orders-pdb',
    'temporal.describe',
  ]);
  const status = first.ownedResourceStatuses['orders-pdb'];
  assert.deepEqual(
    status?.versions?.map((v) => [v.buildID, v.resourceName, v.applied]),
    [
      ['v1', v1, true],
      ['v2', v2, true],
    ],
  );
  assert.deepEqual(
    status?.conditions?.map((c) => `${c.type}=${c.status}`),
    ['Ready=True', 'Progressing=False', 'Stalled=False'],
  );

  const again = await recordedReconcile({ ...world, ownedResources: [ownedResource('orders-pdb', pdbObject, status)] });
  assert.deepEqual(
    again.calls.filter((c) => /OwnedResource|apply|setOwner|temporalworkerownedresources/.test(c)),
    [],
    'rendered as applied: nothing to write',
  );
});

test("owned resources: one twor's copies are one independent action of the plan's first phase: when its status cannot be written, the other twor and the rollout go on, and a Warning event says so", async () => {
  const world = {
    ...rolloutWorld({ buildId: 'v2' }, ramping(50, 1)),
    ownedResources: [
      ownedResource('orders-pdb-a', pdbObject, undefined, false),
      ownedResource('orders-pdb-b', pdbObject, undefined, false),
    ],
  };
  const unavailable = new KubernetesApiError('PUT', '/x', 503, { kind: 'Status', message: 'etcd is unavailable' });
  const run = await recordedReconcile({
    ...world,
    failures: { 'k8s.replaceOwnedResourceStatus orders-pdb-a': unavailable },
  });
  assert.deepEqual(
    run.calls.filter((c) => c.includes('OwnedResourceStatus') || c === 'temporal.describe'),
    ['k8s.replaceOwnedResourceStatus orders-pdb-a', 'k8s.replaceOwnedResourceStatus orders-pdb-b', 'temporal.describe'],
  );
  assert.ok(run.ownedResourceStatuses['orders-pdb-b'], 'the other twor is written');
  assert.ok(run.calls.includes('temporal.changeRouting setCurrent v2'), `the rollout goes on: ${run.calls.join(', ')}`);
  assert.ok(run.events.includes('Warning OwnedResourceNotSynced'), run.events.join(', '));

  // A conflict is no failure: the twor changed since it was read, and its event brings it back.
  const conflict = new KubernetesApiError('PUT', '/x', 409, {
    kind: 'Status',
    message: 'the object has been modified',
  });
  const raced = await recordedReconcile({
    ...world,
    failures: { 'k8s.replaceOwnedResourceStatus orders-pdb-a': conflict },
  });
  assert.ok(!raced.events.some((e) => e.startsWith('Warning')), raced.events.join(', '));
});

test('owned resources: a copy the API server refuses is said in its twor alone; the other copies and the rollout go on', async () => {
  const v1 = copyName('orders', 'orders-pdb', 'v1');
  const run = await recordedReconcile({
    ...rolloutWorld(),
    ownedResources: [ownedResource('orders-pdb', pdbObject)],
    failures: { [`k8s.apply PodDisruptionBudget/${v1}`]: new Error('spec.minAvailable: Invalid value') },
  });
  assert.ok(run.calls.includes('temporal.changeRouting setCurrent v2'), `the rollout goes on: ${run.calls.join(', ')}`);
  const versions = run.ownedResourceStatuses['orders-pdb']?.versions ?? [];
  assert.deepEqual(
    versions.map((v) => [v.buildID, v.applied]),
    [
      ['v1', false],
      ['v2', true],
    ],
  );
  assert.match(versions[0]?.message ?? '', /^spec\.minAvailable: Invalid value \(tried again in \d+s\)$/);
  assert.ok(
    run.events.includes('Warning CopyNotApplied') && run.events.includes('Warning OwnedResourceNotApplied'),
    run.events.join(', '),
  );
});

test('owned resources: a RoleBinding twor that admission let through (webhook off) is never applied: Stalled=True/KindRefused naming the kind', async () => {
  const roleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'User', name: 'mallory' }],
  };
  const run = await recordedReconcile({
    ...rolloutWorld(),
    ownedResources: [ownedResource('orders-grant', roleBinding), ownedResource('orders-pdb', pdbObject)],
  });
  const applies = run.calls.filter((c) => /k8s\.apply/.test(c));
  assert.ok(
    applies.length > 0 && applies.every((c) => c.startsWith('k8s.apply PodDisruptionBudget/')),
    applies.join(', '),
  );
  const stalledBy = run.ownedResourceStatuses['orders-grant']?.conditions?.find((c) => c.type === 'Stalled');
  assert.equal(stalledBy?.status, 'True');
  assert.equal(stalledBy?.reason, 'KindRefused');
  assert.match(stalledBy?.message ?? '', /RoleBinding of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/);
  assert.deepEqual(run.ownedResourceStatuses['orders-grant']?.versions, []);
  assert.ok(run.events.includes('Warning KindRefused'), run.events.join(', '));
  assert.ok(run.calls.includes('temporal.changeRouting setCurrent v2'), 'the rollout goes on');
});

test("owned resources: copies are written as the twor's ServiceAccount, which the API server may refuse: Stalled=True/CopyForbidden naming the account, the kind and the verb, with an event and a metric; the rollout goes on", async () => {
  const v1 = copyName('orders', 'orders-pdb', 'v1');
  const forbidden = new KubernetesApiError('PATCH', '/x', 403, {
    kind: 'Status',
    message: `poddisruptionbudgets.policy "${v1}" is forbidden: User "system:serviceaccount:shop:pdb-writer" cannot patch resource "poddisruptionbudgets" in API group "policy" in the namespace "shop"`,
  });
  const twor = ownedResource('orders-pdb', pdbObject);
  const world = {
    ...rolloutWorld(),
    ownedResources: [{ ...twor, spec: { ...twor.spec, serviceAccountName: 'pdb-writer' } }],
    copyRetries: new RetrySchedule<string>(new Backoff({ baseMs: 5_000, maxMs: 300_000 })),
  };
  const run = await recordedReconcile({ ...world, failures: { [`k8s.apply PodDisruptionBudget/${v1}`]: forbidden } });
  assert.deepEqual(
    run.calls.filter((c) => c.startsWith('k8s.apply')),
    [
      `k8s.apply PodDisruptionBudget/${v1} as twc/${NAMESPACE}/orders-pdb impersonating ${NAMESPACE}/pdb-writer`,
      `k8s.apply PodDisruptionBudget/${copyName('orders', 'orders-pdb', 'v2')} as twc/${NAMESPACE}/orders-pdb impersonating ${NAMESPACE}/pdb-writer`,
    ],
    'spec.serviceAccountName over the default, and never the controller itself',
  );
  const stalledBy = run.ownedResourceStatuses['orders-pdb']?.conditions?.find((c) => c.type === 'Stalled');
  assert.equal(`${stalledBy?.status}/${stalledBy?.reason}`, 'True/CopyForbidden');
  assert.match(
    stalledBy?.message ?? '',
    new RegExp(`^ServiceAccount ${NAMESPACE}/pdb-writer may not patch PodDisruptionBudget ${v1}: `),
  );
  assert.match(
    stalledBy?.message ?? '',
    /grant it create, patch, list and delete on PodDisruptionBudget in this namespace$/,
  );
  assert.ok(run.events.includes('Warning CopyForbidden'), run.events.join(', '));
  assert.deepEqual(run.copiesForbidden, ['PodDisruptionBudget patch']);
  assert.ok(run.calls.includes('temporal.changeRouting setCurrent v2'), `the rollout goes on: ${run.calls.join(', ')}`);

  // Within the copy's backoff the refusal stands, and is still said as the ServiceAccount's.
  const stored = { ...world.ownedResources[0]!, status: run.ownedResourceStatuses['orders-pdb'] };
  const again = await recordedReconcile({ ...world, ownedResources: [stored] });
  assert.deepEqual(
    again.calls.filter((c) => c.startsWith('k8s.apply') || c.includes('OwnedResourceStatus')),
    [],
    'not tried again yet; nothing changed to write',
  );
});

test("owned resources: a twor naming no ServiceAccount, with no default, makes no copy with the controller's rights: Stalled=True/ServiceAccountMissing naming the field", async () => {
  const run = await recordedReconcile({
    ...rolloutWorld(),
    copyAccount: '',
    ownedResources: [ownedResource('orders-pdb', pdbObject)],
  });
  assert.deepEqual(
    run.calls.filter((c) => /k8s\.(apply|deleteObject|listObjects)/.test(c)),
    [],
  );
  const stalledBy = run.ownedResourceStatuses['orders-pdb']?.conditions?.find((c) => c.type === 'Stalled');
  assert.equal(`${stalledBy?.status}/${stalledBy?.reason}`, 'True/ServiceAccountMissing');
  assert.match(
    stalledBy?.message ?? '',
    /^spec\.serviceAccountName: unset, and the controller has no default \(--owned-resources-service-account/,
  );
  assert.ok(run.calls.includes('temporal.changeRouting setCurrent v2'), 'the rollout goes on');
});

test('owned resources: a cluster-scoped kind, which only discovery tells, is refused by the rule an RBAC kind is: Stalled=True/KindRefused, no copy marked', async () => {
  const clusterRole = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', value: 1000 };
  const refusal = new KindRefusedError(refusedKind('scheduling.k8s.io/v1', 'PriorityClass', false) ?? '');
  const run = await recordedReconcile({
    ...rolloutWorld(),
    ownedResources: [ownedResource('orders-priority', clusterRole)],
    failures: { 'k8s.apply PriorityClass/': refusal },
  });
  const status = run.ownedResourceStatuses['orders-priority'];
  const stalledBy = status?.conditions?.find((c) => c.type === 'Stalled');
  assert.equal(`${stalledBy?.status}/${stalledBy?.reason}`, 'True/KindRefused');
  assert.match(stalledBy?.message ?? '', /PriorityClass of scheduling\.k8s\.io\/v1 is cluster-scoped/);
  assert.deepEqual(status?.versions, []);
  assert.ok(run.events.includes('Warning KindRefused'), run.events.join(', '));
  assert.ok(!run.events.includes('Warning CopyNotApplied'), run.events.join(', '));
});

test("owned resources: the RoleBindings an earlier controller made for a twor are deleted by ownership, as its ServiceAccount; a user's own labelled one stays", async () => {
  const world = rolloutWorld();
  const ours = world.deployments[0]?.metadata?.uid ?? '';
  const managed = {
    'temporal.io/owned-resource': 'orders-grant',
    'app.kubernetes.io/managed-by': 'temporal-worker-controller',
  };
  const roleBinding = (name: string, owner?: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: `uid-${name}`,
      labels: managed,
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: owner }] } : {}),
    },
  });
  const made = copyName('orders', 'orders-grant', 'v1');
  const twor = ownedResource(
    'orders-grant',
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', roleRef: {}, subjects: [] },
    { versions: [{ buildID: 'v1', resourceName: made, applied: true, appliedHash: 'h' }] },
  );
  const run = await recordedReconcile({
    ...world,
    objects: [roleBinding(made, ours), roleBinding('users-own')],
    ownedResources: [twor],
  });
  assert.deepEqual(
    run.calls.filter((c) => /listObjects|deleteObject|apply/.test(c)),
    [
      `k8s.listObjects RoleBinding temporal.io/owned-resource=orders-grant,app.kubernetes.io/managed-by=temporal-worker-controller impersonating ${NAMESPACE}/copier`,
      `k8s.deleteObject RoleBinding/${made} impersonating ${NAMESPACE}/copier`,
    ],
  );
  const status = run.ownedResourceStatuses['orders-grant'];
  assert.equal(status?.conditions?.find((c) => c.type === 'Stalled')?.reason, 'KindRefused');
  assert.deepEqual(status?.versions, [], 'deleted: none left to remember');

  const forbidden = await recordedReconcile({
    ...world,
    objects: [roleBinding(made, ours)],
    ownedResources: [twor],
    failures: { 'k8s.deleteObject RoleBinding/': new KubernetesApiError('DELETE', '/x', 403, undefined) },
  });
  const said = forbidden.ownedResourceStatuses['orders-grant'];
  assert.match(
    said?.conditions?.find((c) => c.reason === 'KindRefused')?.message ?? '',
    new RegExp(`; its copies an earlier controller made remain \\(${made}\\): DELETE /x: HTTP 403$`),
  );
  assert.deepEqual(
    said?.versions?.map((v) => v.resourceName),
    [made],
    'remembered, to be deleted at the next reconcile',
  );
});

test("owned resources: an autoscaler copy goes before its build is scaled to zero, by ownership: a user's object under its name or labels stays", async () => {
  const owner = workerDeployment({ buildId: 'v3', sunset: { scaledownDelay: '1h', deleteDelay: '24h' } });
  const hpaOfV2 = copyName('orders', 'orders-pdb-a', 'v2');
  const v2 = deployment(owner, 'v2', { replicas: 2, since: minutesAgo(300) });
  const labels = {
    'temporal.io/owned-resource': 'orders-pdb-a',
    'app.kubernetes.io/managed-by': 'temporal-worker-controller',
  };
  const hpa = (name: string, ownerUid?: string) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: `uid-${name}`,
      labels,
      ...(ownerUid
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: ownerUid }] }
        : {}),
    },
  });
  const world: World = {
    now,
    workerDeployment: owner,
    connection: connection(),
    deployments: [v2, deployment(owner, 'v3', { since: minutesAgo(200) })],
    objects: [hpa(hpaOfV2, v2.metadata?.uid), hpa('users-own'), hpa('of-another-deployment', 'uid-another')],
    temporal: {
      exists: true,
      currentBuildId: 'v3',
      managerIdentity: IDENTITY,
      versions: [
        { buildId: 'v2', status: 'Drained', everActive: true, drainedSince: minutesAgo(120) },
        { buildId: 'v3', status: 'Current', everActive: true },
      ],
    },
    ownedResources: [
      ownedResource('orders-pdb-a', hpaObject, {
        versions: [{ buildID: 'v2', resourceName: hpaOfV2, applied: true, appliedHash: 'old' }],
      }),
    ],
  };
  const run = await recordedReconcile(world);
  const writes = run.calls.filter((c) => /listObjects|deleteObject|scaleDeployment/.test(c));
  assert.deepEqual(writes, [
    `k8s.listObjects HorizontalPodAutoscaler temporal.io/owned-resource=orders-pdb-a,app.kubernetes.io/managed-by=temporal-worker-controller impersonating ${NAMESPACE}/copier`,
    `k8s.deleteObject HorizontalPodAutoscaler/${hpaOfV2} impersonating ${NAMESPACE}/copier`,
    'k8s.scaleDeployment orders-v2 0',
  ]);

  const usersAtItsName = await recordedReconcile({ ...world, objects: [hpa(hpaOfV2)] });
  assert.deepEqual(
    usersAtItsName.calls.filter((c) => /deleteObject/.test(c)),
    [],
    "a user's object under the copy's name, with its labels, is no copy",
  );
});

test("owned resources: a twor whose kind changed has its copies of the old kind deleted before the new ones are applied; a user's own object with the labels is not", async () => {
  const world = rolloutWorld({ buildId: 'v2' }, ramping(50, 1));
  const ownerOfCopy = world.deployments[0]?.metadata?.uid ?? '';
  const hpa = (name: string, labels: Record<string, string>, owner?: string) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: `uid-${name}`,
      labels,
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: owner }] } : {}),
    },
  });
  const label = { 'temporal.io/owned-resource': 'orders-scaler' };
  const managed = { ...label, 'app.kubernetes.io/managed-by': 'temporal-worker-controller' };
  const oldCopy = copyName('orders', 'orders-scaler', 'v1');
  const run = await recordedReconcile({
    ...world,
    objects: [
      hpa(oldCopy, managed, ownerOfCopy),
      hpa('users-own', label, ownerOfCopy),
      hpa('users-labelled', managed),
      hpa('owned-elsewhere', managed, 'uid-of-something-else'),
    ],
    ownedResources: [
      ownedResource('orders-scaler', pdbObject, {
        appliedKind: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
        versions: [
          { buildID: 'v1', resourceName: copyName('orders', 'orders-scaler', 'v1'), applied: true, appliedHash: 'h' },
        ],
      }),
    ],
  });
  assert.deepEqual(
    run.calls.filter((c) => /listObjects|deleteObject|apply/.test(c)),
    [
      `k8s.listObjects HorizontalPodAutoscaler temporal.io/owned-resource=orders-scaler,app.kubernetes.io/managed-by=temporal-worker-controller impersonating ${NAMESPACE}/copier`,
      `k8s.deleteObject HorizontalPodAutoscaler/${oldCopy} impersonating ${NAMESPACE}/copier`,
      `k8s.apply PodDisruptionBudget/${copyName('orders', 'orders-scaler', 'v1')} as twc/${NAMESPACE}/orders-scaler impersonating ${NAMESPACE}/copier`,
      `k8s.apply PodDisruptionBudget/${copyName('orders', 'orders-scaler', 'v2')} as twc/${NAMESPACE}/orders-scaler impersonating ${NAMESPACE}/copier`,
    ],
  );
  assert.deepEqual(run.ownedResourceStatuses['orders-scaler']?.appliedKind, {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
  });
});

test('pinned-workflow ladder: past signalAfter, the old build is counted, its batch looked for, then started after the routing work', async () => {
  const ladder = { signalAfter: '30m', cancelAfter: '2h' };
  const owner = workerDeployment(
    { buildId: 'v2', sunset: { pinnedWorkflows: ladder } },
    {},
    { deprecatedVersions: [{ buildID: 'v1', status: 'Draining', deactivatedAt: minutesAgo(31).toISOString() }] },
  );
  const job = batchJobId(temporalName, 'v1', 'Signal', ladder);
  const world: World = {
    ...rolloutWorld({ buildId: 'v2' }),
    workerDeployment: owner,
    temporal: v2CurrentV1Draining,
    runningWorkflows: { v1: 3 },
  };
  const run = await recordedReconcile(world);
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    `temporal.describeBatch ${job}`,
    `temporal.startBatch Signal ContinueAsNewRequested ${job} where (TemporalWorkerDeploymentVersion = '${temporalName}:v1') AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(run.events, ['Normal BatchOperationStarted']);
  assert.partialDeepStrictEqual(run.status?.deprecatedVersions?.[0], {
    buildID: 'v1',
    deactivatedAt: minutesAgo(31).toISOString(),
    pinnedWorkflows: {
      running: 3,
      step: 'Signal',
      nextStepAt: minutesAgo(31 - 120).toISOString(),
      batch: { jobID: job, operation: 'Signal', state: 'Running', total: 3 },
    },
  });

  // Its workflows moved on, so Temporal says v1 drained: its batch is still read until it ends.
  const again = await recordedReconcile({
    ...world,
    temporal: {
      ...v2CurrentV1Draining,
      versions: [
        { buildId: 'v1', status: 'Drained', everActive: true, drainedSince: now },
        { buildId: 'v2', status: 'Current', everActive: true },
      ],
    },
    workerDeployment: { ...owner, status: run.status },
    batches: { [job]: { jobId: job, operation: 'Signal', state: 'Completed', total: 3, completed: 3, failed: 0 } },
  });
  assert.deepEqual(again.calls, [
    'temporal.describe',
    'temporal.countRunningWorkflows v1',
    `temporal.describeBatch ${job}`,
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(again.events, ['Normal BatchOperationFinished']);
});

test('pinned-workflow ladder: a build current again has the batch still running on it stopped, and remembered until Temporal says it ended', async () => {
  const job = batchJobId(temporalName, 'v1', 'Cancel', { cancelAfter: '30m' });
  const running = { jobID: job, operation: 'Cancel', state: 'Running', total: 4, completed: 1, failed: 0 };
  const owner = workerDeployment(
    { buildId: 'v1', sunset: { pinnedWorkflows: { cancelAfter: '30m' } } },
    {},
    {
      currentVersion: { buildID: 'v2', status: 'Current' },
      deprecatedVersions: [
        {
          buildID: 'v1',
          status: 'Draining',
          deactivatedAt: minutesAgo(40).toISOString(),
          pinnedWorkflows: { step: 'Cancel', running: 3, batch: running },
        },
      ],
    },
  );
  const world: World = {
    ...rolloutWorld({ buildId: 'v1' }),
    workerDeployment: owner,
    temporal: {
      exists: true,
      currentBuildId: 'v1',
      managerIdentity: IDENTITY,
      versions: [
        { buildId: 'v1', status: 'Current', everActive: true },
        { buildId: 'v2', status: 'Draining', everActive: true },
      ],
    },
  };
  const inTemporal = (state: 'Running' | 'Failed') => ({
    [job]: { jobId: job, operation: 'Cancel' as const, state, total: 4, completed: 1, failed: 0 },
  });
  const run = await recordedReconcile({ ...world, batches: inTemporal('Running') });
  assert.deepEqual(
    run.calls.filter((c) => c.startsWith('temporal.')),
    [
      'temporal.describe',
      'temporal.countRunningWorkflows v2',
      `temporal.describeBatch ${job}`,
      `temporal.stopBatch ${job}`,
    ],
  );
  assert.ok(run.events.includes('Normal BatchOperationStopped'), run.events.join(', '));
  assert.equal(run.status?.currentVersion?.pinnedWorkflows?.batch?.jobID, job, 'remembered on the current build');
  const again = await recordedReconcile({
    ...world,
    workerDeployment: { ...owner, status: run.status },
    batches: inTemporal('Failed'),
  });
  assert.ok(!again.calls.some((c) => c.startsWith('temporal.stopBatch')), 'once it ended');
  assert.equal(again.status?.currentVersion?.pinnedWorkflows, undefined, 'then forgotten');
});

test('one reconcile hung on Temporal past its deadline: the queue goes on with the other worker deployments, and the hung one writes nothing after', async () => {
  const timers = new FakeTimers();
  let answer = (): void => {};
  const worlds: Record<string, World> = {
    'shop/hung': { ...rolloutWorld(), describeAnswersAfter: new Promise<void>((resolve) => (answer = resolve)) },
    'shop/a': rolloutWorld(),
    'shop/b': rolloutWorld(),
  };
  const runs: { key: string; calls: string[]; ended?: string }[] = [];
  const queue = new WorkQueue<string>({
    concurrency: 1,
    timers,
    timeoutMs: 120_000,
    reconcile: async (key, _priority, signal) => {
      const run: (typeof runs)[number] = { key, calls: [] };
      runs.push(run);
      try {
        await recordedReconcile({ ...worlds[key]!, signal, calls: run.calls });
        run.ended = 'done';
        // Each world stays as it is: what the reconcile asks for next would only repeat it.
        return undefined;
      } catch (error) {
        run.ended = (error as Error).message;
        throw error;
      }
    },
  });
  for (const key of Object.keys(worlds)) queue.add(key);
  await timers.advance(119_999);
  assert.deepEqual(
    runs.map((r) => r.key),
    ['shop/hung'],
    'one worker: the hung reconcile holds it until its deadline',
  );
  await timers.advance(1);
  const rolledOut = ['temporal.describe', 'temporal.changeRouting setCurrent v2', 'k8s.replaceStatus orders@10'];
  assert.deepEqual(
    runs.map((r) => [r.key, r.calls, r.ended]),
    [
      ['shop/hung', ['temporal.describe'], undefined],
      ['shop/a', rolledOut, 'done'],
      ['shop/b', rolledOut, 'done'],
    ],
    'the others roll out',
  );
  // Temporal answers the cut-off reconcile at last: its plan would promote v2 and write a status.
  answer();
  await settle();
  assert.deepEqual(runs[0]?.calls, ['temporal.describe'], 'the cut-off reconcile changed nothing after its deadline');
  assert.match(runs[0]?.ended ?? '', /the reconcile of shop\/hung ran past its timeout of 120s/);
  await timers.advance(1_000);
  assert.deepEqual(
    runs.slice(3).map((r) => [r.key, r.calls, r.ended]),
    [['shop/hung', rolledOut, 'done']],
    'retried, the hung one rolls out too',
  );
  await queue.shutdown();
});

test('a Temporal call past its timeout: the status names the call and the timeout, nothing else is done, and the reconcile comes back later', async () => {
  const timedOut = (method: string, kind: 'read' | 'write', seconds: number) =>
    new TemporalCallError(method, {
      code: GrpcStatus.DEADLINE_EXCEEDED,
      details: `no answer within ${seconds}s, the timeout of a ${kind}`,
    });
  const read = await recordedReconcile({
    ...rolloutWorld(),
    failures: { 'temporal.describe': timedOut('DescribeWorkerDeployment', 'read', 10) },
  });
  assert.deepEqual(read.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
  const readCondition = read.status?.conditions?.find((c) => c.type === 'Progressing');
  assert.deepEqual([readCondition?.status, readCondition?.reason], ['False', 'TemporalUnreachable']);
  assert.match(
    readCondition?.message ?? '',
    /DescribeWorkerDeployment: DEADLINE_EXCEEDED: no answer within 10s, the timeout of a read$/,
  );
  assert.ok((read.result?.requeueAfterMs ?? 0) > 0, 'comes back later');
  const write = await recordedReconcile({
    ...rolloutWorld(),
    failures: { 'temporal.changeRouting': timedOut('SetWorkerDeploymentCurrentVersion', 'write', 30) },
  });
  assert.deepEqual(write.calls, [
    'temporal.describe',
    'temporal.changeRouting setCurrent v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.ok(
    write.status?.conditions?.some(
      (c) =>
        c.reason === 'TemporalUnreachable' &&
        c.message.includes(
          'SetWorkerDeploymentCurrentVersion: DEADLINE_EXCEEDED: no answer within 30s, the timeout of a write',
        ),
    ),
    JSON.stringify(write.status?.conditions),
  );
});

/** A ConfigMap of the worker deployment's namespace. */
const configMap = (name: string, data: Record<string, string>): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NAMESPACE },
  data,
});
/** A template that takes its variables from ConfigMap `name`. */
const readingConfigMap = (name: string, image: string) => ({
  spec: { containers: [{ name: 'worker', image, envFrom: [{ configMapRef: { name } }] }] },
});
/** v2 current and v1 draining, both reading ConfigMap `settings`; v0 draining, reading ConfigMap `flags`; each rolled when `settings` said fast. */
function configuredWorld(): World {
  const reading = (buildId: string, name: string) =>
    workerDeployment({ buildId, template: readingConfigMap(name, `orders:${buildId}`) });
  const configuredWith = [configMap('settings', { MODE: 'fast' }), configMap('flags', { ON: 'yes' })];
  return {
    now,
    workerDeployment: reading('v2', 'settings'),
    connection: connection(),
    deployments: [
      deployment(reading('v0', 'flags'), 'v0', { since: minutesAgo(600), configuredWith }),
      deployment(reading('v1', 'settings'), 'v1', { since: minutesAgo(60), configuredWith }),
      deployment(reading('v2', 'settings'), 'v2', { since: minutesAgo(2), configuredWith }),
    ],
    configMaps: configuredWith,
    temporal: {
      exists: true,
      currentBuildId: 'v2',
      managerIdentity: IDENTITY,
      versions: [
        { buildId: 'v0', status: 'Draining', everActive: true },
        { buildId: 'v1', status: 'Draining', everActive: true },
        { buildId: 'v2', status: 'Current', everActive: true },
      ],
    },
  };
}

test('a ConfigMap the templates read unchanged: nothing is rolled', async () => {
  const run = await recordedReconcile(configuredWorld());
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
});

test('a ConfigMap the templates read changed: every running build whose own template reads it is rolled in place, under its build ID, and no other', async () => {
  const world = configuredWorld();
  const run = await recordedReconcile({
    ...world,
    configMaps: [configMap('settings', { MODE: 'slow' }), configMap('flags', { ON: 'yes' })],
  });
  assert.deepEqual(run.calls, [
    'temporal.describe',
    'k8s.replaceDeployment orders-v1',
    'k8s.replaceDeployment orders-v2',
    'k8s.replaceStatus orders@10',
  ]);
  assert.deepEqual(
    run.eventMessages.filter((m) => m.startsWith('DeploymentUpdated')),
    ['v1', 'v2'].map(
      (b) =>
        `DeploymentUpdated: Deployment orders-${b} of build ${b} is rolled in place: the configuration its Pods read changed: ConfigMap settings changed`,
    ),
  );
  assert.equal(run.status?.currentVersion?.buildID, 'v2', 'the same builds, routed as they were');
});

test('a ConfigMap the running builds cannot start without deleted: no build is rolled (their Pods keep what they read)', async () => {
  const world = configuredWorld();
  const run = await recordedReconcile({ ...world, configMaps: [configMap('flags', { ON: 'yes' })] });
  assert.deepEqual(run.calls, ['temporal.describe', 'k8s.replaceStatus orders@10']);
});

test('a new build whose Pods read a ConfigMap that does not exist is created, and the status says which it waits for', async () => {
  const world = templateChangedWorld(1);
  const owner = workerDeployment(
    { buildId: 'v2', template: readingConfigMap('settings', 'orders:v2') },
    { generation: 2 },
    { observedGeneration: 1, versionCount: 1 },
  );
  const run = await recordedReconcile({ ...world, workerDeployment: owner });
  assert.deepEqual(run.calls, ['k8s.createDeployment orders-v2', 'temporal.describe', 'k8s.replaceStatus orders@10']);
  const progressingNow = run.status?.conditions?.find((c) => c.type === 'Progressing');
  assert.equal(progressingNow?.reason, 'ConfigurationMissing');
  assert.match(progressingNow?.message ?? '', /ConfigMap shop\/settings \(container worker envFrom\[0\]\)/);
  assert.deepEqual(run.events, ['Normal DeploymentCreated', 'Warning ConfigurationMissing']);
});

test('onConfigChange NewBuild: a changed ConfigMap is a new build, created as new code is; the running builds are not rolled', async () => {
  const spec = {
    replicas: 2,
    workerOptions: {
      connectionRef: { name: 'temporal' },
      temporalNamespace: 'default',
      onConfigChange: 'NewBuild' as const,
    },
    template: readingConfigMap('settings', 'orders:1'),
  };
  const buildOf = (mode: string) =>
    buildIdOf(spec.template, undefined, undefined, {
      'ConfigMap/settings':
        readConfiguration(configurationReferences(spec.template), () => ({ data: { MODE: mode } })).digests[
          'ConfigMap/settings'
        ] ?? '',
    });
  const [fast, slow] = [buildOf('fast'), buildOf('slow')];
  assert.notEqual(fast, slow);
  const owner = workerDeployment(
    { buildId: fast, ...spec },
    { generation: 1 },
    { observedGeneration: 1, versionCount: 1 },
  );
  const run = await recordedReconcile({
    now,
    workerDeployment: { ...owner, spec: { ...owner.spec, workerOptions: spec.workerOptions } },
    connection: connection(),
    deployments: [deployment(owner, fast, { since: minutesAgo(60) })],
    configMaps: [configMap('settings', { MODE: 'slow' })],
    temporal: {
      ...v1Current,
      currentBuildId: fast,
      versions: [{ buildId: fast, status: 'Current', everActive: true }],
    },
  });
  assert.deepEqual(run.calls, [
    `k8s.createDeployment orders-${slow}`,
    'temporal.describe',
    'k8s.replaceStatus orders@10',
  ]);
  assert.equal(run.status?.targetVersion?.buildID, slow);
});
