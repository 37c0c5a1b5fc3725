// planNewBuild: which of the new build's Deployments are created before Temporal is read, and when
// the decision is left to the full plan instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type NewBuildFacts, planNewBuild } from '../../src/planner/new-build.ts';
import { connection, workerDeployment } from '../support/recorded-world.ts';

const limit = { maxIneligibleVersions: 5 };

function facts(overrides: Partial<NewBuildFacts> = {}, versionCount: number | 'uncounted' = 1): NewBuildFacts {
  return {
    workerDeployment: workerDeployment(
      { buildId: 'v2' },
      {},
      versionCount === 'uncounted' ? undefined : { versionCount },
    ),
    connection: connection(),
    buildId: 'v2',
    deployments: [{ name: 'orders-v1', buildId: 'v1', available: true }],
    wanted: [{ deployment: { metadata: { name: 'orders-v2' } } }],
    credentialsExist: true,
    ...overrides,
  };
}

const created = (f: NewBuildFacts) =>
  planNewBuild(f, limit).map((a) => (a.action === 'create' ? `${a.deployment.metadata?.name} ${a.reason}` : a.action));

test('the missing Deployment of the target is created, with the counts that allowed it in its reason', () => {
  assert.deepEqual(created(facts()), [
    'orders-v2 build v2 has no Deployment yet (created before Temporal is read: 1 versions in Temporal and 1 older builds in Kubernetes, below the limit of 5)',
  ]);
});

test('a target that has its Deployment: nothing', () => {
  const f = facts({
    deployments: [
      { name: 'orders-v1', buildId: 'v1', available: true },
      { name: 'orders-v2', buildId: 'v2', available: false },
    ],
  });
  assert.deepEqual(created(f), []);
});

test('with pools, only the pools without a Deployment of the target', () => {
  const f = facts({
    deployments: [{ name: 'orders-v2-a', buildId: 'v2', pool: 'a', available: false }],
    wanted: [
      { pool: 'a', deployment: { metadata: { name: 'orders-v2-a' } } },
      { pool: 'b', deployment: { metadata: { name: 'orders-v2-b' } } },
    ],
  });
  assert.deepEqual(
    planNewBuild(f, limit).map((a) => (a.action === 'create' ? [a.deployment.metadata?.name, a.pool] : [])),
    [['orders-v2-b', 'b']],
  );
});

test('left to the full plan when the status never counted Temporal versions (no reconcile reached Temporal yet)', () => {
  assert.deepEqual(created(facts({}, 'uncounted')), []);
});

test('left to the full plan when the Secret the connection references does not exist', () => {
  assert.deepEqual(created(facts({ credentialsExist: false })), []);
});

test('left to the full plan while a finalizer is missing, which goes on first', () => {
  assert.deepEqual(created(facts({ connection: connection([]) })), []);
  const bare = facts();
  bare.workerDeployment.metadata.finalizers = [];
  assert.deepEqual(created(bare), []);
});

test('left to the full plan when the versions counted and the older builds could reach the limit', () => {
  // 3 in Temporal + 1 older build = 4, below 5: created; 4 + 1 = 5: not.
  assert.equal(created(facts({}, 3)).length, 1);
  assert.deepEqual(created(facts({}, 4)), []);
  const twoOlder = facts(
    {
      deployments: [
        { name: 'orders-v0', buildId: 'v0', available: true },
        { name: 'orders-v1', buildId: 'v1', available: true },
        { name: 'orders-v1-b', buildId: 'v1', pool: 'b', available: true },
      ],
    },
    2,
  );
  assert.equal(created(twoOlder).length, 1, 'each older build counts once, whatever its Deployments');
  assert.deepEqual(created({ ...twoOlder, workerDeployment: facts({}, 3).workerDeployment }), []);
});
