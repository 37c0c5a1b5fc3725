// Every rule about creating, scaling and deleting builds, as a table, on a fixed clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  planVersions,
  REGISTRATION_GRACE_MS,
  type VersionAction,
  type VersionState,
  type VersionsInput,
} from '../../src/planner/versions.ts';

const now = new Date('2026-11-22T12:00:00Z');
const ago = (minutes: number): Date => new Date(now.getTime() - minutes * 60_000);
const HOUR = 60;

function version(buildId: string, status: VersionState['status'], extra: Partial<VersionState> = {}): VersionState {
  return { buildId, status, everActive: false, deployments: [{ name: `w-${buildId}`, replicas: 2 }], ...extra };
}

function input(versions: VersionState[], changes: Partial<VersionsInput> = {}): VersionsInput {
  return {
    now,
    targetBuildId: 'v3',
    currentBuildId: 'v3',
    replicas: 2,
    sunset: { scaledownDelay: '1h', deleteDelay: '24h' },
    versions,
    temporalKnowsDeployment: true,
    maxIneligibleVersions: 75,
    maxVersionsInDeployment: 100,
    ...changes,
  };
}

const current = version('v3', 'Current', { everActive: true });
/** Each action as a short line, to compare without the reasons. */
const short = (actions: VersionAction[]): string[] =>
  actions.map((a) =>
    'deployment' in a
      ? `${a.action} ${a.deployment}${'replicas' in a ? ` ${a.replicas}` : ''}`
      : `${a.action} ${a.buildId}${'pool' in a ? ` ${a.pool}` : ''}`,
  );
const pools = [{ name: 'a' }, { name: 'b', replicas: 1 }];
const pooled = (
  buildId: string,
  status: VersionState['status'],
  replicas: [number, number],
  extra: Partial<VersionState> = {},
): VersionState =>
  version(buildId, status, {
    deployments: [
      { name: `w-a-${buildId}`, pool: 'a', replicas: replicas[0] },
      { name: `w-b-${buildId}`, pool: 'b', replicas: replicas[1] },
    ],
    ...extra,
  });

const cases: [string, VersionsInput, string[]][] = [
  ['a steady worker deployment needs nothing', input([current]), []],
  ['a new target gets its Deployment', input([current], { targetBuildId: 'v4' }), ['create v4']],
  [
    'the current build follows spec.replicas',
    input([{ ...current, deployments: [{ name: 'w-v3', replicas: 5 }] }]),
    ['scale w-v3 2'],
  ],
  [
    'without spec.replicas the autoscaler owns the count',
    input([{ ...current, deployments: [{ name: 'w-v3', replicas: 7 }] }], { replicas: undefined }),
    [],
  ],
  [
    'without spec.replicas a target at 0 is held at 1',
    input([current, version('v4', 'Inactive', { deployments: [{ name: 'w-v4', replicas: 0 }] })], {
      targetBuildId: 'v4',
      replicas: undefined,
    }),
    ['scale w-v4 1'],
  ],
  ['a draining build keeps its Pods', input([current, version('v2', 'Draining', { everActive: true })]), []],
  [
    'a draining build at 0 is scaled back up',
    input([current, version('v2', 'Draining', { everActive: true, deployments: [{ name: 'w-v2', replicas: 0 }] })]),
    ['scale w-v2 2'],
  ],
  [
    "pools: a draining build at 0 gets back each pool's count",
    input(
      [pooled('v3', 'Current', [2, 1], { everActive: true }), pooled('v2', 'Draining', [0, 0], { everActive: true })],
      { pools },
    ),
    ['scale w-a-v2 2', 'scale w-b-v2 1'],
  ],
  [
    'a draining build at 0 under spec.replicas 0 still gets 1: pinned workflows need a worker',
    input(
      [
        { ...current, deployments: [{ name: 'w-v3', replicas: 0 }] },
        version('v2', 'Draining', { everActive: true, deployments: [{ name: 'w-v2', replicas: 0 }] }),
      ],
      { replicas: 0 },
    ),
    ['scale w-v2 1'],
  ],
  [
    'a formerly active build with unknown drainage is never at 0',
    input([current, version('v2', 'Inactive', { everActive: true, deployments: [{ name: 'w-v2', replicas: 0 }] })]),
    ['scale w-v2 2'],
  ],
  [
    'a formerly active build with unknown drainage is not scaled down',
    input([current, version('v2', 'Inactive', { everActive: true })]),
    [],
  ],
  [
    'a build superseded before it took traffic goes to 0',
    input([current, version('v2', 'Inactive')]),
    ['scale w-v2 0'],
  ],
  [
    'drained less than scaledownDelay ago: kept',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(59) })]),
    [],
  ],
  [
    'drained longer than scaledownDelay: scaled to 0',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(61) })]),
    ['scale w-v2 0'],
  ],
  [
    'drained past both delays and at 0: deleted',
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(25 * HOUR + 1),
        deployments: [{ name: 'w-v2', replicas: 0 }],
      }),
    ]),
    ['delete w-v2'],
  ],
  [
    'drained past both delays but not yet at 0: scaled first',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(25 * HOUR + 1) })]),
    ['scale w-v2 0'],
  ],
  [
    'a drained build whose Deployment is gone loses its Temporal record',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(30 * HOUR), deployments: [] })]),
    ['deleteTemporalVersion v2'],
  ],
  [
    'a superseded build Temporal does not list is deleted',
    input([current, version('v2', 'NotRegistered')]),
    ['delete w-v2'],
  ],
  [
    'before Temporal lists the deployment at all, nothing is deleted',
    input([version('v3', 'NotRegistered'), version('v2', 'NotRegistered')], {
      currentBuildId: undefined,
      temporalKnowsDeployment: false,
    }),
    [],
  ],
  [
    'a ramping old build keeps spec.replicas while a new target waits',
    input([current, version('v4', 'Ramping', { everActive: true, deployments: [{ name: 'w-v4', replicas: 1 }] })], {
      targetBuildId: 'v5',
    }),
    ['create v5', 'scale w-v4 2'],
  ],
  [
    'pools: every Deployment of a build is scaled together',
    input([
      current,
      version('v2', 'Inactive', {
        deployments: [
          { name: 'w-a-v2', replicas: 2 },
          { name: 'w-b-v2', replicas: 1 },
        ],
      }),
    ]),
    ['scale w-a-v2 0', 'scale w-b-v2 0'],
  ],
  [
    'pools: a build is deleted only when all its Deployments are at 0',
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(26 * HOUR),
        deployments: [
          { name: 'w-a-v2', replicas: 0 },
          { name: 'w-b-v2', replicas: 1 },
        ],
      }),
    ]),
    ['scale w-b-v2 0'],
  ],
  [
    'pools: a new target gets one Deployment per pool',
    input([pooled('v3', 'Current', [2, 1], { everActive: true })], { targetBuildId: 'v4', pools }),
    ['create v4 a', 'create v4 b'],
  ],
  [
    'pools: a pool added to the spec gets its Deployment of the target',
    input([version('v3', 'Current', { everActive: true, deployments: [{ name: 'w-a-v3', pool: 'a', replicas: 2 }] })], {
      pools,
    }),
    ['create v3 b'],
  ],
  [
    'pools: each pool follows its own replicas, else spec.replicas',
    input([pooled('v3', 'Current', [5, 5], { everActive: true })], { pools }),
    ['scale w-a-v3 2', 'scale w-b-v3 1'],
  ],
  [
    'pools: a pool removed from the spec keeps its Deployment while its build is active',
    input([pooled('v3', 'Current', [2, 7], { everActive: true })], { pools: [{ name: 'a' }] }),
    [],
  ],
  [
    'pools: at the version limit no pool of the new build is created',
    input(
      [pooled('v3', 'Current', [2, 1], { everActive: true }), pooled('v2', 'Draining', [2, 1], { everActive: true })],
      { targetBuildId: 'v4', pools, maxIneligibleVersions: 1 },
    ),
    ['blocked v4'],
  ],
  [
    'a drifted Deployment is rolled in place',
    input([{ ...current, deployments: [{ name: 'w-v3', replicas: 2, drift: 'the TemporalConnection changed' }] }]),
    ['update w-v3'],
  ],
  [
    'a drifted draining build is rolled too: its workers must still reach Temporal',
    input([
      current,
      version('v2', 'Draining', {
        everActive: true,
        deployments: [{ name: 'w-v2', replicas: 2, drift: 'the TemporalConnection changed' }],
      }),
    ]),
    ['update w-v2'],
  ],
  [
    'a drifted build about to be deleted is only deleted',
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(26 * HOUR),
        deployments: [{ name: 'w-v2', replicas: 0, drift: 'the TemporalConnection changed' }],
      }),
    ]),
    ['delete w-v2'],
  ],
  [
    'at the version limit no new build is created',
    input([current, version('v1', 'Draining', { everActive: true }), version('v2', 'Draining', { everActive: true })], {
      targetBuildId: 'v4',
      maxIneligibleVersions: 3,
    }),
    ['blocked v4'],
  ],
  [
    'drained and scaled-down builds do not count against the limit',
    input(
      [
        current,
        version('v1', 'Drained', {
          everActive: true,
          drainedSince: ago(2 * HOUR),
          deployments: [{ name: 'w-v1', replicas: 0 }],
        }),
      ],
      { targetBuildId: 'v4', maxIneligibleVersions: 2 },
    ),
    ['create v4'],
  ],
];

for (const [title, given, expected] of cases) {
  test(title, () => {
    const plan = planVersions(given);
    assert.deepEqual(short(plan.actions), expected);
    for (const action of plan.actions) assert.ok(action.reason.length > 0, 'every action carries a reason');
  });
}

test('the plan says when to look again: when the next delay runs out', () => {
  const drainedSince = ago(30);
  const plan = planVersions(input([current, version('v2', 'Drained', { everActive: true, drainedSince })]));
  assert.deepEqual(plan.recheckAt, new Date(drainedSince.getTime() + HOUR * 60_000));
  const scaled = planVersions(
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(2 * HOUR),
        deployments: [{ name: 'w-v2', replicas: 0 }],
      }),
    ]),
  );
  assert.deepEqual(scaled.recheckAt, new Date(now.getTime() - 2 * HOUR * 60_000 + 25 * HOUR * 60_000));
});

test('the version-limit block says what to change', () => {
  const plan = planVersions(
    input([current, version('v2', 'Draining', { everActive: true })], {
      targetBuildId: 'v4',
      maxIneligibleVersions: 2,
    }),
  );
  assert.match(plan.actions[0]?.reason ?? '', /spec\.sunset/);
});

// Temporal at its cap of versions refuses a new build's workers: a target available past the grace
// but unregistered has the record of the longest-drained, scaled-down build deleted, one per plan.
const grace = REGISTRATION_GRACE_MS / 60_000;
const drainedAt0 = (buildId: string, minutesAgo: number, replicas = 0) =>
  version(buildId, 'Drained', {
    everActive: true,
    drainedSince: ago(minutesAgo),
    deployments: [{ name: `w-${buildId}`, replicas }],
  });
const unregistered = (minutesAgo?: number, status: VersionState['status'] = 'NotRegistered') =>
  version('v4', status, minutesAgo === undefined ? {} : { healthySince: ago(minutesAgo) });
/** The server holds as many versions as it may: every one recorded, the current build's included. */
const atCap = (versions: VersionState[], changes: Partial<VersionsInput> = {}) =>
  input([current, ...versions], {
    targetBuildId: 'v4',
    maxVersionsInDeployment: 1 + versions.filter((v) => v.status !== 'NotRegistered').length,
    ...changes,
  });
const capCases: [string, VersionsInput, string[]][] = [
  [
    'unregistered past the grace: the longest-drained scaled-down build makes room',
    atCap([drainedAt0('v1', 10), drainedAt0('v0', 15), unregistered(grace)]),
    ['v0'],
  ],
  [
    'one per plan, even with several eligible',
    atCap([drainedAt0('v0', 15), drainedAt0('v1', 10), drainedAt0('v2', 5), unregistered(grace + 1)]),
    ['v0'],
  ],
  [
    'a drained build that keeps its replicas is not eligible',
    atCap([drainedAt0('v0', 15, 2), drainedAt0('v1', 10), unregistered(grace)]),
    ['v1'],
  ],
  ['within the grace: its workers may not have polled yet', atCap([drainedAt0('v0', 15), unregistered(grace / 2)]), []],
  ['not available: nothing polls yet', atCap([drainedAt0('v0', 15), unregistered()]), []],
  ['registered: nothing to make room for', atCap([drainedAt0('v0', 15), unregistered(grace, 'Inactive')]), []],
  [
    'Temporal does not know the deployment: no cap to reach',
    input([unregistered(grace)], { targetBuildId: 'v4', currentBuildId: undefined, temporalKnowsDeployment: false }),
    [],
  ],
  ['nothing eligible: nothing deleted', atCap([drainedAt0('v0', 15, 2), unregistered(grace)]), []],
  [
    'room made less than the grace ago: its workers are given time to register',
    atCap([drainedAt0('v1', 10), unregistered(grace * 2)], { madeRoomAt: ago(grace / 2) }),
    [],
  ],
  [
    'room made more than the grace ago and still unregistered: the next record goes',
    atCap([drainedAt0('v1', 10), unregistered(grace * 3)], { madeRoomAt: ago(grace + 0.1) }),
    ['v1'],
  ],
  [
    "below the server's cap: the cap is not the cause, nothing deleted",
    atCap([drainedAt0('v0', 15), unregistered(grace)], { maxVersionsInDeployment: 3 }),
    [],
  ],
  [
    'a target the spec gives 0 replicas runs no workers: never proof of the cap',
    atCap([drainedAt0('v0', 15), unregistered(grace * 2)], { replicas: 0 }),
    [],
  ],
  [
    'every pool at 0 replicas: no workers either',
    atCap([drainedAt0('v0', 15), unregistered(grace * 2)], { pools: [{ name: 'a', replicas: 0 }] }),
    [],
  ],
];
for (const [title, given, expected] of capCases) {
  test(`version cap: ${title}`, () =>
    assert.deepEqual(
      planVersions(given).actions.flatMap((a) => (a.action === 'deleteTemporalVersion' ? [a.buildId] : [])),
      expected,
    ));
}

test('version cap: with nothing eligible to make room, the build is blocked and the block says what to change', () => {
  const [blocked] = planVersions(atCap([drainedAt0('v0', 15, 2), unregistered(grace)])).actions.filter(
    (a) => a.action === 'blocked',
  );
  assert.equal(blocked?.action === 'blocked' && blocked.condition, 'BuildNotRegistered');
  assert.match(
    blocked?.reason ?? '',
    /records 2 versions .*its cap of 2 \(matching\.maxVersionsInDeployment\).*spec\.sunset/,
  );
});

const blockedReason = (given: VersionsInput): string | undefined => {
  const blocked = planVersions(given).actions.find((a) => a.action === 'blocked');
  return blocked?.action === 'blocked' ? `${blocked.condition}: ${blocked.reason}` : undefined;
};

test('version cap: below the cap, the block says what Temporal records and that the workers are to check', () => {
  assert.match(
    blockedReason(atCap([drainedAt0('v0', 15), unregistered(grace)], { maxVersionsInDeployment: 3 })) ?? '',
    /^BuildNotRegistered: .*records 2 versions .*below its cap of 3.*workers are misconfigured/,
  );
});

test('version cap: a target at 0 replicas is blocked at once, saying it runs no workers', () => {
  assert.match(
    blockedReason(atCap([drainedAt0('v0', 15), unregistered(0)], { replicas: 0 })) ?? '',
    /^BuildNotRegistered: build v4 runs no workers .*0 replicas/,
  );
  // Without a count the autoscaler owns it, and the target is held at 1: not blocked.
  assert.equal(blockedReason(atCap([drainedAt0('v0', 15), unregistered(0)], { replicas: undefined })), undefined);
});

test('version cap: making room names the count Temporal records and its cap', () => {
  const room = planVersions(atCap([drainedAt0('v0', 15), unregistered(grace)])).actions.find(
    (a) => a.action === 'deleteTemporalVersion',
  );
  assert.match(room?.reason ?? '', /records 2 versions of this deployment, its cap of 2/);
});

test('version cap: within the grace, the plan asks to look again when it ends', () => {
  const plan = planVersions(
    atCap([drainedAt0('v0', 15), unregistered(0.25)], { sunset: { scaledownDelay: '1h', deleteDelay: '24h' } }),
  );
  assert.deepEqual(plan.recheckAt, new Date(ago(0.25).getTime() + REGISTRATION_GRACE_MS));
});
