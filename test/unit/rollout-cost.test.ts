// What one rollout costs, end to end: an AllAtOnce rollout of one worker deployment from the spec
// change to its new build Current, driven by the events the controller would see (the watch table
// decides which of them queue a reconcile, as the informers do), each reconcile through the adapter
// interfaces over plain data (test/support/recorded-world.ts), and the exact calls asserted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { LastDescribed } from '../../src/controller/last-described.ts';
import { WatchMemory, WATCHES, type WatchView } from '../../src/controller/watches.ts';
import { OwnDeploymentWrites } from '../../src/k8s/own-deployment-writes.ts';
import { changeOf } from '../../src/controller/worker-deployment-changes.ts';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import type { InformerEvent } from '../../src/runtime/informer.ts';
import { OwnWrites } from '../../src/runtime/own-writes.ts';
import {
  connection,
  deployment,
  IDENTITY,
  recordedReconcile,
  workerDeployment,
  type World,
} from '../support/recorded-world.ts';

const now = new Date('2026-11-27T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);

/** v1 current; v2, once its workers polled, listed but taking no traffic. */
const v1Only: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v1',
  managerIdentity: IDENTITY,
  versions: [{ buildId: 'v1', status: 'Current', everActive: true }],
};
const v2Registered: TemporalDeploymentState = {
  ...v1Only,
  versions: [...v1Only.versions, { buildId: 'v2', status: 'Inactive', everActive: false }],
};
const v2Current: TemporalDeploymentState = {
  ...v1Only,
  currentBuildId: 'v2',
  versions: [
    { buildId: 'v1', status: 'Draining', everActive: true },
    { buildId: 'v2', status: 'Current', everActive: true },
  ],
};

/** The new build's Deployment as the API server holds it at each step: created, its Pods starting, available, settled. */
function v2Deployment(owner: TemporalWorkerDeployment, step: 'created' | 'starting' | 'available' | 'settled') {
  const available = deployment(owner, 'v2', { since: now, available: step === 'available' || step === 'settled' });
  if (step === 'created') return { ...available, status: {} };
  if (step === 'starting')
    return { ...available, status: { ...available.status, conditions: [{ type: 'Progressing', status: 'True' }] } };
  if (step === 'settled')
    return {
      ...available,
      status: {
        ...available.status,
        conditions: [...(available.status?.conditions ?? []), { type: 'Progressing', status: 'True' }],
      },
    };
  return available;
}

/**
 * A rollout as the informers deliver it: the spec change, the new Deployment's events, the
 * controller's own status writes. Each event the watch table turns into a queue key brings one
 * reconcile (and one more at once while a reconcile asks for it); every call is recorded, each
 * reconcile's under a line that says what brought it.
 */
async function rollOut(lastDescribed?: LastDescribed): Promise<string[]> {
  const ownWrites = new OwnWrites<TemporalWorkerDeployment>();
  const calls: string[] = [];
  let temporal = v1Only;
  let cached: TemporalWorkerDeployment = workerDeployment({ buildId: 'v1' });
  const v1 = deployment(cached, 'v1', { since: minutesAgo(60) });
  let deployments: V1Deployment[] = [v1];
  // The informer's side: which Deployment events queue a reconcile; the controller's own creates count as seen.
  const memory = new WatchMemory(WATCHES.Deployment);
  const writes = new OwnDeploymentWrites(
    () => deployments,
    (created) => memory.wrote(created),
  );
  const view = {} as WatchView;
  const world = (): World => ({
    now,
    workerDeployment: cached,
    connection: connection(),
    deployments,
    temporal,
    ownWrites,
    calls,
    cluster: (recorded) => writes.noting(recorded),
    ...(lastDescribed ? { lastDescribed } : {}),
  });
  // Settled on v1: what the status says before the change.
  const settled = await recordedReconcile({ ...world(), calls: [] });
  cached = { ...cached, status: settled.status, metadata: { ...cached.metadata, resourceVersion: '11' } };
  /** The reconciles `keys` bring, each run again while it asks to at once; Temporal follows each routing change. */
  const reconcileFor = async (why: string, keys: string[]) => {
    for (let queued = keys.length; queued > 0; queued--) {
      for (let cause = why, again = true; again; cause = 'asked to run again at once') {
        calls.push(`-- reconcile: ${cause}`);
        const run = await recordedReconcile(world());
        if (run.calls.includes('temporal.changeRouting setCurrent v2')) temporal = v2Current;
        if (run.status) {
          const stored = ownWrites.newest(cached) ?? cached;
          // The informer shows the status written: an update that queues nothing.
          assert.deepEqual(WATCHES.TemporalWorkerDeployment.keys('update', stored, changeOf(cached)), []);
          cached = stored;
        }
        again = run.result?.requeueAfterMs === 0;
      }
    }
  };

  // The user changes the template: a new build.
  const before = changeOf(cached);
  cached = workerDeployment({ buildId: 'v2' }, { generation: 2, resourceVersion: '12' }, cached.status);
  await reconcileFor('the spec changed', WATCHES.TemporalWorkerDeployment.keys('update', cached, before));
  const step = async (why: string, event: InformerEvent, d: V1Deployment) => {
    deployments = [v1, d];
    await reconcileFor(why, memory.keys(event, d, view));
  };
  await step('Deployment orders-v2 added', 'add', v2Deployment(cached, 'created'));
  await step('Deployment orders-v2 status: its Pods starting', 'update', v2Deployment(cached, 'starting'));
  // Its workers poll: Temporal lists the build; then its Pods are Ready.
  temporal = v2Registered;
  await step('Deployment orders-v2 status: available', 'update', v2Deployment(cached, 'available'));
  await step('Deployment orders-v2 status: settled', 'update', v2Deployment(cached, 'settled'));
  return calls;
}

test('an AllAtOnce rollout of one worker deployment, from the spec change to its build Current: every call', async () => {
  const calls = await rollOut(new LastDescribed());
  assert.deepEqual(calls, [
    '-- reconcile: the spec changed',
    'k8s.createDeployment orders-v2',
    'k8s.replaceStatus orders@12',
    '-- reconcile: Deployment orders-v2 status: available',
    'temporal.describe',
    'temporal.changeRouting setCurrent v2',
    'k8s.replaceStatus orders@13',
  ]);
  assert.equal(calls.filter((c) => c === 'temporal.describe').length, 1, 'Temporal reads');
});

test('a rollout whose spec change comes first in this process (nothing described yet) reads Temporal at the change too', async () => {
  const calls = await rollOut();
  assert.deepEqual(calls, [
    '-- reconcile: the spec changed',
    'k8s.createDeployment orders-v2',
    'temporal.describe',
    'k8s.replaceStatus orders@12',
    '-- reconcile: Deployment orders-v2 status: available',
    'temporal.describe',
    'temporal.changeRouting setCurrent v2',
    'k8s.replaceStatus orders@13',
  ]);
});

/**
 * v1 settled, Temporal saying `state`, then the spec changed to v2: the change's reconcile, with
 * what the settling reconcile remembered (`remembered`) or, as after a restart, nothing.
 */
async function specChange(
  state: TemporalDeploymentState,
  remembered: boolean,
  options: { old?: V1Deployment[]; v1Replicas?: number } = {},
) {
  const lastDescribed = new LastDescribed();
  const v1 = workerDeployment({ buildId: 'v1' });
  const replicas = options.v1Replicas === undefined ? {} : { replicas: options.v1Replicas };
  const deployments = [deployment(v1, 'v1', { since: minutesAgo(60), ...replicas }), ...(options.old ?? [])];
  const base = { now, connection: connection(), deployments, temporal: state };
  const settled = await recordedReconcile({ ...base, workerDeployment: v1, lastDescribed });
  const changed = workerDeployment({ buildId: 'v2' }, { generation: 2, resourceVersion: '12' }, settled.status);
  return recordedReconcile({
    ...base,
    workerDeployment: changed,
    lastDescribed: remembered ? lastDescribed : new LastDescribed(),
  });
}

test("the spec change's reconcile on Temporal's last description writes what a read of the same state writes", async () => {
  const recalled = await specChange(v1Only, true);
  const read = await specChange(v1Only, false);
  assert.deepEqual(recalled.calls, ['k8s.createDeployment orders-v2', 'k8s.replaceStatus orders@12']);
  assert.deepEqual(read.calls, ['k8s.createDeployment orders-v2', 'temporal.describe', 'k8s.replaceStatus orders@12']);
  assert.deepEqual(recalled.status, read.status);
  assert.deepEqual(recalled.result, read.result);
  assert.equal(recalled.status?.targetVersion?.buildID, 'v2');
});

test('a spec change reads Temporal when the plan on its last description has something to do', async () => {
  const change = await specChange(v1Only, true, { v1Replicas: 7 });
  assert.deepEqual(change.calls.slice(0, 2), ['k8s.createDeployment orders-v2', 'temporal.describe']);
});

test('a spec change reads Temporal when the plan on its last description asks Temporal for more', async () => {
  const v0: TemporalDeploymentState = {
    ...v1Only,
    versions: [
      { buildId: 'v0', status: 'Drained', everActive: true, drainedSince: minutesAgo(180) },
      ...v1Only.versions,
    ],
  };
  const old = deployment(workerDeployment({ buildId: 'v1' }), 'v0', { since: minutesAgo(300) });
  const change = await specChange(v0, true, { old: [old] });
  assert.deepEqual(change.calls.slice(0, 3), [
    'k8s.createDeployment orders-v2',
    'temporal.describe',
    'temporal.countRunningWorkflows v0',
  ]);
});
