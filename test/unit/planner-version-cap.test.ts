// Making room at Temporal's cap of versions: a target that runs but cannot register has the record
// of the longest-drained, scaled-down build deleted, as the server would do were no manager
// identity set. Table-driven, on a fixed clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planVersions, REGISTRATION_GRACE_MS, type VersionState, type VersionsInput } from '../../src/planner/versions.ts';

const now = new Date('2026-11-22T12:00:00Z');
const ago = (seconds: number): Date => new Date(now.getTime() - seconds * 1000);
const grace = REGISTRATION_GRACE_MS / 1000;

const drained = (buildId: string, drainedSecondsAgo: number, replicas: number): VersionState => ({
  buildId,
  status: 'Drained',
  everActive: true,
  drainedSince: ago(drainedSecondsAgo),
  deployments: [{ name: `w-${buildId}`, replicas }],
});
const current: VersionState = { buildId: 'v3', status: 'Current', everActive: true, deployments: [{ name: 'w-v3', replicas: 1 }] };
const target = (healthySecondsAgo: number | undefined, status: VersionState['status'] = 'NotRegistered'): VersionState => ({
  buildId: 'v4',
  status,
  everActive: false,
  deployments: [{ name: 'w-v4', replicas: 1 }],
  ...(healthySecondsAgo === undefined ? {} : { healthySince: ago(healthySecondsAgo) }),
});

function input(versions: VersionState[], changes: Partial<VersionsInput> = {}): VersionsInput {
  return {
    now,
    targetBuildId: 'v4',
    currentBuildId: 'v3',
    replicas: 1,
    // Long delays: nothing else in these plans is due.
    sunset: { scaledownDelay: '1s', deleteDelay: '24h' },
    versions,
    temporalKnowsDeployment: true,
    maxIneligibleVersions: 75,
    ...changes,
  };
}

const recordDeletions = (i: VersionsInput) => planVersions(i).actions.flatMap((a) => (a.action === 'deleteTemporalVersion' ? [a.buildId] : []));

const cases: [string, VersionsInput, string[]][] = [
  ['available past the grace and unregistered: the longest-drained scaled-down build makes room', input([drained('v1', 600, 0), drained('v0', 900, 0), current, target(grace)]), ['v0']],
  ['one per reconcile, even with several eligible', input([drained('v0', 900, 0), drained('v1', 600, 0), drained('v2', 300, 0), current, target(grace + 60)]), ['v0']],
  ['a drained build that keeps its replicas is not eligible', input([drained('v0', 900, 1), drained('v1', 600, 0), current, target(grace)]), ['v1']],
  ['within the grace: workers may simply not have polled yet', input([drained('v0', 900, 0), current, target(grace - 1)]), []],
  ['not available: nothing polls yet', input([drained('v0', 900, 0), current, target(undefined)]), []],
  ['registered: nothing to make room for', input([drained('v0', 900, 0), current, target(grace, 'Inactive')]), []],
  ['Temporal does not know the deployment: no cap to reach', input([target(grace)], { currentBuildId: undefined, temporalKnowsDeployment: false }), []],
  ['nothing eligible: nothing deleted', input([drained('v0', 900, 1), current, target(grace)]), []],
];

for (const [name, plan, expected] of cases) {
  test(`version cap: ${name}`, () => assert.deepEqual(recordDeletions(plan), expected));
}

test('version cap: within the grace, a reconcile is asked for when it ends', () => {
  const plan = planVersions(input([drained('v0', 900, 0), current, target(10)]));
  assert.deepEqual(plan.recheckAt, new Date(ago(10).getTime() + REGISTRATION_GRACE_MS));
});
