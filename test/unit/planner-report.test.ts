// What the status says after a reconcile (reportOutcome), on plain values: the observation, a plan
// made by hand, and what the executor did with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { Observation } from '../../src/domain/observation.ts';
import type { ObservedDeployment, TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import type { Plan } from '../../src/planner/plan.ts';
import type { PlannedAction } from '../../src/planner/planned-action.ts';
import { progressing, stalled } from '../../src/status/conditions.ts';
import { reportOutcome } from '../../src/planner/report.ts';
import { connection, workerDeployment } from '../support/recorded-world.ts';

const now = new Date('2026-11-23T12:00:00Z');
const hourAgo = new Date('2026-11-23T11:00:00Z');
const temporalName = 'shop/orders';

const v1Current: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v1',
  versions: [
    { buildId: 'v1', status: 'Current', everActive: true },
    { buildId: 'v2', status: 'Inactive', everActive: false },
  ],
};
const v2Current: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v2',
  versions: [
    { buildId: 'v1', status: 'Draining', everActive: true },
    { buildId: 'v2', status: 'Current', everActive: true },
  ],
};

const observed = (name: string, buildId: string, more: Partial<ObservedDeployment> = {}): ObservedDeployment => ({
  name,
  buildId,
  replicas: 2,
  available: true,
  availableSince: hourAgo,
  ...more,
});

function observation(more: Partial<Observation> = {}, spec: Partial<TemporalWorkerDeployment['spec']> = {}) {
  return {
    now,
    workerDeployment: workerDeployment({ buildId: 'v2', ...spec }),
    connection: connection(),
    buildId: 'v2',
    temporalName,
    deployments: [observed('orders-v1', 'v1'), observed('orders-v2', 'v2')],
    wanted: [{ deployment: {} }],
    replacements: {},
    temporal: v1Current,
    ...more,
  } satisfies Observation;
}

const waiting = 'build v2 waits for its Deployments';
function plan(more: Partial<Plan> = {}): Plan {
  return {
    actions: [],
    conditions: [],
    notes: [],
    taskQueues: {},
    gates: {},
    ladder: {},
    failedBuilds: [],
    routing: { action: 'wait', reason: waiting },
    routed: v1Current,
    requeueAfterMs: 10_000,
    requeueFallsDue: false,
    ...more,
  };
}

const routeToV2: PlannedAction = {
  action: 'route',
  change: { action: 'setCurrent', buildId: 'v2', claimManager: false },
  reason: 'promote v2',
};
const rampV2: PlannedAction = {
  action: 'route',
  change: { action: 'setRamp', buildId: 'v2', percentage: 10, claimManager: false },
  reason: 'ramp v2',
};
const clearRamp: PlannedAction = {
  action: 'route',
  change: { action: 'clearRamp', claimManager: false },
  reason: 'abort',
};
const routeToV1: PlannedAction = {
  action: 'route',
  change: { action: 'setCurrent', buildId: 'v1', claimManager: false },
  reason: 'v1',
};
const scaleV1: PlannedAction = {
  action: 'scale',
  deployment: 'orders-v1',
  buildId: 'v1',
  replicas: 0,
  reason: 'v1 drained',
};
const deleteV0 = (makesRoom: boolean): PlannedAction => ({
  action: 'deleteTemporalVersion',
  buildId: 'v0',
  reason: 'build v0 has no Deployment left',
  ...(makesRoom ? { makesRoom: true as const } : {}),
});

const rollingOut = [
  { type: 'Ready', status: 'False', reason: 'RollingOut', message: waiting },
  progressing('True', 'RollingOut', waiting),
];
const current = 'build v2 is current';
const targetCurrent = [
  { type: 'Ready', status: 'True', reason: 'TargetCurrent', message: current },
  progressing('False', 'Done', current),
];

test("rolling out: the plan's conditions, then Ready=False and Progressing=True with the routing's reason", () => {
  const report = reportOutcome(observation(), plan({ conditions: [stalled('GateFailed', 'the gate failed')] }), {
    done: [],
  });
  assert.deepEqual(report, {
    versions: {
      targetVersion: {
        buildID: 'v2',
        status: 'Inactive',
        healthySince: hourAgo.toISOString(),
        deployments: ['orders-v2'],
      },
      currentVersion: {
        buildID: 'v1',
        status: 'Current',
        healthySince: hourAgo.toISOString(),
        deployments: ['orders-v1'],
      },
      versionCount: 2,
    },
    conditions: [stalled('GateFailed', 'the gate failed'), ...rollingOut],
    warnings: [],
    requeueAfterMs: 10_000,
    requeueFallsDue: false,
  });
});

test('nothing planned nor failed: only the summary is said', () => {
  assert.deepEqual(reportOutcome(observation(), plan(), { done: [] }).conditions, rollingOut);
});

test('a requeue falls due as planned, unless an action failed or routing changed (then the look comes sooner or later anyway)', () => {
  const due = plan({ requeueAfterMs: 4_000, requeueFallsDue: true });
  assert.equal(reportOutcome(observation(), due, { done: [] }).requeueFallsDue, true);
  const failure = stalled('RoutingFailed', 'refused');
  const failed = reportOutcome(observation(), due, {
    done: [],
    failed: { action: routeToV2, condition: failure, requeueAfterMs: 30_000 },
  });
  assert.deepEqual([failed.requeueAfterMs, failed.requeueFallsDue], [30_000, false]);
  const ramped = reportOutcome(observation(), { ...due, actions: [rampV2] }, { done: [rampV2] });
  assert.deepEqual([ramped.requeueAfterMs, ramped.requeueFallsDue], [0, false]);
  const promoted = reportOutcome(observation(), { ...due, actions: [routeToV2] }, { done: [routeToV2] });
  assert.deepEqual(
    [promoted.requeueAfterMs, promoted.requeueFallsDue],
    [4_000, true],
    'the rollout is over: as planned',
  );
});

test('a failure is said first, and its requeue time wins', () => {
  const failure = progressing('False', 'TemporalUnreachable', 'down');
  const report = reportOutcome(observation(), plan({ actions: [routeToV2] }), {
    done: [],
    failed: { action: routeToV2, condition: failure, requeueAfterMs: 30_000 },
  });
  assert.deepEqual(report.conditions, [failure, ...rollingOut]);
  assert.equal(report.requeueAfterMs, 30_000);
  const noTime = reportOutcome(observation(), plan({ actions: [routeToV2] }), {
    done: [],
    failed: { action: routeToV2, condition: failure },
  });
  assert.equal(noTime.requeueAfterMs, 10_000, "without its own time, the plan's");
});

test('after a routing change, the status says the planned state; a promotion that ends the rollout is not looked at again at once', () => {
  const report = reportOutcome(
    observation(),
    plan({ actions: [scaleV1, routeToV2], routed: v2Current, requeueAfterMs: 5_000 }),
    { done: [scaleV1, routeToV2] },
  );
  assert.equal(report.requeueAfterMs, 5_000, "the plan's time: nothing waits on Temporal's account of the change");
  assert.deepEqual(report.conditions, targetCurrent);
  assert.equal(report.versions.targetVersion?.status, 'Current');
  assert.equal(report.versions.currentVersion?.buildID, 'v2');
  assert.deepEqual(report.versions.deprecatedVersions, [
    {
      buildID: 'v1',
      status: 'Draining',
      healthySince: hourAgo.toISOString(),
      deployments: ['orders-v1'],
      eligibleForDeletion: false,
      deactivatedAt: now.toISOString(),
    },
  ]);
});

test("after a routing change the next decision waits on Temporal's account of (a ramp, a promotion an analysis window starts at), the reconcile looks again at once", () => {
  const ramped = reportOutcome(observation(), plan({ actions: [rampV2], requeueAfterMs: 5_000 }), { done: [rampV2] });
  assert.equal(ramped.requeueAfterMs, 0, "the ramp's change time, which its pause counts from");
  const cleared = reportOutcome(observation(), plan({ actions: [clearRamp], requeueAfterMs: 5_000 }), {
    done: [clearRamp],
  });
  assert.equal(cleared.requeueAfterMs, 0);
  const analysed = reportOutcome(
    observation({}, { rollout: { strategy: 'AllAtOnce', analysis: { window: '5m', maxFailureRate: 0.1 } } }),
    plan({ actions: [routeToV2], routed: v2Current, requeueAfterMs: 5_000 }),
    { done: [routeToV2] },
  );
  assert.equal(analysed.requeueAfterMs, 0, 'the promotion time its analysis window starts at');
  const rollback = reportOutcome(observation(), plan({ actions: [routeToV1], requeueAfterMs: 5_000 }), {
    done: [routeToV1],
  });
  assert.equal(rollback.requeueAfterMs, 0, 'another build than the target promoted');
});

test('without a routing change done, the status says what was observed, whatever the plan expected', () => {
  const report = reportOutcome(
    observation(),
    plan({ actions: [scaleV1, routeToV2], routed: v2Current, requeueAfterMs: 5_000 }),
    { done: [scaleV1], failed: { action: routeToV2, condition: progressing('False', 'RouteFailed', 'no') } },
  );
  assert.equal(report.requeueAfterMs, 5_000);
  assert.deepEqual(report.conditions, [progressing('False', 'RouteFailed', 'no'), ...rollingOut]);
  assert.equal(report.versions.currentVersion?.buildID, 'v1');
  assert.equal(report.versions.targetVersion?.status, 'Inactive');
});

test('the target is current only when nothing ramps', () => {
  assert.deepEqual(reportOutcome(observation({ temporal: v2Current }), plan(), { done: [] }).conditions, targetCurrent);
  const rampingOther: TemporalDeploymentState = {
    ...v2Current,
    rampingBuildId: 'v1',
    rampPercentage: 10,
  };
  assert.deepEqual(reportOutcome(observation({ temporal: rampingOther }), plan(), { done: [] }).conditions, rollingOut);
});

test('a stuck Deployment of the target stalls the rollout, saying why and where to look', () => {
  const deployments = [
    observed('orders-v1', 'v1', { stuck: 'v1 stuck too' }),
    observed('orders-v2-a', 'v2', { available: false, stuck: 'ProgressDeadlineExceeded', pool: 'a' }),
    observed('orders-v2-b', 'v2', { available: false, pool: 'b' }),
    observed('orders-v2-c', 'v2', { available: false, stuck: 'no room', pool: 'c' }),
  ];
  const report = reportOutcome(
    observation({
      deployments,
      wanted: [
        { pool: 'a', deployment: {} },
        { pool: 'b', deployment: {} },
        { pool: 'c', deployment: {} },
      ],
    }),
    plan(),
    { done: [] },
  );
  assert.deepEqual(report.conditions, [
    stalled(
      'BuildNotAvailable',
      'build v2 cannot become available (Deployment orders-v2-a: ProgressDeadlineExceeded; Deployment orders-v2-c: no room); its Pods say why: kubectl describe pods -n shop -l temporal.io/deployment-name=orders,temporal.io/build-id=v2',
    ),
    ...rollingOut,
  ]);
  const onlyOthers = reportOutcome(
    observation({ deployments: [observed('orders-v1', 'v1', { stuck: 'x' }), observed('orders-v2', 'v2')] }),
    plan(),
    { done: [] },
  );
  assert.deepEqual(onlyOthers.conditions, rollingOut, "another build's stuck Deployment is not the target's");
  const currentAlready = reportOutcome(
    observation({ temporal: v2Current, deployments: [observed('orders-v2', 'v2', { stuck: 'x' })] }),
    plan(),
    { done: [] },
  );
  assert.deepEqual(currentAlready.conditions, targetCurrent, 'a current target is not stalled');
});

test('the target is healthy only when every pool the spec wants runs', () => {
  const deployments = [
    observed('orders-v1', 'v1'),
    observed('orders-v2-a', 'v2', { pool: 'a' }),
    observed('orders-v2-b', 'v2', { pool: 'b' }),
  ];
  const both = reportOutcome(
    observation({
      deployments,
      wanted: [
        { pool: 'a', deployment: {} },
        { pool: 'b', deployment: {} },
      ],
    }),
    plan(),
    { done: [] },
  );
  assert.equal(both.versions.targetVersion?.healthySince, hourAgo.toISOString());
  const three = reportOutcome(
    observation({
      deployments,
      wanted: [
        { pool: 'a', deployment: {} },
        { pool: 'b', deployment: {} },
        { pool: 'c', deployment: {} },
      ],
    }),
    plan(),
    { done: [] },
  );
  assert.equal(three.versions.targetVersion?.healthySince, undefined);
});

const manual = { rollout: { strategy: 'Manual' as const } };
const manualText =
  'build v2 runs and is registered in Temporal; the Manual strategy leaves routing to you: twc promote orders -n shop, or temporal worker deployment set-current-version --deployment-name shop/orders --build-id v2';

test('Manual: a registered, healthy target waits for people, neither progressing nor stalled', () => {
  assert.deepEqual(reportOutcome(observation({}, manual), plan(), { done: [] }).conditions, [
    { type: 'Ready', status: 'False', reason: 'ManualPromotion', message: manualText },
    progressing('False', 'ManualPromotion', manualText),
  ]);
  assert.deepEqual(
    reportOutcome(observation({}, { cutover: { strategy: 'Manual' } }), plan(), { done: [] }).conditions[0]?.reason,
    'ManualPromotion',
    'cutover is the deprecated name of rollout',
  );
});

test('paused: held, neither progressing nor stalled; aborted: stalled until the template changes', () => {
  const progressiveRollout = { strategy: 'Progressive' as const, steps: [{ rampPercentage: 10, pauseDuration: '1m' }] };
  const heldReason = 'the rollout of build v2 is paused (spec.rollout.paused): …';
  const paused = reportOutcome(
    observation({}, { rollout: { ...progressiveRollout, paused: true } }),
    plan({ routing: { action: 'none', reason: heldReason } }),
    { done: [] },
  ).conditions;
  assert.deepEqual(paused, [
    { type: 'Ready', status: 'False', reason: 'Paused', message: heldReason },
    progressing('False', 'Paused', heldReason),
  ]);
  assert.deepEqual(
    reportOutcome(observation({}, { rollout: { ...progressiveRollout, paused: true } }), plan(), { done: [] })
      .conditions,
    rollingOut,
    'paused, but waiting for something else first (a gate, the Pods): that is what it says',
  );
  const abortedReason = 'the rollout of build v2 is aborted (spec.rollout.abort): …';
  assert.deepEqual(
    reportOutcome(
      observation({}, { rollout: { ...progressiveRollout, abort: 'v2' } }),
      plan({ routing: { action: 'clearRamp', reason: abortedReason } }),
      { done: [] },
    ).conditions,
    rollingOut.map((c) => ({ ...c, message: abortedReason })),
    'while its ramp is being cleared it still moves',
  );
  assert.deepEqual(
    reportOutcome(
      observation({}, { rollout: { ...progressiveRollout, abort: 'v2' } }),
      plan({ routing: { action: 'none', reason: abortedReason } }),
      { done: [] },
    ).conditions,
    [{ type: 'Stalled', status: 'True', reason: 'RolloutAborted', message: abortedReason }],
  );
});

test('Manual: a target not yet healthy, or not registered, is still rolling out', () => {
  const unhealthy = [observed('orders-v1', 'v1'), observed('orders-v2', 'v2', { available: false })];
  assert.deepEqual(
    reportOutcome(observation({ deployments: unhealthy }, manual), plan(), { done: [] }).conditions,
    rollingOut,
  );
  const unregistered: TemporalDeploymentState = {
    exists: true,
    currentBuildId: 'v1',
    versions: [{ buildId: 'v1', status: 'Current', everActive: true }],
  };
  assert.deepEqual(
    reportOutcome(observation({ temporal: unregistered }, manual), plan(), { done: [] }).conditions,
    rollingOut,
  );
  assert.deepEqual(
    reportOutcome(observation({ deployments: [observed('orders-v1', 'v1')] }, manual), plan(), { done: [] }).conditions,
    rollingOut,
    'no Deployment of the target',
  );
});

test('deleting an older record to make room is remembered for the target', () => {
  const madeRoom = reportOutcome(observation(), plan({ actions: [scaleV1, deleteV0(true)] }), {
    done: [scaleV1, deleteV0(true)],
  });
  assert.equal(madeRoom.versions.targetVersion?.madeRoomAt, now.toISOString());
  const notForRoom = reportOutcome(observation(), plan({ actions: [deleteV0(false)] }), { done: [deleteV0(false)] });
  assert.equal(notForRoom.versions.targetVersion?.madeRoomAt, undefined);
  assert.equal('madeRoomAt' in (notForRoom.versions.targetVersion ?? {}), false);
  const planned = reportOutcome(observation(), plan({ actions: [deleteV0(true)] }), { done: [] });
  assert.equal(planned.versions.targetVersion?.madeRoomAt, undefined, 'planned but not done');
});

test('the time room was made is kept for the same target, forgotten for another', () => {
  const status = (buildID: string) => ({
    targetVersion: { buildID, status: 'Inactive', madeRoomAt: hourAgo.toISOString() },
  });
  const same = reportOutcome(
    observation({ workerDeployment: workerDeployment({ buildId: 'v2' }, {}, status('v2')) }),
    plan(),
    { done: [] },
  );
  assert.equal(same.versions.targetVersion?.madeRoomAt, hourAgo.toISOString());
  const other = reportOutcome(
    observation({ workerDeployment: workerDeployment({ buildId: 'v2' }, {}, status('v1')) }),
    plan(),
    { done: [] },
  );
  assert.equal(other.versions.targetVersion?.madeRoomAt, undefined);
});

const gate = (taskQueue: string) => ({
  stage: 'rollout',
  taskQueue,
  workflowID: `gate-${taskQueue}`,
  status: 'Running',
});
const startGate = (taskQueue: string): PlannedAction => ({
  action: 'startGate',
  buildId: 'v2',
  start: { stage: 'rollout', taskQueue, workflowId: `gate-${taskQueue}`, gate: { workflowType: 'Smoke' } },
  reason: `started gate on ${taskQueue}`,
});
const failure = { generation: 1, stage: 'rollout', workflowID: 'gate-old', message: 'boom' };

test('the gate memory keeps only the runs whose start was carried out', () => {
  const gates = { gates: [gate('a'), gate('b')], gateFailure: failure };
  // The executor reports the planned actions themselves.
  const [startA, startB] = [startGate('a'), startGate('b')];
  const actions = [scaleV1, startA, startB];
  const all = reportOutcome(observation(), plan({ actions, gates }), { done: actions });
  assert.deepEqual(all.versions.targetVersion?.gates, [gate('a'), gate('b')]);
  assert.deepEqual(all.versions.targetVersion?.gateFailure, failure);
  const first = reportOutcome(observation(), plan({ actions, gates }), {
    done: [scaleV1, startA],
    failed: { action: startB, condition: progressing('False', 'GateStartFailed', 'no') },
  });
  assert.deepEqual(first.versions.targetVersion?.gates, [gate('a')]);
  assert.deepEqual(first.versions.targetVersion?.gateFailure, failure);
  const none = reportOutcome(observation(), plan({ actions, gates }), {
    done: [],
    failed: { action: scaleV1, condition: progressing('False', 'ScaleFailed', 'no') },
  });
  assert.equal('gates' in (none.versions.targetVersion ?? {}), false);
  assert.deepEqual(none.versions.targetVersion?.gateFailure, failure);
  const noRuns = reportOutcome(observation(), plan({ actions, gates: { gateFailure: failure } }), { done: [] });
  assert.equal('gates' in (noRuns.versions.targetVersion ?? {}), false);
  assert.deepEqual(noRuns.versions.targetVersion?.gateFailure, failure);
});

test('a run the plan ends is forgotten once ended, and remembered still running when its termination was not carried out', () => {
  const old = { ...gate('a'), workflowID: 'gate-a-old-spec', runID: 'r0' };
  const end: PlannedAction = {
    action: 'terminateGate',
    buildId: 'v2',
    workflowId: old.workflowID,
    runId: 'r0',
    remembered: old,
    reason: 'terminated gate rollout: another spec',
  };
  const actions = [end, startGate('a')];
  const gates = { gates: [gate('a')] };
  const ended = reportOutcome(observation(), plan({ actions, gates }), { done: actions });
  assert.deepEqual(ended.versions.targetVersion?.gates, [gate('a')]);
  const notEnded = reportOutcome(observation(), plan({ actions, gates }), {
    done: [],
    failed: { action: end, condition: progressing('False', 'GateTerminateFailed', 'no') },
  });
  assert.deepEqual(notEnded.versions.targetVersion?.gates, [old]);
});

const configError = (pod: string, buildId = 'v2') => ({
  pod,
  buildId,
  container: 'worker',
  reason: 'CreateContainerConfigError',
  message: 'secret "db" not found',
});
const describeV2 = 'kubectl describe pods -n shop -l temporal.io/deployment-name=orders,temporal.io/build-id=v2';

test("the target's failing Pods are said at once, each problem once, with a Warning event per problem", () => {
  const problems = [
    configError('orders-v2-b'),
    configError('orders-v2-a'),
    { pod: 'orders-v2-c', buildId: 'v2', container: 'worker', reason: 'ImagePullBackOff', message: 'no such image' },
    configError('orders-v1-a', 'v1'),
  ];
  const report = reportOutcome(observation({ podProblems: problems }), plan(), { done: [] });
  const said =
    'build v2 cannot run yet: Pod orders-v2-a container worker: CreateContainerConfigError: secret "db" not found (and 1 more Pods); ' +
    `Pod orders-v2-c container worker: ImagePullBackOff: no such image; ${describeV2}`;
  assert.deepEqual(report.conditions, [
    { type: 'Ready', status: 'False', reason: 'PodsFailing', message: said },
    progressing('True', 'PodsFailing', said),
    ...rollingOut,
  ]);
  assert.deepEqual(report.warnings, [
    {
      reason: 'PodsFailing',
      message: 'build v2: Pod orders-v2-a container worker: CreateContainerConfigError: secret "db" not found',
    },
    { reason: 'PodsFailing', message: 'build v2: Pod orders-v2-c container worker: ImagePullBackOff: no such image' },
  ]);
});

test("failing Pods of other builds, or of a target already current, are not the rollout's concern", () => {
  const others = reportOutcome(observation({ podProblems: [configError('orders-v1-a', 'v1')] }), plan(), { done: [] });
  assert.deepEqual(others.conditions, rollingOut);
  assert.deepEqual(others.warnings, []);
  const current = reportOutcome(
    observation({ temporal: v2Current, podProblems: [configError('orders-v2-a')] }),
    plan(),
    {
      done: [],
    },
  );
  assert.deepEqual(current.conditions, targetCurrent);
  assert.deepEqual(current.warnings, []);
});

test("past the progress deadline the stall carries the Pods' words", () => {
  const report = reportOutcome(
    observation({
      deployments: [observed('orders-v1', 'v1'), observed('orders-v2', 'v2', { available: false, stuck: 'late' })],
      podProblems: [{ pod: 'orders-v2-a', buildId: 'v2', reason: 'Evicted', message: '' }],
    }),
    plan(),
    { done: [] },
  );
  assert.deepEqual(report.conditions, [
    stalled(
      'BuildNotAvailable',
      `build v2 cannot become available (Deployment orders-v2: late); its Pods say why: Pod orders-v2-a: Evicted; ${describeV2}`,
    ),
    ...rollingOut,
  ]);
  assert.deepEqual(report.warnings, [{ reason: 'PodsFailing', message: 'build v2: Pod orders-v2-a: Evicted' }]);
});

test('the builds that failed a gate or an analysis are written with the status, and nothing when none did', () => {
  const failed = [{ buildID: 'v2', reason: 'AnalysisFailed', message: 'bad', at: '2026-11-23T12:00:00.000Z' }];
  assert.deepEqual(
    reportOutcome(observation(), plan({ failedBuilds: failed }), { done: [] }).versions.failedBuilds,
    failed,
  );
  assert.equal('failedBuilds' in reportOutcome(observation(), plan(), { done: [] }).versions, false);
});

test("ConfigMaps and Secrets the new build's Pods cannot start without are said by name, with a Warning each; not once it is current", () => {
  const missingConfiguration = [
    { kind: 'ConfigMap' as const, name: 'settings', field: 'container worker envFrom[0]' },
    { kind: 'Secret' as const, name: 'db', field: 'volume db' },
  ];
  const report = reportOutcome(
    observation({ missingConfiguration, podProblems: [configError('orders-v2-a')] }),
    plan(),
    { done: [] },
  );
  const advice =
    'create it, or mark the reference optional: true; the running builds keep their Pods, and the new build starts once it exists';
  const said =
    `build v2's Pods cannot start: they read ConfigMap shop/settings (container worker envFrom[0]), Secret shop/db (volume db), which do not exist: ${advice}; ` +
    `its Pods say: Pod orders-v2-a container worker: CreateContainerConfigError: secret "db" not found; ${describeV2}`;
  assert.deepEqual(report.conditions, [
    { type: 'Ready', status: 'False', reason: 'ConfigurationMissing', message: said },
    progressing('True', 'ConfigurationMissing', said),
    ...rollingOut,
  ]);
  assert.deepEqual(
    report.warnings.map((w) => `${w.reason}: ${w.message}`),
    [
      `ConfigurationMissing: build v2's Pods read ConfigMap shop/settings (container worker envFrom[0]), which does not exist: ${advice}`,
      `ConfigurationMissing: build v2's Pods read Secret shop/db (volume db), which does not exist: ${advice}`,
      'PodsFailing: build v2: Pod orders-v2-a container worker: CreateContainerConfigError: secret "db" not found',
    ],
  );
  const current = reportOutcome(observation({ temporal: v2Current, missingConfiguration }), plan(), { done: [] });
  assert.deepEqual(current.conditions, targetCurrent);
  assert.deepEqual(current.warnings, []);
});
