// The plan of one reconcile, end to end through planReconcile, readsNeeded and gateQueues: from an
// observation as plain data to the exact actions (each with its reason), conditions, notes and
// status memory the executor and the status writer rely on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { Observation } from '../../src/domain/observation.ts';
import type { ObservedDeployment, TemporalDeploymentState, TemporalVersion } from '../../src/domain/snapshot.ts';
import { finalizers, gateQueues, type PlannedAction, planReconcile, readsNeeded } from '../../src/planner/plan.ts';
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
    ladder: { count: [], batches: [] },
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
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  name: `${deploymentName}-hpa`,
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
