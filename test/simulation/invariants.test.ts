// The checks must be able to fail: each case breaks one promise by hand, through the same adapters
// the controller uses, on a world the controller brought to a steady state (build v1 current), and
// expects exactly that invariant to be reported.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deployment } from '../support/recorded-world.ts';
import { Simulation } from './simulation.ts';
import { applyToObject } from './user-actions.ts';

/** Read anew each time: an assertion on the field narrows its type for the rest of a test. */
const broken = (sim: Simulation): string | undefined => sim.invariants.violation?.invariant;

async function steady(): Promise<Simulation> {
  const sim = new Simulation(12);
  for (let i = 0; i < 6; i++) await sim.step({ advanceMs: 60_000 });
  assert.equal(sim.temporal.current, 'v1', 'the controller made v1 current');
  assert.equal(sim.invariants.violation, undefined);
  return sim;
}

/** Build v2 with a ready Pod, registered in Temporal, as the controller would have it. */
async function withV2(sim: Simulation): Promise<void> {
  const owner = sim.kubernetes.stored;
  assert.ok(owner);
  await sim.kubernetes.client().createDeployment(deployment(owner, 'v2', { replicas: 1 }));
  sim.clock.now += 120_000;
  sim.kubernetes.progress();
  sim.temporal.progress(120_000);
  assert.ok(sim.temporal.versions.has('v2'));
}

async function setCurrent(sim: Simulation, buildId: string): Promise<void> {
  const client = sim.temporal.client('twc-test');
  const { conflictToken } = await client.describe();
  await client.changeRouting({
    action: 'setCurrent',
    buildId,
    claimManager: false,
    ...(conflictToken ? { conflictToken } : {}),
  });
}

test('scaling the current build to 0 is caught', async () => {
  const sim = await steady();
  await sim.kubernetes.client().scaleDeployment('shop', 'orders-v1', 0);
  assert.equal(broken(sim), 'routed-build-retired');
});

test('routing to a build whose Pods are gone is caught', async () => {
  const sim = await steady();
  await withV2(sim);
  await sim.kubernetes.client().scaleDeployment('shop', 'orders-v2', 0);
  assert.equal(sim.invariants.violation, undefined, 'v2 takes no traffic yet');
  await setCurrent(sim, 'v2');
  assert.equal(broken(sim), 'routed-without-ready-pods');
});

test('routing before a gate of the spec passed is caught', async () => {
  const sim = await steady();
  await withV2(sim);
  sim.kubernetes.update(
    (o) => ({ ...o, spec: { ...o.spec, rollout: { strategy: 'AllAtOnce', gate: { workflowType: 'smoke' } } } }),
    true,
  );
  await setCurrent(sim, 'v2');
  assert.equal(broken(sim), 'routed-before-gates');
});

test('retiring a build that runs pinned workflows is caught', async () => {
  const sim = await steady();
  await withV2(sim);
  await setCurrent(sim, 'v2');
  assert.ok(sim.temporal.pinnedRunning('v1').length > 0, 'seed 12 runs pinned workflows on v1');
  await sim.kubernetes.client().deleteDeployment('shop', 'orders-v1');
  assert.equal(broken(sim), 'pinned-workflows-stranded');
});

test('a batch on the current build is caught', async () => {
  const sim = await steady();
  await sim.temporal.client('twc-test').startBatch({
    jobId: 'job',
    operation: 'Cancel',
    query:
      "(TemporalWorkerDeploymentVersion = 'shop/orders:v1') AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'",
    reason: 'test',
  });
  assert.equal(broken(sim), 'batch-on-active-build');
});

test('a batch that touches an auto-upgrade workflow is caught', async () => {
  const sim = await steady();
  await withV2(sim);
  await setCurrent(sim, 'v2');
  const onV1 = sim.temporal.workflows.filter(
    (w) => w.status === 'Running' && w.build === 'v1' && w.behavior === 'AutoUpgrade',
  );
  assert.ok(onV1.length > 0, 'seed 12 has auto-upgrade workflows whose last task ran on v1');
  // v2 is the target too: v1 is an old build, which a ladder may act on.
  sim.kubernetes.update(
    (o) => applyToObject({ user: 'template', build: 'v2' }, o, new Date(sim.clock.now)).object,
    true,
  );
  await sim.temporal.client('twc-test').startBatch({
    jobId: 'job',
    operation: 'Terminate',
    query: "(TemporalWorkerDeploymentVersion = 'shop/orders:v1') AND ExecutionStatus = 'Running'",
    reason: 'test',
  });
  sim.clock.now += 30_000;
  sim.temporal.progress(30_000);
  assert.equal(broken(sim), 'batch-on-non-pinned-workflow');
});

test('a seed runs the same twice, and its steps replay to the same end', async () => {
  const { runSeed, runSteps } = await import('./simulation.ts');
  const first = await runSeed(5, 60);
  const again = await runSeed(5, 60);
  assert.deepEqual(again, first);
  const replayed = await runSteps(5, first.steps);
  assert.deepEqual(replayed, first);
});

test('making a build current again after its analysis failed is caught, unless promoted', async () => {
  for (const promote of [false, true]) {
    const sim = await steady();
    await withV2(sim);
    sim.kubernetes.update(
      (o) => ({
        ...o,
        spec: {
          ...o.spec,
          rollout: {
            strategy: 'AllAtOnce',
            analysis: { window: '5m', maxFailureRate: 0.1 },
            ...(promote ? { promote: 'v2' } : {}),
          },
        },
      }),
      true,
    );
    sim.invariants.statusWritten({
      targetVersion: {
        buildID: 'v2',
        status: 'Draining',
        analysis: {
          generation: 2,
          step: 1,
          verdict: 'Failed',
          windowStart: '2026-11-23T12:00:00Z',
          closed: 10,
          failed: 5,
          message: '5 of 10 failed',
          checkedAt: '2026-11-23T12:05:00Z',
        },
      },
    });
    await setCurrent(sim, 'v2');
    assert.equal(broken(sim), promote ? undefined : 'failed-build-routed');
  }
});
