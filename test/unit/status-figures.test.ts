// The gauges of a worker deployment's status that the chart's alerts and dashboard read: made from
// the status the reconcile leaves (status/figures.ts), set where the status is written
// (controller/status-writer.ts) and replaced each time, so an old reason, a build gone or a ramp
// ended leaves no series behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { writeStatus } from '../../src/controller/status-writer.ts';
import type { ClusterClient } from '../../src/k8s/cluster-client.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { statusFigures } from '../../src/status/figures.ts';

type Status = NonNullable<TemporalWorkerDeployment['status']>;

const LIMITS = { maxVersionsInDeployment: 100, maxIneligibleVersions: 75 };
const AT = '2026-01-01T00:00:00Z';
const condition = (type: string, status: 'True' | 'False', reason: string) => ({
  type,
  status,
  reason,
  message: reason,
  lastTransitionTime: AT,
});

/** A rollout of v3 at 25% over v2, with v1 draining (laddered to Cancel) and v0 superseded before it took traffic. */
const rolling: Status = {
  targetVersion: { buildID: 'v3', status: 'Ramping', rampPercentage: 25 },
  currentVersion: { buildID: 'v2', status: 'Current' },
  deprecatedVersions: [
    { buildID: 'v1', status: 'Draining', pinnedWorkflows: { running: 4, step: 'Cancel' } },
    { buildID: 'v0', status: 'Inactive', supersededAt: AT },
    { buildID: 'vx', status: 'Drained', eligibleForDeletion: true },
  ],
  versionCount: 4,
  conditions: [
    condition('Ready', 'False', 'RollingOut'),
    condition('Progressing', 'True', 'RollingOut'),
    condition('Stalled', 'False', 'RollingOut'),
  ],
};

test("the figures of a status: its conditions, builds per state, the target's ramp, versions against their limits, ladder steps", () => {
  assert.deepEqual(statusFigures(rolling, LIMITS), {
    conditions: [
      { type: 'Ready', reason: 'RollingOut', true: false },
      { type: 'Progressing', reason: 'RollingOut', true: true },
      { type: 'Stalled', reason: 'RollingOut', true: false },
    ],
    builds: { NotRegistered: 0, Inactive: 1, Ramping: 1, Current: 1, Draining: 1, Drained: 1 },
    ramp: { buildId: 'v3', percentage: 25 },
    versions: [
      { counted: 'temporal', count: 4, limit: 100 },
      // v2 (current, not the target) and v1: v0 never took traffic, vx may go.
      { counted: 'ineligible', count: 2, limit: 75 },
    ],
    ladder: [{ buildId: 'v1', step: 'Cancel' }],
  });
});

test('a target that is current is one build with no ramp; without a versionCount no Temporal count is said', () => {
  const figures = statusFigures(
    {
      targetVersion: { buildID: 'v2', status: 'Current' },
      currentVersion: { buildID: 'v2', status: 'Current' },
      conditions: [condition('Ready', 'True', 'TargetCurrent')],
    },
    LIMITS,
  );
  assert.equal(figures.builds.Current, 1);
  assert.equal(figures.ramp, undefined);
  assert.deepEqual(figures.versions, [{ counted: 'ineligible', count: 0, limit: 75 }], 'no versionCount: not said');
});

/** Value of one sample in the registry's exposition; undefined when it has no such series. */
async function value(registry: Registry, sample: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

test('the gauges of a worker deployment are replaced as its status changes, and gone with it', async () => {
  const registry = new Registry();
  const metrics = new Metrics(registry);
  const owner = 'namespace="shop",worker_deployment="orders"';
  metrics.setStatusFigures('shop', 'orders', statusFigures(rolling, LIMITS));
  metrics.setStatusFigures('shop', 'billing', statusFigures(rolling, LIMITS));
  const expected: [string, number][] = [
    [`twc_worker_deployment_condition{${owner},type="Progressing",reason="RollingOut"}`, 1],
    [`twc_worker_deployment_condition{${owner},type="Stalled",reason="RollingOut"}`, 0],
    [`twc_worker_deployment_builds{${owner},state="Draining"}`, 1],
    [`twc_worker_deployment_builds{${owner},state="NotRegistered"}`, 0],
    [`twc_worker_deployment_ramp_percentage{${owner},build_id="v3"}`, 25],
    [`twc_worker_deployment_versions{${owner},counted="temporal"}`, 4],
    [`twc_worker_deployment_versions_limit{${owner},counted="ineligible"}`, 75],
    [`twc_pinned_workflows_ladder_step{${owner},build_id="v1",step="Cancel"}`, 1],
  ];
  for (const [sample, count] of expected) assert.equal(await value(registry, sample), count, sample);

  const stalled: Status = {
    ...rolling,
    targetVersion: { buildID: 'v3', status: 'Inactive' },
    conditions: [
      condition('Ready', 'False', 'GateFailed'),
      condition('Progressing', 'False', 'GateFailed'),
      condition('Stalled', 'True', 'GateFailed'),
    ],
  };
  metrics.setStatusFigures('shop', 'orders', statusFigures(stalled, LIMITS));
  assert.equal(
    await value(registry, `twc_worker_deployment_condition{${owner},type="Stalled",reason="GateFailed"}`),
    1,
  );
  assert.equal(
    await value(registry, `twc_worker_deployment_condition{${owner},type="Stalled",reason="RollingOut"}`),
    undefined,
    'the old reason has no series',
  );
  assert.equal(
    await value(registry, `twc_worker_deployment_ramp_percentage{${owner},build_id="v3"}`),
    undefined,
    'a ramp ended',
  );

  metrics.setStatusFigures('shop', 'orders', undefined);
  assert.doesNotMatch(await registry.metrics(), /worker_deployment="orders"/, 'deleted: no series left');
  assert.match(await registry.metrics(), /worker_deployment="billing"/, 'another worker deployment keeps its own');
});

test('the status writer says the status it leaves, written or not, and not one a conflict refused', async () => {
  const said: (Status | undefined)[] = [];
  const server: { answer?: 'conflict' } = {};
  const cluster = {
    replaceStatus: (object: TemporalWorkerDeployment) => Promise.resolve(server.answer ?? object),
  } as unknown as ClusterClient;
  const deps = {
    cluster,
    recordEvent: () => Promise.resolve(),
    now: () => new Date(AT),
    wroteStatus: () => {},
    statusSaid: (_namespace: string, _name: string, status: Status | undefined) => said.push(status),
  };
  const stored: TemporalWorkerDeployment = {
    metadata: { namespace: 'shop', name: 'orders', generation: 1, resourceVersion: '1' },
    spec: { workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'default' } },
  } as unknown as TemporalWorkerDeployment;
  const ready = [{ type: 'Ready', status: 'True' as const, reason: 'TargetCurrent', message: 'current' }];
  await writeStatus(deps, stored, {}, ready);
  assert.equal(said.length, 1);
  assert.equal(said[0]?.conditions?.find((c) => c.type === 'Ready')?.reason, 'TargetCurrent');
  await writeStatus(deps, { ...stored, status: said[0] }, {}, ready);
  assert.equal(said.length, 2, 'said again when nothing changed: a restarted controller has its gauges');
  server.answer = 'conflict';
  await writeStatus(deps, stored, {}, [{ type: 'Stalled', status: 'True', reason: 'InvalidSpec', message: 'x' }]);
  assert.equal(said.length, 2, 'refused: not said');
});
