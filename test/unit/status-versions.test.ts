import type { V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KINDS } from '../../src/api/kinds.ts';
import { validate } from '../../src/api/validate.ts';
import { observeDeployment } from '../../src/k8s/observed-deployment.ts';
import {
  joinVersions,
  rememberedCurrentTimes,
  versionsStatus,
  withSupersededTimes,
} from '../../src/status/versions.ts';
import type { ObservedDeployment, TemporalDeploymentState } from '../../src/domain/snapshot.ts';

const since = '2026-11-22T10:00:00.000Z';

function deployment(
  name: string,
  buildId: string,
  replicas: number | undefined,
  status: V1Deployment['status'],
  pool?: string,
): V1Deployment {
  return {
    metadata: {
      name,
      generation: 2,
      labels: { 'temporal.io/build-id': buildId, ...(pool ? { 'temporal.io/pool': pool } : {}) },
    },
    spec: { selector: {}, template: {}, ...(replicas === undefined ? {} : { replicas }) },
    status,
  };
}

const availableStatus = (n: number): V1Deployment['status'] => ({
  observedGeneration: 2,
  replicas: n,
  updatedReplicas: n,
  availableReplicas: n,
  conditions: [
    { type: 'Available', status: 'True', lastTransitionTime: new Date(since), reason: 'MinimumReplicasAvailable' },
  ],
});

test('a Deployment is available only when every wanted replica is updated and available', () => {
  assert.deepEqual(observeDeployment(deployment('w-v1', 'v1', 2, availableStatus(2))), {
    name: 'w-v1',
    buildId: 'v1',
    replicas: 2,
    available: true,
    availableSince: new Date(since),
  });
  assert.equal(
    observeDeployment(deployment('w-v1', 'v1', 3, availableStatus(2)))?.available,
    false,
    'one replica short',
  );
  assert.equal(
    observeDeployment(deployment('w-v1', 'v1', 2, { ...availableStatus(2), observedGeneration: 1 }))?.available,
    false,
    'a newer spec not yet seen',
  );
  assert.equal(
    observeDeployment(deployment('w-v1', 'v1', 2, { ...availableStatus(2), replicas: 3 }))?.available,
    false,
    'old replicas still rolling out',
  );
  assert.equal(
    observeDeployment(deployment('w-v1', 'v1', undefined, availableStatus(1)))?.available,
    true,
    'unset replicas means one',
  );
  assert.equal(observeDeployment({ metadata: { name: 'stranger' } }), undefined, 'not ours without a build label');
});

const temporal: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v2',
  rampingBuildId: 'v3',
  rampPercentage: 25,
  rampChangedAt: new Date('2026-11-22T11:00:00Z'),
  versions: [
    { buildId: 'v1', status: 'Drained', everActive: true, drainedSince: new Date('2026-11-22T09:00:00Z') },
    { buildId: 'v2', status: 'Current', everActive: true },
    { buildId: 'v3', status: 'Ramping', everActive: true },
    { buildId: 'v0', status: 'Drained', everActive: true },
  ],
};

test('versions join Kubernetes and Temporal per build', () => {
  const observed = [
    deployment('w-v1', 'v1', 0, availableStatus(0)),
    deployment('w-v2', 'v2', 2, availableStatus(2)),
    deployment('w-v3', 'v3', 2, availableStatus(1)),
  ].map((d) => observeDeployment(d)!);
  const joined = joinVersions(observed, temporal, 'v3');
  assert.deepEqual(
    joined.map((v) => [v.buildId, v.status, v.healthy, v.deployments.length]),
    [
      ['v0', 'Drained', false, 0],
      ['v1', 'Drained', false, 1], // at 0 replicas: available to Kubernetes, but no worker takes what is routed
      ['v2', 'Current', true, 1],
      ['v3', 'Ramping', false, 1],
    ],
  );
  assert.equal(
    joinVersions([], { exists: false, versions: [] }, 'v9')[0]?.status,
    'NotRegistered',
    'a target Temporal has not seen',
  );
});

test('a target build is healthy only when every pool has an available Deployment', () => {
  const pools = ['a', 'b'];
  const poolDeployment = (pool: string, available: number) =>
    observeDeployment(deployment(`w-${pool}-v3`, 'v3', 2, availableStatus(available), pool))!;
  const targetHealthy = (deployments: ReturnType<typeof poolDeployment>[]) =>
    joinVersions(deployments, temporal, 'v3', pools).find((v) => v.buildId === 'v3')?.healthy;
  assert.equal(targetHealthy([poolDeployment('a', 2), poolDeployment('b', 2)]), true, 'both pools available');
  assert.equal(targetHealthy([poolDeployment('a', 2), poolDeployment('b', 1)]), false, 'pool b one replica short');
  assert.equal(targetHealthy([poolDeployment('a', 2)]), false, 'pool b has no Deployment yet');
  assert.equal(
    joinVersions([poolDeployment('a', 2)], temporal, 'v2', pools).find((v) => v.buildId === 'v3')?.healthy,
    true,
    'an old build is judged by the Deployments it still has',
  );
});

test('the status lists target, current and the builds that still have Deployments, in the published schema', () => {
  const observed = [
    deployment('w-v1', 'v1', 0, availableStatus(0)),
    deployment('w-v2', 'v2', 2, availableStatus(2)),
    deployment('w-v3', 'v3', 2, availableStatus(2)),
  ].map((d) => observeDeployment(d)!);
  const status = versionsStatus(joinVersions(observed, temporal, 'v3'), temporal, 'v3');
  assert.deepEqual(status.targetVersion, {
    buildID: 'v3',
    status: 'Ramping',
    healthySince: since,
    deployments: ['w-v3'],
    rampPercentage: 25,
    rampLastModifiedAt: '2026-11-22T11:00:00.000Z',
  });
  assert.deepEqual(status.currentVersion, {
    buildID: 'v2',
    status: 'Current',
    healthySince: since,
    deployments: ['w-v2'],
  });
  assert.deepEqual(status.deprecatedVersions, [
    {
      buildID: 'v1',
      status: 'Drained',
      deployments: ['w-v1'],
      drainedSince: '2026-11-22T09:00:00.000Z',
      eligibleForDeletion: true,
    },
  ]);
  assert.equal(status.versionCount, 4);
  const statusSchema = KINDS.TemporalWorkerDeployment.schema.properties.status;
  assert.deepEqual(validate(statusSchema, status), []);
});

test('with pollers read, every build listed says its workers, 0 where Temporal saw none; unread, none says anything; the times of the timeline', () => {
  const observed = [
    deployment('w-v1', 'v1', 1, availableStatus(1)),
    deployment('w-v2', 'v2', 2, availableStatus(2)),
    deployment('w-v3', 'v3', 2, availableStatus(2)),
  ].map((d) => observeDeployment(d)!);
  const joined = joinVersions(observed, temporal, 'v3');
  const status = versionsStatus(joined, temporal, 'v3', { deactivatedAt: {}, ladder: {}, pollers: { v3: 2, v2: 3 } });
  assert.deepEqual(
    [status.targetVersion, status.currentVersion, ...(status.deprecatedVersions ?? [])].map((v) => [
      v?.buildID,
      v?.pollers,
    ]),
    [
      ['v3', 2],
      ['v2', 3],
      ['v1', 0],
    ],
  );
  assert.deepEqual(validate(KINDS.TemporalWorkerDeployment.schema.properties.status, status), []);
  const timed = versionsStatus(joined, { ...temporal, currentChangedAt: new Date(since) }, 'v3', {
    deactivatedAt: {},
    ladder: {},
    rampHistory: [{ percentage: 25, at: since }],
  });
  assert.deepEqual(
    [timed.targetVersion?.rampHistory, timed.currentVersion?.currentSince],
    [[{ percentage: 25, at: since }], since],
    "the target's ramp as it went, and since when the current build is current",
  );
  const unread = versionsStatus(joined, temporal, 'v3');
  assert.ok(
    [unread.targetVersion, unread.currentVersion, ...(unread.deprecatedVersions ?? [])].every(
      (v) => v?.pollers === undefined,
    ),
  );
});

test('the status remembers when builds stopped being current, for rollbacks (Temporal 1.29 does not say)', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const previous = {
    currentVersion: { buildID: 'v2', status: 'Current' },
    deprecatedVersions: [{ buildID: 'v1', status: 'Drained', lastCurrentTime: '2026-11-22T11:00:00.000Z' }],
  };
  assert.deepEqual(
    rememberedCurrentTimes(previous, 'v2', now),
    { v1: new Date('2026-11-22T11:00:00Z') },
    'what was recorded',
  );
  assert.deepEqual(
    rememberedCurrentTimes(previous, 'v3', now),
    { v1: new Date('2026-11-22T11:00:00Z'), v2: now },
    'the build the status called current stopped being current now',
  );
  assert.deepEqual(rememberedCurrentTimes(undefined, 'v1', now), {}, 'nothing known yet');

  const observed = [
    deployment('w-v1', 'v1', 1, availableStatus(1)),
    deployment('w-v2', 'v2', 1, availableStatus(1)),
  ].map((d) => observeDeployment(d)!);
  const state: TemporalDeploymentState = {
    exists: true,
    versions: [
      { buildId: 'v1', status: 'Drained', everActive: true },
      { buildId: 'v2', status: 'Current', everActive: true },
    ],
    currentBuildId: 'v2',
  };
  const joined = joinVersions(observed, state, 'v1', [undefined], { v1: new Date('2026-11-22T11:00:00Z'), v2: now });
  assert.deepEqual(joined.find((v) => v.buildId === 'v1')?.lastCurrentAt, new Date('2026-11-22T11:00:00Z'));
  const status = versionsStatus(joined, state, 'v1');
  assert.equal(
    status.targetVersion?.lastCurrentTime,
    '2026-11-22T11:00:00.000Z',
    'kept on a build that is not current',
  );
  assert.equal(status.currentVersion?.lastCurrentTime, undefined, 'not on the current build');
});

const at = (time: string) => new Date(`2026-11-22T${time}Z`);
const observed = (name: string, buildId: string, changes: Partial<ObservedDeployment> = {}): ObservedDeployment => ({
  name,
  buildId,
  replicas: 2,
  available: true,
  availableSince: at('10:00:00'),
  ...changes,
});

test('a joined build, whole: its Deployments as the planner sees them, healthy since the last became available', () => {
  const state: TemporalDeploymentState = {
    exists: true,
    versions: [
      { buildId: 'v3', status: 'Ramping', everActive: true },
      {
        buildId: 'v1',
        status: 'Drained',
        everActive: true,
        drainedSince: at('09:00:00'),
        lastCurrentAt: at('08:00:00'),
      },
    ],
    currentBuildId: 'v2',
  };
  const joined = joinVersions(
    [
      observed('w-a-v3', 'v3', { pool: 'a', replicas: undefined, drift: 'the pod template changed' }),
      observed('w-b-v3', 'v3', { pool: 'b', availableSince: at('10:05:00') }),
      observed('w-v9', 'v9', { available: false, availableSince: undefined }),
    ],
    state,
    'v3',
    ['a', 'b'],
    { v9: at('07:00:00') },
  );
  assert.deepEqual(joined, [
    {
      buildId: 'v1',
      status: 'Drained',
      everActive: true,
      deployments: [],
      healthy: false,
      drainedSince: at('09:00:00'),
      lastCurrentAt: at('08:00:00'),
    },
    {
      buildId: 'v3',
      status: 'Ramping',
      everActive: true,
      deployments: [
        { name: 'w-a-v3', pool: 'a', drift: 'the pod template changed' },
        { name: 'w-b-v3', replicas: 2, pool: 'b' },
      ],
      healthy: true,
      healthySince: at('10:05:00'),
    },
    {
      buildId: 'v9',
      status: 'NotRegistered',
      everActive: false,
      deployments: [{ name: 'w-v9', replicas: 2 }],
      healthy: false,
      lastCurrentAt: at('07:00:00'),
    },
  ]);
});

test('without pools, the target needs its Deployment of no pool: one of a pool does not make it healthy', () => {
  const state: TemporalDeploymentState = { exists: false, versions: [] };
  assert.equal(joinVersions([observed('w-a-v3', 'v3', { pool: 'a' })], state, 'v3')[0]?.healthy, false);
  assert.equal(joinVersions([observed('w-v3', 'v3')], state, 'v3')[0]?.healthy, true);
});

test('a build available with no time of becoming so is healthy, without a healthySince', () => {
  const [joined] = joinVersions(
    [observed('w-v3', 'v3', { availableSince: undefined })],
    { exists: false, versions: [] },
    'v3',
  );
  assert.equal(joined?.healthy, true);
  assert.equal(joined && 'healthySince' in joined, false);
});

test("the status remembers the target's last current time, and needs no current version to do so", () => {
  const now = at('12:00:00');
  assert.deepEqual(
    rememberedCurrentTimes(
      {
        targetVersion: { buildID: 'v1', status: 'Inactive', lastCurrentTime: '2026-11-22T11:00:00.000Z' },
        deprecatedVersions: [{ buildID: 'v0', status: 'Drained', lastCurrentTime: '2026-11-22T10:00:00.000Z' }],
      },
      'v2',
      now,
    ),
    { v1: at('11:00:00'), v0: at('10:00:00') },
  );
  assert.deepEqual(rememberedCurrentTimes({}, 'v2', now), {});
});

test('the status of a current target while another build ramps: no ramp on the target, the manager named', () => {
  const state: TemporalDeploymentState = {
    exists: true,
    currentBuildId: 'v3',
    rampingBuildId: 'v4',
    rampPercentage: 5,
    rampChangedAt: at('11:00:00'),
    managerIdentity: 'temporal-worker-controller',
    versions: [
      { buildId: 'v2', status: 'Draining', everActive: true },
      { buildId: 'v3', status: 'Current', everActive: true },
      { buildId: 'v4', status: 'Ramping', everActive: true },
    ],
  };
  const joined = joinVersions(
    [observed('w-v2', 'v2', { replicas: 0 }), observed('w-v3', 'v3'), observed('w-v4', 'v4')],
    state,
    'v3',
  );
  assert.deepEqual(versionsStatus(joined, state, 'v3'), {
    targetVersion: { buildID: 'v3', status: 'Current', healthySince: since, deployments: ['w-v3'] },
    currentVersion: { buildID: 'v3', status: 'Current', healthySince: since, deployments: ['w-v3'] },
    deprecatedVersions: [
      { buildID: 'v2', status: 'Draining', deployments: ['w-v2'], eligibleForDeletion: false },
      { buildID: 'v4', status: 'Ramping', healthySince: since, deployments: ['w-v4'], eligibleForDeletion: false },
    ],
    versionCount: 3,
    managerIdentity: 'temporal-worker-controller',
  });
});

test("the target's health is that of the spec's pools: a Deployment left of a pool the spec dropped, at 0, takes no part", () => {
  const state: TemporalDeploymentState = {
    exists: true,
    versions: [{ buildId: 'v3', status: 'Inactive', everActive: false }],
  };
  const left = [
    observed('w-v3', 'v3', { replicas: 0 }),
    observed('w-a-v3', 'v3', { pool: 'a' }),
    observed('w-b-v3', 'v3', { pool: 'b' }),
  ];
  assert.equal(joinVersions(left, state, 'v3', ['a', 'b'])[0]?.healthy, true);
  const poolAtZero = [observed('w-a-v3', 'v3', { pool: 'a' }), observed('w-b-v3', 'v3', { pool: 'b', replicas: 0 })];
  assert.equal(
    joinVersions(poolAtZero, state, 'v3', ['a', 'b'])[0]?.healthy,
    false,
    'a pool of the spec at 0: its queue has no worker',
  );
});

test('a build that never took traffic and is no longer the target is superseded since the status says, else since now, and the status says so', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const observed = (name: string, buildId: string): ObservedDeployment => ({
    name,
    buildId,
    replicas: 0,
    available: true,
  });
  const temporal: TemporalDeploymentState = {
    exists: true,
    currentBuildId: 'v1',
    versions: [
      { buildId: 'v1', status: 'Current', everActive: true },
      { buildId: 'v2', status: 'Inactive', everActive: false },
      { buildId: 'v3', status: 'Inactive', everActive: false },
      { buildId: 'v4', status: 'Inactive', everActive: true },
      { buildId: 'v5', status: 'Inactive', everActive: false },
    ],
  };
  const joined = joinVersions(
    ['v1', 'v2', 'v3', 'v4', 'v5'].map((b) => observed(`w-${b}`, b)),
    temporal,
    'v5',
  );
  const previous = { deprecatedVersions: [{ buildID: 'v2', status: 'Inactive', supersededAt: since }] };
  const timed = withSupersededTimes(joined, previous, 'v5', now);
  assert.deepEqual(
    Object.fromEntries(timed.map((v) => [v.buildId, v.supersededAt?.toISOString()])),
    { v1: undefined, v2: since, v3: now.toISOString(), v4: undefined, v5: undefined },
    'v1 current, v4 took traffic once, v5 the target',
  );
  const written = versionsStatus(timed, temporal, 'v5').deprecatedVersions ?? [];
  assert.deepEqual(
    written.map((v) => [v.buildID, v.supersededAt]),
    [
      ['v2', since],
      ['v3', now.toISOString()],
      ['v4', undefined],
    ],
  );
});
