// The plan of one reconcile, end to end through planReconcile, readsNeeded and gateQueues: from an
// observation as plain data to the exact actions (each with its reason), conditions, notes and
// status memory the executor and the status writer rely on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { Observation } from '../../src/domain/observation.ts';
import type {
  GateRun,
  ObservedDeployment,
  TemporalDeploymentState,
  TemporalVersion,
} from '../../src/domain/snapshot.ts';
import { finalizers } from '../../src/planner/kubernetes-actions.ts';
import { gateQueues, planReconcile, readsNeeded } from '../../src/planner/plan.ts';
import type { PlannedAction } from '../../src/planner/planned-action.ts';
import { RETRY_GATE_ANNOTATION } from '../../src/domain/annotations.ts';
import { gateSpecHash, gateWorkflowId } from '../../src/planner/gates.ts';
import { batchJobId } from '../../src/planner/pinned-workflows.ts';
import { config, connection, deployment, workerDeployment } from '../support/recorded-world.ts';

const now = new Date('2026-11-26T12:00:00Z');
const ago = (seconds: number): Date => new Date(now.getTime() - seconds * 1000);
const HOUR = 3600;

/** A build's Deployment as observed: available for ten minutes at 2 replicas unless said otherwise. */
const running = (buildId: string, more: Partial<ObservedDeployment> = {}): ObservedDeployment => ({
  name: `orders-${buildId}${more.pool ? `-${more.pool}` : ''}`,
  buildId,
  replicas: 2,
  available: true,
  availableSince: ago(600),
  ...more,
});
const version = (buildId: string, status: TemporalVersion['status'], more: Partial<TemporalVersion> = {}) => ({
  buildId,
  status,
  everActive: status !== 'Inactive',
  ...more,
});

interface Given {
  spec?: Partial<TemporalWorkerDeployment['spec']>;
  metadata?: Partial<TemporalWorkerDeployment['metadata']>;
  status?: TemporalWorkerDeployment['status'];
  /** Temporal's state; by default v1 current and v2 (the target) registered. */
  temporal?: Partial<TemporalDeploymentState>;
}

/**
 * The target v2 of worker deployment shop/orders, its Deployment available, beside v1's: by
 * default v1 is current in Temporal and v2 is registered, inactive.
 */
function observed(given: Given & Partial<Omit<Observation, 'temporal'>> = {}): Observation {
  const { spec, metadata, status, temporal, ...rest } = given;
  const twd = workerDeployment({ buildId: 'v2', ...spec }, metadata, status);
  return {
    now,
    workerDeployment: twd,
    connection: connection(),
    buildId: 'v2',
    temporalName: 'shop/orders',
    deployments: [running('v1'), running('v2')],
    wanted: (twd.spec.pools ?? [undefined]).map((p) => ({
      ...(p ? { pool: p.name } : {}),
      deployment: deployment(twd, 'v2', p ? { pool: p.name } : {}),
    })),
    replacements: {},
    temporal: {
      exists: true,
      versions: [version('v1', 'Current', { lastCurrentAt: ago(10 * HOUR) }), version('v2', 'Inactive')],
      currentBuildId: 'v1',
      currentChangedAt: ago(10 * HOUR),
      managerIdentity: config.identity,
      ...temporal,
    },
    ...rest,
  };
}

const plan = (given: Parameters<typeof observed>[0] = {}) => planReconcile(observed(given), config);
const reads = (given: Parameters<typeof observed>[0] = {}) => readsNeeded(observed(given), config);
// What the planner asks Temporal beyond its description of the deployment: only what changes a decision.

const noneCurrent = {
  spec: { rollout: { strategy: 'Progressive' as const, steps: [{ rampPercentage: 10, pauseDuration: '5m' }] } },
  temporal: { versions: [version('v2', 'Inactive')], currentBuildId: undefined, currentChangedAt: undefined },
};
const pollerReads: [string, Parameters<typeof observed>[0], boolean][] = [
  [
    'Progressive, no build current, the target registered and available: whether unversioned workers poll decides between a ramp and a promotion',
    { ...noneCurrent, deployments: [running('v1', { available: false }), running('v2')] },
    true,
  ],
  ['AllAtOnce promotes either way', { ...noneCurrent, spec: {} }, false],
  ['a build is current: the ramp starts beside it', { ...noneCurrent, temporal: {} }, false],
  ['the target not registered yet', { ...noneCurrent, temporal: { ...noneCurrent.temporal, versions: [] } }, false],
  [
    "the target's Deployment not available yet, another build's is",
    { ...noneCurrent, deployments: [running('v1'), running('v2', { available: false })] },
    false,
  ],
];
for (const [title, given, expected] of pollerReads)
  test(`reads: unversioned pollers: ${title}`, () => {
    assert.equal(reads(given).unversionedPollers, expected);
  });

const smoke = { workflowType: 'smoke' };
const gated = { rollout: { strategy: 'AllAtOnce' as const, gate: smoke } };
test("reads: a gate's runs are read only once the target is registered and a gate stands before its next routing change", () => {
  assert.deepEqual(reads({ spec: gated }), {
    unversionedPollers: false,
    gateStage: { name: 'rollout', gate: smoke },
    ladder: { count: [], batches: [], listed: [] },
    moves: { list: [], checks: [], batches: [] },
  });
  const unregistered = reads({ spec: gated, temporal: { versions: [version('v1', 'Current')] } });
  assert.equal('gateStage' in unregistered, false, 'no gate runs on a build Temporal does not list');
  const current = reads({
    spec: gated,
    temporal: { versions: [version('v1', 'Draining'), version('v2', 'Current')], currentBuildId: 'v2' },
  });
  assert.equal('gateStage' in current, false, 'the target is current: no gate stands');
  assert.equal('gateStage' in reads(), false, 'no gate in the spec');
});

// The gate queues: none until every pool's Deployment is available and Temporal lists its queue.

const pools = {
  pools: [
    { name: 'main', taskQueue: 'q-main' },
    { name: 'batch', taskQueue: 'q-batch' },
  ],
};
/** The target's Deployments of both pools, available since `main` and `batch` seconds ago. */
const pooled = (main: Partial<ObservedDeployment>, batch: Partial<ObservedDeployment>) =>
  observed({
    spec: pools,
    deployments: [
      running('v1', { pool: 'main' }),
      running('v1', { pool: 'batch' }),
      running('v2', { pool: 'main', ...main }),
      running('v2', { pool: 'batch', ...batch }),
    ],
  });
const both = { workflow: ['q-main', 'q-batch'], activity: ['q-main', 'q-batch'] };
/** Workers that poll no queue for activities: the gate runs on their workflow queues once past the registration grace. */
const workflowsOnly = { workflow: ['q-main', 'q-batch'], activity: [] };

const queueCases: [string, Observation, { workflow: string[]; activity: string[] }, object][] = [
  [
    "every pool's Deployment available, every queue listed: the gate runs on each",
    pooled({}, {}),
    both,
    { taskQueues: ['q-batch', 'q-main'] },
  ],
  [
    "a pool of the target not available: the older build's Deployment of that pool does not stand for it",
    pooled({ available: false }, {}),
    both,
    { taskQueues: [], unavailable: ['pool main'] },
  ],
  [
    'no activity queue, both pools available for longer than the registration grace: the workflow queues',
    pooled({ availableSince: ago(60) }, { availableSince: ago(31) }),
    workflowsOnly,
    { taskQueues: ['q-batch', 'q-main'] },
  ],
  [
    'no activity queue, exactly at the registration grace: the workflow queues',
    pooled({ availableSince: ago(30) }, { availableSince: ago(30) }),
    workflowsOnly,
    { taskQueues: ['q-batch', 'q-main'] },
  ],
  [
    'no activity queue, the last pool available within the grace: its activities may not be polled yet',
    pooled({ availableSince: ago(600) }, { availableSince: ago(10) }),
    workflowsOnly,
    { taskQueues: [], missing: ['q-main', 'q-batch'] },
  ],
  [
    'no activity queue, when a pool became available unknown: not past the grace',
    pooled({ availableSince: ago(600) }, { availableSince: undefined }),
    workflowsOnly,
    { taskQueues: [], missing: ['q-main', 'q-batch'] },
  ],
];
for (const [title, given, taskQueues, expected] of queueCases)
  test(`gate queues: ${title}`, () => {
    assert.deepEqual(gateQueues(given, taskQueues), expected);
  });

// The Kubernetes actions: in the order create, update, delete, scale; an autoscaler first out of the way of a scale to 0.

const hpa = (deploymentName: string) => ({
  deployment: deploymentName,
  deploymentUid: `uid-${deploymentName}`,
  twor: 'orders-hpa',
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  name: `${deploymentName}-hpa`,
  account: { namespace: 'shop', name: 'copier' },
});
/** An action as `action subject: reason`, its subject the Deployment, object or build it acts on. */
const line = (a: PlannedAction): string => {
  switch (a.action) {
    case 'create':
      return `create ${a.deployment.metadata?.name}: ${a.reason}`;
    case 'update':
      return `update ${a.replacement.metadata?.name}: ${a.reason}`;
    case 'delete':
      return `delete ${a.deployment}: ${a.reason}`;
    case 'scale':
      return `scale ${a.deployment} to ${a.replicas}: ${a.reason}`;
    case 'deleteOwnedResource':
      return `deleteOwnedResource ${a.object.kind}/${a.object.name}: ${a.reason}`;
    case 'applySecretCopy':
      return `applySecretCopy ${a.secret.metadata?.name}: ${a.reason}`;
    case 'addFinalizer':
    case 'removeFinalizer':
      return `${a.action} ${a.kind}: ${a.reason}`;
    case 'terminateGate':
      return `terminateGate ${a.workflowId} ${a.runId}: ${a.reason}`;
    case 'startGate':
      return `startGate ${a.start.workflowId}: ${a.reason}`;
    case 'route':
      return `route ${JSON.stringify(a.change)}: ${a.reason}`;
    default:
      return `${a.action} ${'buildId' in a ? a.buildId : ''}: ${a.reason}`;
  }
};
const lines = (given: Parameters<typeof observed>[0] = {}) => plan(given).actions.map(line);

test('Kubernetes actions run create, update, delete, scale: the new build first, and an autoscaler goes before its Deployment is scaled to 0', () => {
  const world = {
    deployments: [
      running('a0'),
      running('a1', { replicas: 0 }),
      running('a2', { replicas: 0 }),
      running('v1', { drift: 'the TemporalConnection changed' }),
    ],
    replacements: { 'orders-v1': { metadata: { name: 'orders-v1' } } },
    temporal: {
      versions: [
        version('a0', 'Drained', { drainedSince: ago(2 * HOUR) }),
        version('a1', 'Drained', { drainedSince: ago(26 * HOUR) }),
        version('a2', 'Draining'),
        version('a3', 'Drained', { drainedSince: ago(30 * HOUR) }),
        version('v1', 'Current'),
      ],
    },
    pinned: { running: { a0: 0, a1: 0 }, batches: {} },
    // a2 is scaled back up for its pinned workflows: its autoscaler stays.
    ownedAutoscalers: [hpa('orders-a0'), hpa('orders-a2')],
  };
  assert.deepEqual(lines(world), [
    'create orders-v2: build v2 has no Deployment yet',
    'update orders-v1: Deployment orders-v1 of build v1 is rolled in place: the TemporalConnection changed',
    'delete orders-a1: build a1 has been drained since 2026-11-25T10:00:00.000Z: past scaledownDelay + deleteDelay',
    'deleteOwnedResource HorizontalPodAutoscaler/orders-a0-hpa: Deployment orders-a0 of build a0 is scaled to zero next, and HorizontalPodAutoscaler orders-a0-hpa would scale it back up',
    'scale orders-a0 to 0: build a0 has been drained for longer than scaledownDelay (1h)',
    'scale orders-a2 to 2: build a2 may still have pinned workflows (draining)',
    'deleteTemporalVersion a3: build a3 has no Deployment left',
  ]);
});

test('the finalizers go on first, before anything is written, and only with a connection', () => {
  const deleting = { ...connection([]), metadata: { ...connection([]).metadata, deletionTimestamp: now } };
  const cases: [string, Parameters<typeof observed>[0], string[]][] = [
    ['both on already', {}, []],
    [
      'neither on',
      { metadata: { finalizers: [] }, connection: connection([]) },
      [
        'addFinalizer TemporalWorkerDeployment: deletion must clean up what the controller creates in Temporal',
        'addFinalizer TemporalConnection: deletion must clean up what the controller creates in Temporal, through this connection',
      ],
    ],
    ['the connection being deleted takes none', { connection: deleting }, []],
  ];
  for (const [title, given, expected] of cases)
    assert.deepEqual(
      lines(given).filter((l) => l.startsWith('addFinalizer')),
      expected,
      title,
    );
  assert.equal(
    lines({ metadata: { finalizers: [] }, connection: connection([]) })[0]?.startsWith('addFinalizer'),
    true,
  );
  assert.deepEqual(
    finalizers({ workerDeployment: observed({ metadata: { finalizers: [] } }).workerDeployment }),
    [],
    'no connection known (an observation cut short): nothing to clean up through',
  );
});

test("a cluster connection's Secret copies are written before any Deployment, only those not in place", () => {
  const copy = (name: string, inPlace: boolean, outdated: boolean) => ({
    secret: { metadata: { name } },
    source: `platform/${name}`,
    inPlace,
    outdated,
  });
  assert.deepEqual(
    lines({
      deployments: [running('v1')],
      secretCopies: [copy('orders-temporal-ca', false, false), copy('orders-temporal-api-key', true, false)],
    }),
    [
      'applySecretCopy orders-temporal-ca: the worker Pods mount Secret orders-temporal-ca, a copy of Secret platform/orders-temporal-ca',
      'create orders-v2: build v2 has no Deployment yet',
    ],
  );
});

// The sunset of a drained build: scaled to 0 after spec.sunset.scaledownDelay (1h unless said), deleted deleteDelay (24h unless said) later.

const drained = (drainedFor: number, replicas = 2) => ({
  deployments: [running('v0', { replicas }), running('v1'), running('v2')],
  temporal: {
    versions: [
      version('v0', 'Drained', { drainedSince: ago(drainedFor) }),
      version('v1', 'Drained', { drainedSince: ago(2 * HOUR) }),
      version('v2', 'Current'),
    ],
    currentBuildId: 'v2',
  },
  pinned: { running: { v0: 0, v1: 0 }, batches: {} },
});
const sunsetCases: [
  string,
  Parameters<typeof observed>[0],
  string[],
  { requeueAfterMs: number; requeueFallsDue: boolean },
][] = [
  [
    'drained 10s short of an hour: scaled down when the hour is up',
    drained(HOUR - 10),
    ['scale orders-v1 to 0: build v1 has been drained for longer than scaledownDelay (1h)'],
    { requeueAfterMs: 10_000, requeueFallsDue: true },
  ],
  [
    'drained an hour: scaled to 0',
    drained(HOUR),
    [
      'scale orders-v0 to 0: build v0 has been drained for longer than scaledownDelay (1h)',
      'scale orders-v1 to 0: build v1 has been drained for longer than scaledownDelay (1h)',
    ],
    { requeueAfterMs: 10_000, requeueFallsDue: false },
  ],
  [
    'scaled down, 1s short of 1h + 24h: deleted when due',
    drained(25 * HOUR - 1, 0),
    ['scale orders-v1 to 0: build v1 has been drained for longer than scaledownDelay (1h)'],
    { requeueAfterMs: 1000, requeueFallsDue: true },
  ],
  [
    'scaled down, 1h + 24h: deleted',
    drained(25 * HOUR, 0),
    [
      'delete orders-v0: build v0 has been drained since 2026-11-25T11:00:00.000Z: past scaledownDelay + deleteDelay',
      'scale orders-v1 to 0: build v1 has been drained for longer than scaledownDelay (1h)',
    ],
    { requeueAfterMs: 10_000, requeueFallsDue: false },
  ],
  [
    'spec.sunset says otherwise: its delays (v1, scaled down now, is past its deletion: looked at again at once)',
    { ...drained(HOUR - 10), spec: { sunset: { scaledownDelay: '30m', deleteDelay: '1h' } } },
    [
      'scale orders-v0 to 0: build v0 has been drained for longer than scaledownDelay (30m)',
      'scale orders-v1 to 0: build v1 has been drained for longer than scaledownDelay (30m)',
    ],
    { requeueAfterMs: 0, requeueFallsDue: true },
  ],
];
for (const [title, given, expected, requeue] of sunsetCases)
  test(`sunset: ${title}`, () => {
    const result = plan(given);
    assert.deepEqual(result.actions.map(line), expected);
    assert.deepEqual({ requeueAfterMs: result.requeueAfterMs, requeueFallsDue: result.requeueFallsDue }, requeue);
  });

// The pinned-workflow ladder acts on old builds only: not current, ramping nor the target, with
// Deployments, deactivated, and able to hold pinned workflows (or their batch still running).

const ladderSpec = { signalAfter: '1m', cancelAfter: '10m', terminateAfter: '1h' };
const running2 = { running: 2, step: 'Waiting' };
const batchOf = (jobID: string, state: string) => ({
  running: 2,
  step: 'Signal',
  batch: { jobID, operation: 'Signal', state, total: 2, completed: state === 'Completed' ? 2 : 0, failed: 0 },
});
/** What the status remembers of each build, by build ID. */
const remembered = (memories: Record<string, object>) => ({
  deprecatedVersions: Object.entries(memories).map(([buildID, pinnedWorkflows]) => ({
    buildID,
    status: 'Draining',
    pinnedWorkflows,
  })),
});
const laddered = (memories: Record<string, object> = {}, more: Partial<TemporalDeploymentState> = {}) => ({
  spec: { sunset: { pinnedWorkflows: ladderSpec } },
  status: remembered(memories) as TemporalWorkerDeployment['status'],
  deployments: ['d0', 'd1', 'd2', 'v1', 'v2', 'v3'].map((b) => running(b)),
  temporal: {
    versions: [
      version('d0', 'Draining', { deactivatedAt: ago(120) }),
      version('d1', 'Drained', { deactivatedAt: ago(120), drainedSince: ago(60) }),
      version('d2', 'Draining', { deactivatedAt: ago(120) }),
      version('d3', 'Draining', { deactivatedAt: ago(120) }),
      version('v1', 'Current'),
      version('v2', 'Inactive', { everActive: true, deactivatedAt: ago(120) }),
      version('v3', 'Ramping'),
    ],
    rampingBuildId: 'v3',
    rampPercentage: 10,
    ...more,
  },
});

test('ladder: the old builds that may hold pinned workflows are counted and laddered; the target, current, ramping, drained and Deployment-less ones are not', () => {
  const jobOf = (buildId: string) => reads(laddered()).ladder.batches.find((b) => b.jobId.includes(buildId))?.jobId;
  assert.deepEqual(reads(laddered()).ladder.count, ['d0', 'd2'], 'd1 drained, d3 without Deployment, v1-v3 active');
  const d0 = jobOf('d0');
  assert.ok(d0);
  const v2 = (operation: 'Signal' | 'Cancel' | 'Terminate') => ({
    jobId: batchJobId('shop/orders', 'v2', operation, ladderSpec),
    operation,
  });
  assert.deepEqual(reads(laddered()).ladder.batches, [
    // The target, once active: what its ladder may have started on it is looked for (see below).
    v2('Signal'),
    v2('Cancel'),
    v2('Terminate'),
    { jobId: d0, operation: 'Signal' },
    { jobId: jobOf('d2'), operation: 'Signal' },
  ]);
  const ended = reads(laddered({ d0: batchOf(d0, 'Completed') })).ladder;
  assert.deepEqual(
    ended.batches.map((b) => b.jobId).filter((id) => !id.includes('/v2/')),
    [jobOf('d2')],
    "d0's batch ended, as the status remembers: not read again",
  );
  const countedOnly = reads(laddered({ d1: running2, v1: running2 })).ladder;
  assert.deepEqual(countedOnly.count, ['d0', 'd2'], 'a drained build with a count but no batch remembered');
});

test('ladder: a batch still running keeps a drained build laddered, and one on a build active again is read and stopped', () => {
  const job = (buildId: string) => `signal-${buildId}`;
  const memories = {
    d1: batchOf(job('d1'), 'Running'),
    v2: batchOf(job('v2'), 'Running'),
    v3: batchOf(job('v3'), 'Running'),
  };
  const needed = reads(laddered(memories)).ladder;
  assert.deepEqual(needed.count, ['d0', 'd1', 'd2']);
  assert.deepEqual(
    needed.batches.filter((b) => b.jobId.startsWith('signal-')),
    [
      { jobId: job('v2'), operation: 'Signal' },
      { jobId: job('v3'), operation: 'Signal' },
    ],
    'the target and the ramping build are active again: their batches are read to be stopped',
  );
  const stops = plan({ ...laddered(memories), pinned: undefined })
    .actions.filter((a) => a.action === 'stopBatch')
    .map(line);
  assert.deepEqual(
    stops,
    [
      'stopBatch v2: build v2 is current, ramping or the target again: its ladder stops, and its running Signal batch is stopped',
    ],
    "not read (no pinned observation): stopped all the same; v3's ramp is cleared by this plan's promotion of v2, so its batch goes on",
  );
});

// The analysis window: after an AllAtOnce promotion, from Temporal's time of it, for the window and
// maxWait (10m unless said); not a promotion long past, nor a rollback to a build active before.

const judged = { window: '10m', maxFailureRate: 0.1 };
const promoted = (secondsAgo: number, firstActive?: number, more: Partial<TemporalDeploymentState> = {}) => ({
  spec: { rollout: { strategy: 'AllAtOnce' as const, analysis: judged } },
  temporal: {
    versions: [
      version('v1', 'Draining', { lastCurrentAt: ago(secondsAgo) }),
      version('v2', 'Current', firstActive === undefined ? {} : { firstActiveAt: ago(firstActive) }),
    ],
    currentBuildId: 'v2',
    currentChangedAt: ago(secondsAgo),
    ...more,
  },
});
const counted = (secondsAgo: number) => ({ buildIds: ['v2'], since: ago(secondsAgo) });
const allAtOnceReads: [string, Parameters<typeof observed>[0], object | undefined][] = [
  ['promoted 2 minutes ago: its workflows since then', promoted(120, 120), counted(120)],
  ['Temporal reports no first activation: judged', promoted(120), counted(120)],
  ['promoted exactly window + maxWait ago: still judged', promoted(20 * 60), counted(20 * 60)],
  ['promoted longer ago than window + maxWait: not judged after the fact', promoted(20 * 60 + 1), undefined],
  [
    'a maxWait of its own: the judging lasts window + maxWait',
    { ...promoted(20 * 60 + 1), spec: { rollout: { strategy: 'AllAtOnce', analysis: { ...judged, maxWait: '1h' } } } },
    counted(20 * 60 + 1),
  ],
  ['first active 1s before its promotion (the same routing change): judged', promoted(120, 121), counted(120)],
  ['first active an hour before its promotion (a rollback to it): not judged', promoted(120, 3720), undefined],
  [
    'another build made current 2 minutes ago, not the target: nothing to judge',
    {
      ...promoted(120),
      temporal: {
        versions: [version('v1', 'Current'), version('v2', 'Inactive')],
        currentBuildId: 'v1',
        currentChangedAt: ago(120),
      },
    },
    undefined,
  ],
];
for (const [title, given, expected] of allAtOnceReads)
  test(`analysis of an AllAtOnce promotion: ${title}`, () => {
    assert.deepEqual(reads(given).analysis, expected);
  });

const stepped = {
  strategy: 'Progressive' as const,
  steps: [
    { rampPercentage: 10, pauseDuration: '5m' },
    { rampPercentage: 50, pauseDuration: '5m' },
  ],
  analysis: { maxFailureRate: 0.1 },
};
const ramping = (buildId: string, rampPercentage: number, rampChangedAt?: Date) => ({
  spec: { rollout: stepped },
  temporal: {
    versions: [version('v1', 'Current'), version(buildId, 'Ramping')],
    rampingBuildId: buildId,
    rampPercentage,
    ...(rampChangedAt ? { rampChangedAt } : {}),
  },
});
const progressiveReads: [string, Parameters<typeof observed>[0], object | undefined][] = [
  ['the target ramps at step 1: its workflows since the ramp', ramping('v2', 10, ago(60)), counted(60)],
  ['at step 2: since that ramp', ramping('v2', 50, ago(30)), counted(30)],
  ['a ramp set by hand between the steps: no step is judged', ramping('v2', 30, ago(60)), undefined],
  ['Temporal does not say when the ramp changed: no window', ramping('v2', 10), undefined],
  ['another build ramps: the target has no step yet', ramping('v3', 10, ago(60)), undefined],
  [
    'spec.rollout.promote names the target: no analysis holds it',
    { ...ramping('v2', 10, ago(60)), spec: { rollout: { ...stepped, promote: 'v2' } } },
    undefined,
  ],
];
for (const [title, given, expected] of progressiveReads)
  test(`analysis of a Progressive step: ${title}`, () => {
    assert.deepEqual(reads(given).analysis, expected);
  });

const failing = { v2: { closed: 20, failed: 10 } };
const verdict =
  'analysis of build v2 since its promotion: 10 of 20 workflows closed on the promoted build failed (50%), above maxFailureRate 10%';
test('a failed AllAtOnce analysis: the verdict is remembered and reported, and the build current before takes new workflows again', () => {
  const result = plan({ ...promoted(120, 120), metadata: { generation: 4 }, analysis: { counts: failing } });
  assert.deepEqual(result.actions.map(line), [
    `route {"action":"setCurrent","buildId":"v1","claimManager":false}: ${verdict}: going back to build v1, current before it`,
  ]);
  assert.deepEqual(result.conditions, [
    { type: 'Stalled', status: 'True', reason: 'AnalysisFailed', message: verdict },
  ]);
  assert.equal(result.analysisReached, 'Failed');
  assert.deepEqual(
    [result.analysis?.generation, result.analysis?.verdict, result.analysis?.windowStart, result.analysis?.message],
    [4, 'Failed', ago(120).toISOString(), verdict],
  );
  assert.deepEqual(result.failedBuilds, [
    { buildID: 'v2', reason: 'AnalysisFailed', message: verdict, at: now.toISOString() },
  ]);
});

const failedAfterPromotion = (builds: TemporalVersion[], more: Parameters<typeof observed>[0] = {}) => {
  const base = promoted(120, 120);
  return {
    ...base,
    deployments: [running('v0'), running('v1'), running('v2')],
    temporal: { ...base.temporal, versions: [...builds, version('v2', 'Current', { firstActiveAt: ago(120) })] },
    analysis: { counts: failing },
    ...more,
  };
};
const failedBefore = (buildID: string) => ({
  failedBuilds: [{ buildID, reason: 'GateFailed', message: 'smoke failed', at: ago(HOUR).toISOString() }],
});
const goingBack: [string, Parameters<typeof observed>[0], string][] = [
  [
    'the build current most recently before it',
    failedAfterPromotion([
      version('v0', 'Draining', { lastCurrentAt: ago(1800) }),
      version('v1', 'Draining', { lastCurrentAt: ago(120) }),
    ]),
    `${verdict}: going back to build v1, current before it`,
  ],
  [
    "the target's own last time current is not a build to go back to",
    failedAfterPromotion([
      version('v0', 'Draining', { lastCurrentAt: ago(1800) }),
      version('v1', 'Draining', { lastCurrentAt: ago(120) }),
      version('v2', 'Current', { firstActiveAt: ago(120), lastCurrentAt: ago(60) }),
    ]),
    `${verdict}: going back to build v1, current before it`,
  ],
  [
    'one that failed a gate or an analysis itself is passed over',
    failedAfterPromotion(
      [version('v0', 'Draining', { lastCurrentAt: ago(1800) }), version('v1', 'Draining', { lastCurrentAt: ago(120) })],
      { status: failedBefore('v1') },
    ),
    `${verdict}: going back to build v0, current before it`,
  ],
  [
    'one current longer ago than the rollback window is not gone back to',
    failedAfterPromotion([version('v0', 'Draining', { lastCurrentAt: ago(2 * HOUR) }), version('v1', 'Draining')]),
    `${verdict}: no build was current before it within the rollback window without failing itself, so it stays current`,
  ],
  [
    'one without an available Deployment: the promoted build stays current',
    failedAfterPromotion([version('v1', 'Draining', { lastCurrentAt: ago(120) })], {
      deployments: [running('v1', { available: false }), running('v2')],
    }),
    `${verdict}: build v1, current before it, has no available Deployment to go back to, so it stays current`,
  ],
];
for (const [title, given, reason] of goingBack)
  test(`a failed AllAtOnce analysis goes back to: ${title}`, () => {
    assert.equal(plan(given).routing.reason, reason);
  });

test("an analysis waiting past a step's end has the plan look again when its wait is over, not only at the next poll", () => {
  const waiting = { ...ramping('v2', 10, ago(400)), analysis: { counts: { v2: { closed: 2, failed: 0 } } } };
  const hourly = planReconcile(observed(waiting), { ...config, pollIntervalMs: 3_600_000 });
  assert.equal(hourly.routing.action, 'wait');
  assert.deepEqual([hourly.requeueAfterMs, hourly.requeueFallsDue], [500_000, true], 'at 12:08:20, the end of maxWait');
});
// The gates: started on the target's queues once it is registered, each action with its reason; a
// failure stops the rollout, is remembered for the build and reported.

const gateId = gateWorkflowId('shop/orders', 'v2', { name: 'rollout', gate: smoke }, 'orders');
const gateRead = (runs: Record<string, GateRun | undefined>) => ({
  taskQueues: { workflow: ['orders'], activity: ['orders'] },
  gateStage: 'rollout',
  gateRuns: runs,
});
/** The status remembering the controller's run r1 of the gate, and what else it says. */
const runningGate = (workflowID = gateId, buildID = 'v2') =>
  ({
    targetVersion: {
      buildID,
      status: 'Inactive',
      gates: [{ stage: 'rollout', taskQueue: 'orders', workflowID, runID: 'r1', status: 'Running', generation: 1 }],
    },
  }) as TemporalWorkerDeployment['status'];
const ownRun = (more: Partial<GateRun>): GateRun => ({
  workflowId: gateId,
  runId: 'r1',
  workflowType: 'smoke',
  pinnedTo: { deploymentName: 'shop/orders', buildId: 'v2' },
  status: 'Running',
  ...more,
});
const started = `startGate ${gateId}: started gate rollout (smoke) of build v2 on task queue orders, pinned to the build`;
/** What the status remembers of target v2 when Temporal listed its queues a minute ago, as much as a gate waits. */
const listedBefore = (queues = ['orders']) =>
  ({
    targetVersion: {
      buildID: 'v2',
      status: 'Inactive',
      gateQueuesListed: { taskQueues: queues, since: ago(60).toISOString() },
    },
  }) as TemporalWorkerDeployment['status'];
const gateCases: [string, Parameters<typeof observed>[0], string[]][] = [
  [
    "none run yet: started on the build's queue",
    { spec: gated, status: listedBefore(), target: gateRead({}) },
    [started],
  ],
  [
    'none run yet, the queue first listed now: none starts before its partitions know the build',
    { spec: gated, target: gateRead({}) },
    [],
  ],
  [
    'the target not registered in Temporal: no gate starts, whatever was read',
    { spec: gated, target: gateRead({}), temporal: { versions: [version('v1', 'Current')] } },
    [],
  ],
  [
    "a run of the gate's former spec still running: ended, and the gate of the spec started",
    { spec: gated, status: runningGate('old-spec'), target: gateRead({}) },
    [
      'terminateGate old-spec r1: terminated gate rollout of build v2 on task queue orders (workflow old-spec): it was started for another spec of the gate, which no longer stands',
      started,
    ],
  ],
  [
    'a run that cannot progress, and the retry annotation set: replaced',
    {
      spec: gated,
      metadata: { annotations: { [RETRY_GATE_ANNOTATION]: '1' } },
      status: runningGate(),
      target: gateRead({ orders: ownRun({ stuck: 'its workflow task failed' }) }),
    },
    [
      `terminateGate ${gateId} r1: terminated gate rollout of build v2 on task queue orders (run r1): it cannot progress and annotation temporal.io/retry-gate=1 asks for a new run`,
      started,
    ],
  ],
  [
    'the gate of a build no longer the target: ended, it judges no rollout',
    { spec: gated, status: runningGate('v1b-gate', 'v1b') },
    [
      'terminateGate v1b-gate r1: terminated gate rollout of build v1b on task queue orders: build v1b is no longer the target, so the gate judges no rollout',
    ],
  ],
];
for (const [title, given, expected] of gateCases)
  test(`gates: ${title}`, () => {
    assert.deepEqual(lines(given), expected);
  });

test("gates: a queue first listed now is looked at again when its gate may start, and the routing's wait says why", () => {
  const fresh = plan({ spec: gated, target: gateRead({}) });
  assert.deepEqual([fresh.requeueAfterMs, fresh.requeueFallsDue], [10_000, true]);
  assert.deepEqual(fresh.gates.gateQueuesListed, { taskQueues: ['orders'], since: now.toISOString() });
  assert.match(
    fresh.routing.reason,
    /gate rollout starts on orders at 2026-11-26T12:00:10.000Z, 10 s after Temporal listed/,
  );
});

test('gates: the retry asked by the annotation is remembered once acted on, even with nothing remembered before', () => {
  const asked = {
    spec: gated,
    metadata: { annotations: { [RETRY_GATE_ANNOTATION]: '1' } },
    status: listedBefore(),
    target: gateRead({}),
  };
  assert.equal(plan(asked).gates.gateRetry, '1');
  assert.deepEqual(lines(asked), [started]);
});

const gateFailure =
  'gate rollout failed on task queue orders: workflow ' +
  gateId +
  ' boom; the rollout of build v2 stops, its Pods stay for the workflows already on it; change that gate in the spec or set annotation temporal.io/retry-gate to a new value to run the gate again';
test('gates: a failed run stops the rollout, stalls the worker deployment and is remembered for the build', () => {
  const result = plan({
    spec: gated,
    status: runningGate(),
    target: gateRead({ orders: ownRun({ status: 'Failed', message: 'boom' }) }),
  });
  assert.deepEqual(result.actions, []);
  assert.deepEqual(result.conditions, [
    { type: 'Stalled', status: 'True', reason: 'GateFailed', message: gateFailure },
  ]);
  assert.deepEqual(result.failedBuilds, [
    { buildID: 'v2', reason: 'GateFailed', message: gateFailure, at: now.toISOString() },
  ]);
  assert.equal(result.gates.gateFailure?.stage, 'rollout');
  assert.equal(
    result.routing.reason,
    'a gate of build v2 failed: its rollout stops until that gate changes in the spec or is retried',
  );
});

test("gates: a gate's runs that could not be read hold the routing change, and say why", () => {
  const result = plan({
    spec: gated,
    target: { taskQueues: { workflow: ['orders'], activity: ['orders'] }, gateReadFailure: 'permission denied' },
  });
  assert.deepEqual(result.actions, []);
  assert.deepEqual(result.conditions, [
    { type: 'Progressing', status: 'False', reason: 'GateCheckFailed', message: 'permission denied' },
  ]);
  assert.equal(result.routing.action, 'wait');
});

// The routing change: with the conflict token of the state it was decided on, the manager identity
// claimed where none is set, and a reason that says when another build's ramp goes with it.

const token = new Uint8Array([7, 7]);
const routeCases: [string, Parameters<typeof observed>[0], string[]][] = [
  [
    "AllAtOnce while another build ramps: promoted, that build's ramp cleared in the same change",
    {
      temporal: {
        versions: [version('v1', 'Current'), version('v2', 'Inactive'), version('v3', 'Ramping')],
        rampingBuildId: 'v3',
        rampPercentage: 20,
        conflictToken: token,
      },
      deployments: [running('v1'), running('v2'), running('v3')],
    },
    [
      'route {"action":"setCurrent","buildId":"v2","clearingRampOf":"v3","claimManager":false,"conflictToken":{"0":7,"1":7}}: build v2 is registered and available: promoting it (AllAtOnce); the ramp of build v3 is cleared in the same change',
    ],
  ],
  [
    'the last step of its own ramp over: promoted, no other ramp to speak of',
    { ...ramping('v2', 50, ago(600)), spec: { rollout: { ...stepped, analysis: undefined } } },
    [
      'route {"action":"setCurrent","buildId":"v2","claimManager":false}: the last step of build v2 is over: promoting it',
    ],
  ],
  [
    'a ramp started where no manager identity is set: the controller claims it',
    {
      ...ramping('v2', 10, ago(60)),
      spec: { rollout: { ...stepped, analysis: undefined } },
      temporal: { managerIdentity: undefined, versions: [version('v1', 'Current'), version('v2', 'Inactive')] },
    },
    [
      'route {"action":"setRamp","buildId":"v2","percentage":10,"claimManager":true}: starting the ramp of build v2 at step 1: 10%',
    ],
  ],
  [
    'the target current with a leftover ramp: cleared',
    {
      temporal: {
        versions: [version('v2', 'Current'), version('v3', 'Ramping')],
        currentBuildId: 'v2',
        rampingBuildId: 'v3',
        rampPercentage: 20,
      },
      deployments: [running('v2'), running('v3')],
    },
    ['route {"action":"clearRamp","claimManager":false}: build v2 is current: clearing the leftover ramp of build v3'],
  ],
];
for (const [title, given, expected] of routeCases)
  test(`route: ${title}`, () => {
    assert.deepEqual(lines(given), expected);
  });

test('route: a deployment another manager holds is not routed; it is said only when the plan would change the routing', () => {
  const elsewhere = { temporal: { managerIdentity: 'someone-else' } };
  const held = plan(elsewhere);
  assert.deepEqual(held.actions, []);
  assert.deepEqual(
    held.conditions.map((c) => `${c.type} ${c.reason}`),
    ['Stalled ManagedElsewhere'],
  );
  assert.match(
    held.conditions[0]?.message ?? '',
    /^build v2 is registered and available: promoting it \(AllAtOnce\): /,
  );
  assert.deepEqual(held.routed, observed(elsewhere).temporal, 'Temporal left as it is');
  const settled = plan({
    temporal: { managerIdentity: 'someone-else', versions: [version('v2', 'Current')], currentBuildId: 'v2' },
    deployments: [running('v2')],
  });
  assert.deepEqual([settled.actions, settled.conditions], [[], []], 'nothing to change: nothing to say');
});

// What the status remembers of failed builds: a failure is kept (from when it happened) while its
// build is known, until the build is current again with no ramp left and its gates and analysis passed.

const earlierFailure = (buildID: string) => ({
  buildID,
  reason: 'GateFailed',
  message: 'gate rollout failed on task queue orders',
  at: ago(HOUR).toISOString(),
});
const v2Current = {
  temporal: { versions: [version('v1', 'Draining'), version('v2', 'Current')], currentBuildId: 'v2' },
};
const gateFailedBefore = {
  targetVersion: {
    buildID: 'v2',
    status: 'Current',
    gateFailure: {
      generation: 1,
      specHash: gateSpecHash(smoke),
      stage: 'rollout',
      workflowID: gateId,
      message: 'gate rollout failed on task queue orders',
    },
  },
};
const memoryCases: [string, Parameters<typeof observed>[0], string[]][] = [
  [
    'the target current, no ramp, nothing left to pass: its failure is lifted; one of a build gone is kept',
    { ...v2Current, status: { failedBuilds: [earlierFailure('v2'), earlierFailure('v0')] } },
    [`v0 GateFailed at ${ago(HOUR).toISOString()}`],
  ],
  [
    "another build's failure is kept while that build is known",
    { ...v2Current, status: { failedBuilds: [earlierFailure('v1')] } },
    [`v1 GateFailed at ${ago(HOUR).toISOString()}`],
  ],
  [
    'the target not current (Manual leaves routing to you): kept',
    { spec: { rollout: { strategy: 'Manual' } }, status: { failedBuilds: [earlierFailure('v2')] } },
    [`v2 GateFailed at ${ago(HOUR).toISOString()}`],
  ],
  [
    'the target current, but another build still ramps (a change held by another manager): kept',
    {
      temporal: {
        ...v2Current.temporal,
        versions: [...v2Current.temporal.versions, version('v3', 'Ramping')],
        rampingBuildId: 'v3',
        rampPercentage: 10,
        managerIdentity: 'someone-else',
      },
      status: { failedBuilds: [earlierFailure('v2')] },
    },
    [`v2 GateFailed at ${ago(HOUR).toISOString()}`],
  ],
  [
    'the target made current by hand while its gate failure holds: kept',
    {
      ...v2Current,
      spec: gated,
      status: { ...gateFailedBefore, failedBuilds: [earlierFailure('v2')] },
    },
    [`v2 GateFailed at ${ago(HOUR).toISOString()}`],
  ],
  [
    'the target current, its analysis still judging it: kept',
    {
      ...promoted(120, 120),
      analysis: { counts: { v2: { closed: 1, failed: 0 } } },
      status: { failedBuilds: [earlierFailure('v2')] },
    },
    [`v2 GateFailed at ${ago(HOUR).toISOString()}`],
  ],
];
for (const [title, given, expected] of memoryCases)
  test(`failed builds: ${title}`, () => {
    assert.deepEqual(
      plan(given).failedBuilds.map((f) => `${f.buildID} ${f.reason} at ${f.at}`),
      expected,
    );
  });

test('versions the spec cannot move on stall the worker deployment, saying why', () => {
  const noWorkers = plan({
    spec: { replicas: 0 },
    deployments: [running('v1'), running('v2', { replicas: 0 })],
    temporal: { versions: [version('v1', 'Current')] },
  });
  const full = planReconcile(
    observed({
      deployments: [running('v0'), running('v1')],
      temporal: { versions: [version('v0', 'Draining'), version('v1', 'Current')] },
    }),
    { ...config, maxIneligibleVersions: 2 },
  );
  assert.deepEqual(noWorkers.conditions, [
    {
      type: 'Stalled',
      status: 'True',
      reason: 'BuildNotRegistered',
      message:
        "build v2 runs no workers (the spec gives it 0 replicas), so it cannot register in Temporal: give it replicas (spec.replicas or the pools' replicas)",
    },
  ]);
  assert.deepEqual(full.conditions, [
    {
      type: 'Stalled',
      status: 'True',
      reason: 'VersionLimitReached',
      message:
        'not creating build v2: 2 older builds took traffic and are not yet drained and scaled down (limit 2): v0, v1; shorten spec.sunset or finish their pinned workflows',
    },
  ]);
  assert.deepEqual(full.actions, [], 'nothing created');
});

test('with pools: the target is routable once every pool runs, and a gate passed on the same layout of queues holds', () => {
  const queues = ['q-batch', 'q-main'];
  const passed = queues.map((taskQueue) => ({
    stage: 'rollout',
    taskQueue,
    workflowID: gateWorkflowId('shop/orders', 'v2', { name: 'rollout', gate: smoke }, taskQueue),
    runID: 'r1',
    status: 'Completed',
  }));
  const world = pooled({}, {});
  const given = {
    spec: { ...pools, ...gated },
    deployments: world.deployments,
    status: { targetVersion: { buildID: 'v2', status: 'Inactive', gates: passed, gatePoolQueues: queues } } as never,
  };
  assert.equal(
    'gateStage' in reads(given),
    false,
    'passed on q-batch and q-main, the queues the pools name: not read again',
  );
  assert.deepEqual(lines(given), [
    'route {"action":"setCurrent","buildId":"v2","claimManager":false}: build v2 is registered and available: promoting it (AllAtOnce)',
  ]);
  const firstRead = {
    ...given,
    status: listedBefore(queues),
    target: { taskQueues: { workflow: queues, activity: queues }, gateStage: 'rollout', gateRuns: {} },
  };
  assert.deepEqual(
    plan(firstRead).actions.map((a) => a.action === 'startGate' && a.start.taskQueue),
    queues,
    'started on the queue of each pool',
  );
  assert.deepEqual(plan(firstRead).gates.gatePoolQueues, queues, 'the layout remembered, in order');
  const onePoolDown = { ...given, deployments: pooled({ available: false }, {}).deployments };
  assert.equal(plan(onePoolDown).routing.reason, 'waiting for the Deployments of build v2 to become available');
});

test('no build current: the first one is ramped beside unversioned workers that poll, promoted at once where none does', () => {
  const progressiveFirst = { ...noneCurrent, deployments: [running('v2')] };
  const taskQueues = { workflow: ['orders'], activity: ['orders'] };
  const cases: [string, Parameters<typeof observed>[0], string][] = [
    [
      'Progressive, unversioned workers poll: the ramp starts',
      { ...progressiveFirst, target: { taskQueues, unversionedPollers: true } },
      'starting the ramp of build v2 at step 1: 10%',
    ],
    [
      'Progressive, none poll: promoted',
      { ...progressiveFirst, target: { taskQueues, unversionedPollers: false } },
      'no build is current and no unversioned workers poll: promoting build v2 directly',
    ],
    [
      'Progressive, not known yet: it waits to tell',
      progressiveFirst,
      'waiting for build v2 to register its task queues, to tell whether unversioned workers poll them',
    ],
    [
      'AllAtOnce: promoted, unversioned workers or not',
      { ...progressiveFirst, spec: {} },
      'no build is current and no unversioned workers poll: promoting build v2 directly',
    ],
  ];
  for (const [title, given, reason] of cases) assert.equal(plan(given).routing.reason, reason, title);
});

test('a Deployment is created or rolled only with the object the spec builds for it', () => {
  const drifted = { deployments: [running('v1', { drift: 'the template changed' }), running('v2')] };
  assert.deepEqual(
    lines({ ...drifted, replacements: { 'orders-v1': { metadata: { name: 'orders-v1' } } } })[0],
    'update orders-v1: Deployment orders-v1 of build v1 is rolled in place: the template changed',
  );
  assert.deepEqual(
    lines(drifted).filter((l) => l.startsWith('update')),
    [],
    'no replacement built: nothing to roll it to',
  );
  assert.deepEqual(
    lines({ deployments: [running('v1')], wanted: [] }).filter((l) => l.startsWith('create')),
    [],
    'no Deployment built for the target: nothing to create',
  );
});

test('the plan looks again at the earliest thing it waits for: a sunset due before the next poll makes the requeue fall due', () => {
  const stepPause = { ...ramping('v2', 10, ago(60)), spec: { rollout: { ...stepped, analysis: undefined } } };
  const both = {
    ...stepPause,
    deployments: [running('v0'), running('v1'), running('v2')],
    temporal: {
      ...stepPause.temporal,
      versions: [version('v0', 'Drained', { drainedSince: ago(HOUR - 5) }), ...stepPause.temporal.versions],
    },
    pinned: { running: { v0: 0 }, batches: {} },
  };
  const result = plan(both);
  assert.equal(result.routing.reason, `build v2 at step 1 (10%) until ${ago(-240).toISOString()}`);
  assert.deepEqual([result.requeueAfterMs, result.requeueFallsDue], [5000, true], "v0's scale-down in 5s");
  assert.deepEqual(
    [plan(stepPause).requeueAfterMs, plan(stepPause).requeueFallsDue],
    [10_000, false],
    'the step ends in 4 minutes: the routine poll comes first',
  );
});

test("at Temporal's cap of versions, a record is deleted to make room for the target, then its workers are given the grace to register", () => {
  const atCap = {
    deployments: [running('v0', { replicas: 0 }), running('v1'), running('v2')],
    temporal: {
      versions: [version('v0', 'Drained', { drainedSince: ago(2 * HOUR) }), version('v1', 'Current')],
    },
  };
  const capOfTwo = { ...config, maxVersionsInDeployment: 2 };
  assert.deepEqual(planReconcile(observed(atCap), capOfTwo).actions.map(line), [
    'deleteTemporalVersion v0: build v2 has run for 600s without registering in Temporal and Temporal records 2 versions of this deployment, its cap of 2 (matching.maxVersionsInDeployment): the record of build v0 (drained and scaled down) is deleted to make room',
  ]);
  const roomJustMade = {
    ...atCap,
    status: { targetVersion: { buildID: 'v2', status: 'NotRegistered', madeRoomAt: ago(10).toISOString() } },
  };
  assert.deepEqual(
    planReconcile(observed(roomJustMade), capOfTwo).actions,
    [],
    'room made 10s ago: no other record goes yet',
  );
});

test('ladder: a target once active and not current has its batches looked for, by the job IDs of the ladder as it is and in the list, whatever its memory', () => {
  const reactivating = {
    spec: { sunset: { pinnedWorkflows: { cancelAfter: '3m' } } },
    temporal: { versions: [version('v1', 'Current'), version('v2', 'Drained', { lastCurrentAt: ago(HOUR) })] },
  };
  const cancelJob = batchJobId('shop/orders', 'v2', 'Cancel', { cancelAfter: '3m' });
  const ladderOf = (given: Parameters<typeof reads>[0]) => {
    const { batches, listed } = reads(given).ladder;
    return { batches, listed };
  };
  assert.deepEqual(ladderOf(reactivating), { batches: [{ jobId: cancelJob, operation: 'Cancel' }], listed: ['v2'] });
  const fresh = { ...reactivating, temporal: { versions: [version('v1', 'Current'), version('v2', 'Inactive')] } };
  assert.deepEqual(ladderOf(fresh), { batches: [], listed: [] }, 'never active: no batch can have been started on it');
  const current = { ...reactivating, temporal: { currentBuildId: 'v2', versions: [version('v2', 'Current')] } };
  assert.deepEqual(ladderOf(current), { batches: [], listed: [] }, 'current as read: its batches were stopped then');
  const ramping = {
    ...reactivating,
    temporal: {
      currentBuildId: 'v1',
      rampingBuildId: 'v2',
      rampPercentage: 10,
      versions: [version('v1', 'Current'), version('v2', 'Ramping')],
    },
  };
  assert.deepEqual(ladderOf(ramping), { batches: [], listed: [] }, 'ramping as read: looked at when the ramp was set');
  assert.deepEqual(
    ladderOf({ temporal: reactivating.temporal }),
    { batches: [], listed: ['v2'] },
    'no ladder now: one may have run before it was taken out',
  );
});
