// `twc status`: the view made from the objects as read, and the tree printed from it.
import type { CoreV1Event, V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import { age, renderStatus } from '../../src/cli/status/render.ts';
import { statusView } from '../../src/cli/status/view.ts';

const now = new Date('2026-11-25T12:00:00Z');
const ESC = '\u001b';
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

const workerDeployment = {
  metadata: { name: 'orders', namespace: 'shop', generation: 4 },
  spec: {
    rollout: { strategy: 'Progressive', steps: [{ rampPercentage: 25, pauseDuration: '5m' }] },
  },
  status: {
    observedGeneration: 4,
    targetVersion: {
      buildID: 'v3',
      status: 'Ramping',
      rampPercentage: 25,
      rampHistory: [{ percentage: 25, at: ago(60) }],
      pollers: 4,
      gates: [{ stage: 'step-1', taskQueue: 'q', workflowID: 'gate-v3-1', status: 'Completed' }],
      analysis: {
        generation: 4,
        step: 1,
        verdict: 'Pending',
        windowStart: ago(60),
        closed: 3,
        failed: 0,
        message: '3 of 10 closed',
        checkedAt: ago(5),
      },
    },
    currentVersion: { buildID: 'v2', status: 'Current', pollers: 1, currentSince: ago(3600) },
    deprecatedVersions: [
      {
        buildID: 'v1',
        status: 'Draining',
        pollers: 0,
        deactivatedAt: ago(3000),
        pinnedWorkflows: { running: 7, countedAt: ago(30), step: 'Waiting' },
      },
      { buildID: 'v0', status: 'Drained', drainedSince: ago(7200) },
    ],
    conditions: [
      { type: 'Ready', status: 'False', reason: 'Ramping', message: 'v3 ramps at 25%', lastTransitionTime: ago(60) },
      { type: 'Progressing', status: 'True', reason: 'Ramping', message: 'step 1 of 1', lastTransitionTime: ago(60) },
    ],
  },
} as unknown as TemporalWorkerDeployment;

function deployment(name: string, buildId: string, created: number, ready: number, desired?: number, more = {}) {
  return {
    metadata: {
      name,
      creationTimestamp: new Date(ago(created)),
      labels: { 'temporal.io/deployment-name': 'orders', 'temporal.io/build-id': buildId, ...more },
    },
    spec: desired === undefined ? {} : { replicas: desired },
    status: { readyReplicas: ready },
  } as unknown as V1Deployment;
}

const deployments = [
  deployment('orders-v3', 'v3', 120, 1, 2),
  deployment('orders-spot-v3', 'v3', 100, 3, undefined, { 'temporal.io/pool': 'spot' }),
  deployment('orders-v2', 'v2', 86_400, 2, 2),
  deployment('orders-v1', 'v1', 3 * 86_400, 1, 1),
  {
    ...deployment('other-v9', 'v9', 10, 1, 1),
    metadata: { name: 'other-v9', labels: { 'temporal.io/deployment-name': 'other' } },
  },
];

const ownedResources = [
  {
    metadata: { name: 'hpa' },
    spec: { workerRef: { name: 'orders' }, object: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' } },
    status: {
      versions: [
        { buildID: 'v3', resourceName: 'orders-hpa-v3', applied: false, message: 'forbidden' },
        { buildID: 'v2', resourceName: 'orders-hpa-v2', applied: true },
      ],
    },
  },
  { metadata: { name: 'theirs' }, spec: { workerRef: { name: 'other' }, object: { kind: 'PodDisruptionBudget' } } },
] as unknown as TemporalWorkerOwnedResource[];

const event = (reason: string, seconds: number, more: Partial<CoreV1Event> = {}): CoreV1Event => ({
  metadata: {},
  involvedObject: { kind: 'TemporalWorkerDeployment', name: 'orders' },
  type: 'Normal',
  reason,
  message: `${reason} happened`,
  lastTimestamp: new Date(ago(seconds)),
  ...more,
});

const events = [
  event('RampChanged', 60, { count: 2 }),
  event('GatePassed', 90),
  event('Old1', 900),
  event('Old2', 1000),
  event('Old3', 1100),
  event('Oldest', 2000),
  event('NotOurs', 1, { involvedObject: { kind: 'TemporalWorkerDeployment', name: 'other' } }),
  event('GateFailed', 30, { type: 'Warning' }),
];

const view = statusView({ workerDeployment, deployments, ownedResources, events });

test('the view: builds from the target down, with their Deployments per pool, gates, analysis, workflows and owned copies', () => {
  assert.deepEqual(
    view.builds.map((b) => [b.buildID, b.roles, b.status]),
    [
      ['v3', ['target'], 'Ramping'],
      ['v2', ['current'], 'Current'],
      ['v1', ['deprecated'], 'Draining'],
      ['v0', ['deprecated'], 'Drained'],
    ],
  );
  const [v3, v2, v1, v0] = view.builds;
  assert.deepEqual(v3?.deployments, [
    { name: 'orders-spot-v3', pool: 'spot', ready: 3 },
    { name: 'orders-v3', ready: 1, desired: 2 },
  ]);
  assert.equal(v3?.createdAt, ago(120), 'the oldest Deployment of the build');
  assert.equal(v3?.rampPercentage, 25);
  assert.deepEqual(v3?.gates, [{ stage: 'step-1', status: 'Completed', workflowID: 'gate-v3-1' }]);
  assert.deepEqual(v3?.analysis, { step: 1, verdict: 'Pending', message: '3 of 10 closed' });
  assert.deepEqual(v3?.ownedResources, [
    {
      ownedResource: 'hpa',
      kind: 'HorizontalPodAutoscaler',
      name: 'orders-hpa-v3',
      applied: false,
      message: 'forbidden',
    },
  ]);
  assert.equal(v2?.ownedResources[0]?.applied, true);
  assert.deepEqual([v1?.runningWorkflows, v1?.countedAt], [7, ago(30)]);
  assert.deepEqual(
    view.builds.map((b) => b.pollers),
    [4, 1, 0, undefined],
    'the workers Temporal saw, where the status says',
  );
  assert.deepEqual([v0?.drainedSince, v0?.deployments], [ago(7200), []]);
  assert.deepEqual([view.strategy, view.steps, view.generation, view.observedGeneration], ['Progressive', [25], 4, 4]);
});

test("the view: each build's phases from its first Deployment, as far as the status says", () => {
  assert.deepEqual(
    view.builds.map((b) => [b.buildID, b.phases]),
    [
      [
        'v3',
        [
          { state: 'Waiting', from: ago(120) },
          { state: 'Ramping', from: ago(60), percentage: 25 },
        ],
      ],
      [
        'v2',
        [
          { state: 'RollingOut', from: ago(86_400) },
          { state: 'Current', from: ago(3600) },
        ],
      ],
      [
        'v1',
        [
          { state: 'Active', from: ago(3 * 86_400) },
          { state: 'Draining', from: ago(3000) },
        ],
      ],
      ['v0', [{ state: 'Drained', from: ago(7200) }]],
    ],
  );
});

test('the view: the five newest events of this worker deployment, newest first', () => {
  assert.deepEqual(
    view.events.map((e) => [e.reason, e.type, e.count]),
    [
      ['GateFailed', 'Warning', 1],
      ['RampChanged', 'Normal', 2],
      ['GatePassed', 'Normal', 1],
      ['Old1', 'Normal', 1],
      ['Old2', 'Normal', 1],
    ],
  );
});

test('a Deployment the status does not name yet is shown as a build of its own', () => {
  const fresh = statusView({
    workerDeployment: { ...workerDeployment, status: {} },
    deployments: [deployment('orders-v4', 'v4', 5, 0, 1)],
    ownedResources: [],
    events: [],
  });
  assert.deepEqual(
    fresh.builds.map((b) => [b.buildID, b.status, b.deployments.length]),
    [['v4', 'NotRegistered', 1]],
  );
});

test('the tree without colour: one line per build, its details under it, the conditions and events after', () => {
  const text = renderStatus([view], { color: false, now });
  assert.equal(
    text,
    [
      'shop/orders  Progressive 25% → 100%  generation 4',
      '├── ◐ v3  Ramping 25%  target  2m  4 pollers seen',
      '│     Deployment orders-spot-v3 (pool spot)  3 ready (autoscaled)',
      '│     Deployment orders-v3  1/2 ready',
      '│     gate step-1  ✔ Completed  gate-v3-1',
      '│     analysis of step 1  Pending  3 of 10 closed',
      '│     HorizontalPodAutoscaler orders-hpa-v3  ✖ forbidden',
      '├── ● v2  Current  24h  1 poller seen',
      '│     Deployment orders-v2  2/2 ready',
      '│     HorizontalPodAutoscaler orders-hpa-v2  ✔ applied',
      '├── ◌ v1  Draining  3d  0 pollers seen  7 workflows running',
      '│     Deployment orders-v1  1/1 ready',
      '└── ○ v0  Drained  drained 2h ago',
      'Conditions',
      '  · Ready=False  Ramping  v3 ramps at 25%',
      '  ↻ Progressing=True  Ramping  step 1 of 1',
      'Events',
      '  30s ago  GateFailed  GateFailed happened',
      '  60s ago  RampChanged (x2)  RampChanged happened',
      '  90s ago  GatePassed  GatePassed happened',
      '  15m ago  Old1  Old1 happened',
      '  16m ago  Old2  Old2 happened',
      '',
    ].join('\n'),
  );
  assert.equal(text.includes(ESC), false, 'no escape sequence when piped');
});

test('on a terminal: states and verdicts in colour; a generation not yet observed is said', () => {
  const text = renderStatus([{ ...view, observedGeneration: 3 }], { color: true, now });
  assert.ok(text.includes(`${ESC}[32m● v2${ESC}[0m`), 'Current in green');
  assert.ok(text.includes(`${ESC}[31mGateFailed${ESC}[0m`), 'a Warning in red');
  assert.ok(
    text.includes(`${ESC}[33m0 pollers seen${ESC}[0m`),
    'ready Pods that Temporal has not seen poll, in yellow',
  );
  assert.ok(text.includes('  1 poller seen'));
  assert.ok(text.includes(`generation 4, ${ESC}[33mobserved 3${ESC}[0m`));
  const stalled = renderStatus(
    [
      {
        ...view,
        builds: [],
        events: [],
        conditions: [
          { type: 'Ready', status: 'True', reason: 'TargetCurrent', message: 'm' },
          { type: 'Stalled', status: 'True', reason: 'GateFailed', message: 'm' },
          { type: 'Degraded', status: 'True', reason: 'NoPollers', message: 'm' },
        ],
      },
    ],
    { color: false, now },
  );
  assert.match(stalled, /✔ Ready=True {2}TargetCurrent/);
  assert.match(stalled, /✖ Stalled=True {2}GateFailed/);
  assert.match(stalled, /! Degraded=True {2}NoPollers/);
  assert.equal(renderStatus([], { color: true, now }), 'No worker deployment found.\n');
});

test('ages: seconds, minutes, hours, days', () => {
  assert.deepEqual(
    [5, 119, 120, 7199, 7200, 172_799, 172_800].map((s) => age(ago(s), now)),
    ['5s', '119s', '2m', '119m', '2h', '47h', '2d'],
  );
});
