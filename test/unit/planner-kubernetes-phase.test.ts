// The plan's first phase: which of the new build's Deployments are created before Temporal is read
// (and when the decision is left to the full plan instead), and the owned resources' actions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import type { RenderedCopy } from '../../src/domain/owned-resources.ts';
import type { ObservedDeployment } from '../../src/domain/snapshot.ts';
import { planKubernetesPhase } from '../../src/planner/kubernetes-phase.ts';
import { type NewBuildFacts, planNewBuild } from '../../src/planner/new-build.ts';
import { connection, workerDeployment } from '../support/recorded-world.ts';

const limit = { maxIneligibleVersions: 5 };
/** An older build's Deployment, running against the spec's Temporal namespace (see workerDeployment). */
const older = (buildId: string, more: Partial<ObservedDeployment> = {}): ObservedDeployment => ({
  name: `orders-${buildId}${more.pool ? `-${more.pool}` : ''}`,
  buildId,
  available: true,
  temporalNamespace: 'default',
  ...more,
});

function facts(overrides: Partial<NewBuildFacts> = {}, versionCount: number | 'uncounted' = 1): NewBuildFacts {
  return {
    workerDeployment: workerDeployment(
      { buildId: 'v2' },
      {},
      versionCount === 'uncounted' ? undefined : { versionCount },
    ),
    connection: connection(),
    buildId: 'v2',
    deployments: [older('v1')],
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
    deployments: [older('v1'), { name: 'orders-v2', buildId: 'v2', available: false }],
  });
  assert.deepEqual(created(f), []);
});

test('with pools, only the pools without a Deployment of the target', () => {
  const f = facts({
    deployments: [older('v1'), { name: 'orders-v2-a', buildId: 'v2', pool: 'a', available: false }],
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
      deployments: [older('v0'), older('v1'), older('v1', { pool: 'b' })],
    },
    2,
  );
  assert.equal(created(twoOlder).length, 1, 'each older build counts once, whatever its Deployments');
  assert.deepEqual(created({ ...twoOlder, workerDeployment: facts({}, 3).workerDeployment }), []);
});

test('left to the full plan unless an older build already runs against the same Temporal namespace and connection', () => {
  assert.deepEqual(created(facts({ deployments: [] })), [], 'a first build: Temporal confirms the namespace first');
  assert.deepEqual(
    created(facts({ deployments: [older('v1', { temporalNamespace: 'elsewhere' })] })),
    [],
    'the spec names another Temporal namespace than the running builds poll: it may not exist',
  );
  assert.deepEqual(
    created(facts({ deployments: [older('v1', { drift: 'the connection changed' })] })),
    [],
    'a changed connection: its credentials are not yet proven',
  );
  assert.equal(created(facts({ deployments: [older('v1', { drift: 'x' }), older('v0')] })).length, 1);
});

test("the first phase: the new build's Deployments, then one independent action per owned resource, its reason saying what is to do", () => {
  const twor = (name: string, status?: TemporalWorkerOwnedResource['status']) =>
    ({ metadata: { name }, spec: {}, ...(status ? { status } : {}) }) as unknown as TemporalWorkerOwnedResource;
  const copy = (name: string, buildId: string): RenderedCopy => ({
    twor: 'orders-pdb',
    kind: 'PodDisruptionBudget',
    name,
    target: { deployment: `orders-${buildId}`, uid: `uid-${buildId}`, buildId, state: 'Current' },
    object: { kind: 'PodDisruptionBudget' },
    hash: `hash-${name}`,
  });
  const account = { namespace: 'shop', name: 'copier' };
  const applied = { versions: [{ buildID: 'v1', resourceName: 'pdb-v1', applied: true, appliedHash: 'hash-pdb-v1' }] };
  const actions = planKubernetesPhase(
    {
      ...facts(),
      ownedResources: [
        {
          twor: twor('orders-pdb', applied),
          account,
          copies: [copy('pdb-v1', 'v1'), copy('pdb-v2', 'v2')],
          owners: [],
        },
        { twor: twor('orders-grant'), refusal: 'an RBAC kind', account, copies: [], owners: [] },
        {
          twor: twor('orders-idle', applied),
          account,
          copies: [{ ...copy('pdb-v1', 'v1'), twor: 'orders-idle' }],
          owners: [],
        },
      ],
    },
    limit,
  );
  assert.deepEqual(
    actions.map((a) => [a.action, 'independent' in a, a.reason.replace(/ \(created before.*/, '')]),
    [
      ['create', false, 'build v2 has no Deployment yet'],
      ['syncOwnedResource', true, 'TemporalWorkerOwnedResource orders-pdb: one copy to apply'],
      ['syncOwnedResource', true, 'TemporalWorkerOwnedResource orders-grant: an RBAC kind'],
      ['syncOwnedResource', true, 'TemporalWorkerOwnedResource orders-idle: its copies as last applied'],
    ],
  );
});
