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

async function steady(seed = 12): Promise<Simulation> {
  const sim = new Simulation(seed);
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

/** v2 current and the target, v1 an old build with its pinned workflows. */
async function superseded(seed: number): Promise<Simulation> {
  const sim = await steady(seed);
  await withV2(sim);
  await setCurrent(sim, 'v2');
  sim.kubernetes.update(
    (o) => applyToObject({ user: 'template', build: 'v2' }, o, new Date(sim.clock.now)).object,
    true,
  );
  // As a reconcile of the new spec would: the checks now know v1 as an old build.
  sim.invariants.reconciling(sim.kubernetes.stored?.spec);
  sim.invariants.afterStep({ steps: 0, ms: 0 });
  return sim;
}

test('moving a pinned workflow onto a build whose code does not replay it is caught', async () => {
  const sim = await superseded(12);
  const breaking = sim.temporal.pinnedRunning('v1').find((w) => !sim.builds.replays('v2', w.type));
  assert.ok(breaking, "seed 12 runs a pinned workflow on v1 whose type v2's code does not replay");
  await sim.temporal.client('twc-test').startBatch({
    jobId: 'move',
    operation: 'Move',
    executions: [{ workflowId: breaking.id, runId: breaking.runId }],
    onto: 'v2',
    reason: 'test',
  });
  sim.temporal.progress(10_000);
  assert.equal(broken(sim), 'moved-without-replay');
});

test('a step of the ladder acting on a pinned workflow moved off its build is caught', async () => {
  const sim = await superseded(7);
  const moving = sim.temporal.pinnedRunning('v1').find((w) => sim.builds.replays('v2', w.type));
  assert.ok(moving, "seed 7 runs a pinned workflow on v1 whose type v2's code replays");
  const client = sim.temporal.client('twc-test');
  await client.startBatch({
    jobId: 'move',
    operation: 'Move',
    executions: [{ workflowId: moving.id, runId: moving.runId }],
    onto: 'v2',
    reason: 'test',
  });
  sim.temporal.progress(1_000);
  assert.equal(moving.build, 'v2');
  assert.equal(sim.invariants.violation, undefined, 'a move onto the current build it replays on is no break');
  // Visibility still shows it on v1: a Terminate started at once reaches it.
  await client.startBatch({
    jobId: 'terminate',
    operation: 'Terminate',
    query:
      "(TemporalWorkerDeploymentVersion = 'shop/orders:v1') AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'",
    reason: 'test',
  });
  sim.temporal.progress(1_000);
  assert.equal(broken(sim), 'ladder-on-moved-workflow');
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
