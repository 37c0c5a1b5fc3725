// Every rule about creating, scaling and deleting builds, as a table, on a fixed clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  planVersions,
  REGISTRATION_GRACE_MS,
  REGISTRATION_RECHECK_MS,
  sunsetDue,
  unusedBuildCountDue,
  type VersionAction,
  type VersionsInput,
} from '../../src/planner/versions.ts';
import type { VersionState } from '../../src/domain/versions.ts';

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
    sunset: { scaledownDelay: '1h', deleteDelay: '24h', unusedBuildDeleteDelay: '1h' },
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
    'drained longer than scaledownDelay, visibility counting none: scaled to 0',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(61) })], {
      pinnedRunning: { v2: 0 },
    }),
    ['scale w-v2 0'],
  ],
  [
    'drained longer than scaledownDelay, but visibility counts a pinned workflow running: kept',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(61) })], {
      pinnedRunning: { v2: 1 },
    }),
    [],
  ],
  [
    'drained past both delays, visibility counting none, but a round of moves is under way on it: kept until the round ends',
    input(
      [
        current,
        version('v2', 'Drained', {
          everActive: true,
          drainedSince: ago(25 * HOUR),
          deployments: [{ name: 'w-v2', replicas: 2 }],
        }),
        version('v1', 'Drained', {
          everActive: true,
          drainedSince: ago(25 * HOUR),
          deployments: [{ name: 'w-v1', replicas: 0 }],
        }),
        version('v0', 'Inactive', { supersededAt: ago(2 * HOUR) }),
      ],
      { pinnedRunning: { v2: 0, v1: 0, v0: 0 }, moving: new Set(['v2', 'v1', 'v0']) },
    ),
    [],
  ],
  [
    'drained and already at 0, but visibility counts a pinned workflow running: scaled back up',
    input(
      [
        current,
        version('v2', 'Drained', {
          everActive: true,
          drainedSince: ago(25 * HOUR + 1),
          deployments: [{ name: 'w-v2', replicas: 0 }],
        }),
      ],
      { pinnedRunning: { v2: 2 } },
    ),
    ['scale w-v2 2'],
  ],
  [
    'drained longer than scaledownDelay, its count not read: nothing yet',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(61) })], { pinnedRunning: {} }),
    [],
  ],
  [
    'drained less than scaledownDelay ago, its count not read: nothing due, nothing needed',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(59) })], { pinnedRunning: {} }),
    [],
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

test('a worker deployment Temporal does not list at all: the block names the namespace cap of worker deployments too', () => {
  const reason = blockedReason(
    input([unregistered(grace)], { targetBuildId: 'v4', currentBuildId: undefined, temporalKnowsDeployment: false }),
  );
  assert.match(reason ?? '', /^BuildNotRegistered: build v4 has run for \d+s .*does not list its worker deployment/);
  assert.match(reason ?? '', /matching\.maxDeployments, 100 by default.*reached maximum deployments in namespace/);
});

test('version cap: a target at 0 replicas is blocked at once, saying it runs no workers', () => {
  assert.match(
    blockedReason(atCap([drainedAt0('v0', 15), unregistered(0)], { replicas: 0 })) ?? '',
    /^BuildNotRegistered: build v4 runs no workers .*0 replicas/,
  );
  // At 0 replicas it is never available to route to: blocked all the same.
  const atZero = unregistered();
  assert.match(
    blockedReason(atCap([drainedAt0('v0', 15), atZero], { replicas: 0 })) ?? '',
    /^BuildNotRegistered: build v4 runs no workers/,
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

test('within the grace, a target available but not listed is looked at again soon, and no later than the grace ends', () => {
  const sunset = { scaledownDelay: '1h', deleteDelay: '24h', unusedBuildDeleteDelay: '1h' };
  const soon = planVersions(atCap([drainedAt0('v0', 15), unregistered(0.25)], { sunset }));
  assert.deepEqual(soon.recheckAt, new Date(now.getTime() + REGISTRATION_RECHECK_MS));
  const graceEnding = planVersions(atCap([drainedAt0('v0', 15), unregistered(0.49)], { sunset }));
  assert.deepEqual(graceEnding.recheckAt, new Date(ago(0.49).getTime() + REGISTRATION_GRACE_MS));
});

// Each rule again, at its edges: which build counts as active, which record goes with its
// Deployments, which drifted Deployment is rolled, and the limit that holds a new build back.
const drift = 'the TemporalConnection changed';
const edgeCases: [string, VersionsInput, string[]][] = [
  [
    'a target that has its Deployment is never held back by the version limit',
    input([current, version('v2', 'Draining', { everActive: true })], { maxIneligibleVersions: 1 }),
    [],
  ],
  [
    'a target Temporal lists but whose Deployment is gone is held to the version limit',
    input([current, version('v2', 'Draining', { everActive: true }), version('v4', 'Inactive', { deployments: [] })], {
      targetBuildId: 'v4',
      maxIneligibleVersions: 2,
    }),
    ['blocked v4'],
  ],
  [
    'the target itself does not count against the version limit',
    input([current, version('v2', 'Draining', { everActive: true }), version('v4', 'Inactive', { deployments: [] })], {
      targetBuildId: 'v4',
      maxIneligibleVersions: 3,
    }),
    ['create v4'],
  ],
  [
    'a build that never took traffic does not count against the limit: it goes by itself (spec.sunset.unusedBuildDeleteDelay)',
    input([current, version('v2', 'Inactive', { deployments: [{ name: 'w-v2', replicas: 0 }] })], {
      targetBuildId: 'v4',
      maxIneligibleVersions: 2,
    }),
    ['create v4'],
  ],
  [
    'pools: a drained build with one pool still up counts against the limit',
    input(
      [
        current,
        version('v1', 'Drained', {
          everActive: true,
          drainedSince: ago(2 * HOUR),
          deployments: [
            { name: 'w-a-v1', replicas: 0 },
            { name: 'w-b-v1', replicas: 1 },
          ],
        }),
      ],
      { targetBuildId: 'v4', maxIneligibleVersions: 2 },
    ),
    ['blocked v4', 'scale w-b-v1 0'],
  ],
  [
    'the build Temporal routes to is kept at spec.replicas, whatever its version status says',
    input([version('v3', 'Inactive', { everActive: true, deployments: [{ name: 'w-v3', replicas: 5 }] })], {
      targetBuildId: 'v4',
    }),
    ['create v4', 'scale w-v3 2'],
  ],
  [
    'a build Temporal calls Current is kept at spec.replicas even when no current build is given',
    input([version('v3', 'Current', { everActive: true, deployments: [{ name: 'w-v3', replicas: 5 }] })], {
      targetBuildId: 'v4',
      currentBuildId: undefined,
    }),
    ['create v4', 'scale w-v3 2'],
  ],
  [
    'a draining build whose Deployments are gone keeps its Temporal record: pinned workflows still run on it',
    input([current, version('v2', 'Draining', { everActive: true, deployments: [] })]),
    [],
  ],
  [
    'a build superseded before it took traffic, its Deployments gone, loses its Temporal record',
    input([current, version('v2', 'Inactive', { deployments: [] })]),
    ['deleteTemporalVersion v2'],
  ],
  [
    'a formerly active build with unknown drainage and no Deployment keeps its Temporal record',
    input([current, version('v2', 'Inactive', { everActive: true, deployments: [] })]),
    [],
  ],
  [
    'a drained build Temporal gives no drain time is kept as it is, and still rolled in place',
    input([
      current,
      version('v2', 'Drained', { everActive: true, deployments: [{ name: 'w-v2', replicas: 2, drift }] }),
    ]),
    ['update w-v2'],
  ],
  [
    'drained exactly scaledownDelay ago: scaled to 0',
    input([current, version('v2', 'Drained', { everActive: true, drainedSince: ago(HOUR) })]),
    ['scale w-v2 0'],
  ],
  [
    'drained exactly scaledownDelay + deleteDelay ago and at 0: deleted',
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(25 * HOUR),
        deployments: [{ name: 'w-v2', replicas: 0 }],
      }),
    ]),
    ['delete w-v2'],
  ],
  [
    'drifted, drained exactly scaledownDelay + deleteDelay ago and at 0: only deleted',
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(25 * HOUR),
        deployments: [{ name: 'w-v2', replicas: 0, drift }],
      }),
    ]),
    ['delete w-v2'],
  ],
  [
    'drifted, drained and at 0 but not yet past deleteDelay: rolled in place',
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(2 * HOUR),
        deployments: [{ name: 'w-v2', replicas: 0, drift }],
      }),
    ]),
    ['update w-v2'],
  ],
  [
    'drifted, drained past both delays but not at 0: rolled in place and scaled down, not deleted',
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(26 * HOUR),
        deployments: [{ name: 'w-v2', replicas: 2, drift }],
      }),
    ]),
    ['update w-v2', 'scale w-v2 0'],
  ],
  [
    'pools: drifted, drained past both delays with one pool still up: rolled in place, not deleted',
    input([
      current,
      version('v2', 'Drained', {
        everActive: true,
        drainedSince: ago(26 * HOUR),
        deployments: [
          { name: 'w-a-v2', replicas: 0, drift },
          { name: 'w-b-v2', replicas: 1 },
        ],
      }),
    ]),
    ['update w-a-v2', 'scale w-b-v2 0'],
  ],
  [
    'a drifted draining build at 0 is rolled in place and scaled back up',
    input([
      current,
      version('v2', 'Draining', { everActive: true, deployments: [{ name: 'w-v2', replicas: 0, drift }] }),
    ]),
    ['update w-v2', 'scale w-v2 2'],
  ],
  [
    'a drifted build Temporal does not list is only deleted',
    input([current, version('v2', 'NotRegistered', { deployments: [{ name: 'w-v2', replicas: 2, drift }] })]),
    ['delete w-v2'],
  ],
  [
    'a drifted target Temporal does not list yet is rolled in place',
    input([current, version('v4', 'NotRegistered', { deployments: [{ name: 'w-v4', replicas: 2, drift }] })], {
      targetBuildId: 'v4',
    }),
    ['update w-v4'],
  ],
  [
    'pools: a draining build at 0 in a pool removed from the spec gets spec.replicas back',
    input(
      [
        pooled('v3', 'Current', [2, 1], { everActive: true }),
        version('v2', 'Draining', { everActive: true, deployments: [{ name: 'w-c-v2', pool: 'c', replicas: 0 }] }),
      ],
      { pools },
    ),
    ['scale w-c-v2 2'],
  ],
  // The planner's own safety, whatever its input says: the status alone decides what may go.
  [
    'a build Temporal does not list and with no Deployment asks for nothing: there is no record to delete',
    input([current, version('v2', 'NotRegistered', { deployments: [] })]),
    [],
  ],
  [
    'a draining build is never retired, even given a drain time: only Drained counts',
    input([
      current,
      version('v2', 'Draining', {
        everActive: true,
        drainedSince: ago(30 * HOUR),
        deployments: [{ name: 'w-v2', replicas: 0, drift }],
      }),
    ]),
    ['update w-v2', 'scale w-v2 2'],
  ],
  [
    'a draining build is never scaled down, even if Temporal never reported it active: only Inactive builds are',
    input([current, version('v2', 'Draining', { everActive: false })]),
    [],
  ],
];

for (const [title, given, expected] of edgeCases) {
  test(title, () => assert.deepEqual(short(planVersions(given).actions), expected));
}

test('the plan looks again at the earliest delay, whatever the order of the builds', () => {
  const soon = version('v1', 'Drained', { everActive: true, drainedSince: ago(50) });
  const later = version('v2', 'Drained', { everActive: true, drainedSince: ago(10) });
  const inTenMinutes = new Date(now.getTime() + 10 * 60_000);
  assert.deepEqual(planVersions(input([current, soon, later])).recheckAt, inTenMinutes);
  assert.deepEqual(planVersions(input([current, later, soon])).recheckAt, inTenMinutes);
});

test('a plan with no delay running asks for no recheck', () => {
  assert.equal('recheckAt' in planVersions(input([current])), false);
});

// Every action whole, its reason word for word: what the status and the events will say.
const reasonCases: [string, VersionsInput, VersionAction[]][] = [
  [
    'a new target',
    input([current], { targetBuildId: 'v4' }),
    [{ action: 'create', buildId: 'v4', reason: 'build v4 has no Deployment yet' }],
  ],
  [
    'a new target with pools',
    input([pooled('v3', 'Current', [2, 1], { everActive: true })], { targetBuildId: 'v4', pools }),
    [
      { action: 'create', buildId: 'v4', pool: 'a', reason: 'build v4 has no Deployment for pool a yet' },
      { action: 'create', buildId: 'v4', pool: 'b', reason: 'build v4 has no Deployment for pool b yet' },
    ],
  ],
  [
    'the version limit',
    input([current, version('v2', 'Draining', { everActive: true })], {
      targetBuildId: 'v4',
      maxIneligibleVersions: 2,
    }),
    [
      {
        action: 'blocked',
        buildId: 'v4',
        condition: 'VersionLimitReached',
        reason:
          'not creating build v4: 2 older builds took traffic and are not yet drained and scaled down (limit 2): v3, v2; shorten spec.sunset or finish their pinned workflows',
      },
    ],
  ],
  [
    'the current build, by spec.replicas and by its pool',
    input([pooled('v3', 'Current', [5, 5], { everActive: true }), pooled('v4', 'Inactive', [2, 1])], {
      targetBuildId: 'v4',
      pools,
    }),
    [
      {
        action: 'scale',
        deployment: 'w-a-v3',
        buildId: 'v3',
        replicas: 2,
        reason: 'build v3 is current and spec.replicas says 2',
      },
      {
        action: 'scale',
        deployment: 'w-b-v3',
        buildId: 'v3',
        replicas: 1,
        reason: 'build v3 is current and pool b says 1',
      },
    ],
  ],
  [
    'a ramping build and the target',
    input(
      [
        { ...current, deployments: [{ name: 'w-v3', replicas: 2 }] },
        version('v4', 'Ramping', { everActive: true, deployments: [{ name: 'w-v4', replicas: 1 }] }),
        version('v5', 'Inactive', { deployments: [{ name: 'w-v5', replicas: 3 }] }),
      ],
      { targetBuildId: 'v5' },
    ),
    [
      {
        action: 'scale',
        deployment: 'w-v4',
        buildId: 'v4',
        replicas: 2,
        reason: 'build v4 is ramping and spec.replicas says 2',
      },
      {
        action: 'scale',
        deployment: 'w-v5',
        buildId: 'v5',
        replicas: 2,
        reason: 'build v5 is the target and spec.replicas says 2',
      },
    ],
  ],
  [
    'the autoscaler: the current build and the target at 0',
    input(
      [
        { ...current, deployments: [{ name: 'w-v3', replicas: 0 }] },
        version('v4', 'Inactive', { deployments: [{ name: 'w-v4', replicas: 0 }] }),
      ],
      { targetBuildId: 'v4', replicas: undefined },
    ),
    [
      {
        action: 'scale',
        deployment: 'w-v3',
        buildId: 'v3',
        replicas: 1,
        reason: 'build v3 is current and was at 0 replicas: 1 for the autoscaler to start from',
      },
      {
        action: 'scale',
        deployment: 'w-v4',
        buildId: 'v4',
        replicas: 1,
        reason: 'build v4 is the target and was at 0 replicas: 1 for the autoscaler to start from',
      },
    ],
  ],
  [
    'a drifted Deployment',
    input([{ ...current, deployments: [{ name: 'w-v3', replicas: 2, drift }] }]),
    [
      {
        action: 'update',
        deployment: 'w-v3',
        buildId: 'v3',
        reason: 'Deployment w-v3 of build v3 is rolled in place: the TemporalConnection changed',
      },
    ],
  ],
  [
    'a drained build: scaled down, then deleted, then its record',
    input([
      current,
      version('v0', 'Drained', { everActive: true, drainedSince: ago(30 * HOUR), deployments: [] }),
      version('v1', 'Drained', {
        everActive: true,
        drainedSince: ago(25 * HOUR),
        deployments: [{ name: 'w-v1', replicas: 0 }],
      }),
      version('v2', 'Drained', { everActive: true, drainedSince: ago(2 * HOUR) }),
    ]),
    [
      { action: 'deleteTemporalVersion', buildId: 'v0', reason: 'build v0 has no Deployment left' },
      {
        action: 'delete',
        deployment: 'w-v1',
        buildId: 'v1',
        reason: 'build v1 has been drained since 2026-11-21T11:00:00.000Z: past scaledownDelay + deleteDelay',
      },
      {
        action: 'scale',
        deployment: 'w-v2',
        buildId: 'v2',
        replicas: 0,
        reason: 'build v2 has been drained for longer than scaledownDelay (1h)',
      },
    ],
  ],
  [
    'a superseded build Temporal does not list, and one that never took traffic',
    input([current, version('v1', 'NotRegistered'), version('v2', 'Inactive')]),
    [
      {
        action: 'delete',
        deployment: 'w-v1',
        buildId: 'v1',
        reason: 'build v1 is superseded and Temporal does not list it: no workflow can be pinned to it',
      },
      {
        action: 'scale',
        deployment: 'w-v2',
        buildId: 'v2',
        replicas: 0,
        reason: 'build v2 was superseded before it ever took traffic',
      },
    ],
  ],
  [
    'builds that may have pinned workflows, scaled up from 0: draining, and drainage not yet known',
    input([
      current,
      version('v1', 'Draining', { everActive: true, deployments: [{ name: 'w-v1', replicas: 0 }] }),
      version('v2', 'Inactive', { everActive: true, deployments: [{ name: 'w-v2', replicas: 0 }] }),
    ]),
    [
      {
        action: 'scale',
        deployment: 'w-v1',
        buildId: 'v1',
        replicas: 2,
        reason: 'build v1 may still have pinned workflows (draining)',
      },
      {
        action: 'scale',
        deployment: 'w-v2',
        buildId: 'v2',
        replicas: 2,
        reason: 'build v2 may still have pinned workflows (drainage not yet known)',
      },
    ],
  ],
];

for (const [title, given, expected] of reasonCases) {
  test(`every action whole, with its reason: ${title}`, () => assert.deepEqual(planVersions(given).actions, expected));
}

const capEdgeCases: [string, VersionsInput, string[]][] = [
  [
    'one pool at 0 replicas and another with workers: the cap is still the cause',
    atCap([drainedAt0('v0', 15), unregistered(grace * 2)], {
      pools: [
        { name: 'a', replicas: 0 },
        { name: 'b', replicas: 1 },
      ],
    }),
    ['v0'],
  ],
  [
    'room made exactly the grace ago and still unregistered: the next record goes',
    atCap([drainedAt0('v1', 10), unregistered(grace * 3)], { madeRoomAt: ago(grace) }),
    ['v1'],
  ],
  [
    'a drained build whose Deployments are gone loses its record anyway: room is made from another',
    atCap([
      version('v0', 'Drained', { everActive: true, drainedSince: ago(15), deployments: [] }),
      drainedAt0('v1', 10),
      unregistered(grace),
    ]),
    ['v1', 'v0'],
  ],
];
for (const [title, given, expected] of capEdgeCases) {
  test(`version cap: ${title}`, () =>
    assert.deepEqual(
      planVersions(given).actions.flatMap((a) => (a.action === 'deleteTemporalVersion' ? [a.buildId] : [])),
      expected,
    ));
}

test('version cap: making room is one whole action, marked as making room, with its reason word for word', () => {
  assert.deepEqual(planVersions(atCap([drainedAt0('v0', 15), unregistered(grace + 0.5)])).actions, [
    {
      action: 'deleteTemporalVersion',
      makesRoom: true,
      buildId: 'v0',
      reason:
        'build v4 has run for 60s without registering in Temporal and Temporal records 2 versions of this deployment, its cap of 2 (matching.maxVersionsInDeployment): the record of build v0 (drained and scaled down) is deleted to make room',
    },
  ]);
});

test('version cap: room made less than the grace ago, the plan looks again when that grace ends', () => {
  const madeRoomAt = ago(grace / 2);
  const plan = planVersions(atCap([drainedAt0('v1', 10), unregistered(grace * 2)], { madeRoomAt }));
  assert.deepEqual(plan.actions, []);
  assert.deepEqual(plan.recheckAt, new Date(madeRoomAt.getTime() + REGISTRATION_GRACE_MS));
});

test('a drained build is counted before its scale-down or deletion falls due, and only then', () => {
  const sunset = { scaledownDelay: '1h', deleteDelay: '24h' };
  const drained = (minutes: number, replicas: number) =>
    version('v2', 'Drained', {
      everActive: true,
      drainedSince: ago(minutes),
      deployments: [{ name: 'w-v2', replicas }],
    });
  assert.equal(sunsetDue(drained(59, 2), { now, sunset }), false, 'scaledownDelay not yet over');
  assert.equal(sunsetDue(drained(60, 2), { now, sunset }), true, 'scale-down due');
  assert.equal(sunsetDue(drained(60, 0), { now, sunset }), false, 'already at 0, deleteDelay not yet over');
  assert.equal(sunsetDue(drained(25 * HOUR, 0), { now, sunset }), true, 'deletion due');
  assert.equal(sunsetDue({ ...drained(25 * HOUR, 0), deployments: [] }, { now, sunset }), false, 'nothing to delete');
  assert.equal(sunsetDue({ ...drained(120, 2), status: 'Draining' }, { now, sunset }), false, 'not drained');
});

test('a build that never took traffic: counted, then scaled to 0; deleted once spec.sunset.unusedBuildDeleteDelay is over and a count says no workflow is pinned to it', () => {
  const sunset = { scaledownDelay: '1h', deleteDelay: '24h', unusedBuildDeleteDelay: '1h' };
  const unused = (minutes: number, replicas: number) =>
    version('v2', 'Inactive', { supersededAt: ago(minutes), deployments: [{ name: 'w-v2', replicas }] });
  const given = (v: VersionState, pinnedRunning: Record<string, number | undefined>) =>
    planVersions(input([current, v], { pinnedRunning }));

  assert.equal(unusedBuildCountDue(unused(1, 2), { now, sunset }), true, 'before it is scaled to 0');
  assert.equal(unusedBuildCountDue(unused(1, 0), { now, sunset }), false, 'at 0, not yet due');
  assert.equal(unusedBuildCountDue(unused(HOUR, 0), { now, sunset }), true, 'before it is deleted');
  assert.equal(
    unusedBuildCountDue({ ...unused(HOUR, 0), everActive: true }, { now, sunset }),
    false,
    'it took traffic',
  );

  assert.deepEqual(given(unused(1, 2), {}), { actions: [] }, 'not counted yet: nothing done');
  const scaled = given(unused(1, 2), { v2: 0 });
  assert.deepEqual(short(scaled.actions), ['scale w-v2 0']);
  assert.deepEqual(scaled.recheckAt, new Date(ago(1).getTime() + HOUR * 60_000), 'back when the delete is due');
  assert.deepEqual(given(unused(HOUR - 1, 0), {}), { actions: [], recheckAt: ago(-1) });

  assert.deepEqual(given(unused(HOUR, 0), {}), { actions: [] }, 'due, not counted yet: nothing done');
  assert.deepEqual(given(unused(HOUR, 0), { v2: 0 }).actions, [
    {
      action: 'delete',
      deployment: 'w-v2',
      buildId: 'v2',
      reason: `build v2 never took traffic and has not been the target since ${ago(HOUR).toISOString()}, longer than spec.sunset.unusedBuildDeleteDelay (1h), and no workflow is pinned to it`,
    },
  ]);
  assert.deepEqual(given(unused(HOUR, 0), { v2: 1 }).actions, [
    {
      action: 'scale',
      deployment: 'w-v2',
      buildId: 'v2',
      replicas: 2,
      reason: 'build v2 may still have pinned workflows (never took traffic, but 1 counted running in visibility)',
    },
  ]);
  const gone = given({ ...unused(2 * HOUR, 0), deployments: [] }, {}).actions;
  assert.deepEqual(short(gone), ['deleteTemporalVersion v2'], 'its Temporal record goes after its Deployments');
});
