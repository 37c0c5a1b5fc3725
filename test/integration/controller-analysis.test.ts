// spec.rollout.analysis on the real environment: orders started on the task queue during a ramp
// land on the ramping build by the ramp's share; the sample worker fails a share of them on a build
// whose behaviour is `fail-<percent>`; the controller counts the ramping build's closed orders in
// Temporal's visibility and judges each step by them.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { condition, rolledOut } from '../support/controller.ts';
import { kubeConfig } from '../support/environment.ts';
import { ordersUntilStopped, rolledOutTo } from '../support/orders.ts';

test('a build failing 30% of its orders against a 5% limit is aborted at its first step: ramp removed, counts in status, one Warning event', async (t) => {
  const { namespace, client, ns, v1, orders } = await rolledOutTo(t, 'analysis-fail', {
    first: 'blue',
    next: 'fail-30',
    rollout: {
      strategy: 'Progressive',
      steps: [
        { rampPercentage: 50, pauseDuration: '5m' },
        { rampPercentage: 90, pauseDuration: '5m' },
      ],
      analysis: { minSamples: 10, maxFailureRate: 0.05 },
    },
  });
  const failed = await ns.until(
    'orders',
    'the analysis of step 1 to fail',
    (twd) => condition(twd, 'Stalled')?.reason === 'AnalysisFailed',
    180_000,
  );
  await orders.stop();
  const v2 = failed.status?.targetVersion?.buildID ?? '';
  const analysis = failed.status?.targetVersion?.analysis;
  assert.equal(analysis?.verdict, 'Failed');
  assert.equal(analysis?.step, 1);
  assert.equal(analysis?.generation, failed.metadata.generation);
  assert.ok((analysis?.closed ?? 0) >= 10, `at least minSamples closed: ${JSON.stringify(analysis)}`);
  assert.ok((analysis?.failed ?? 0) / (analysis?.closed ?? 1) > 0.05, `over the limit: ${JSON.stringify(analysis)}`);
  assert.match(
    condition(failed, 'Stalled')?.message ?? '',
    new RegExp(
      `analysis of step 1 of build ${v2}: ${analysis?.failed} of ${analysis?.closed} workflows closed on the ramping build failed \\(.*\\), above maxFailureRate 5%`,
    ),
  );

  // Temporal no longer ramps the failed build; the current build keeps the traffic, and keeps it.
  const routing = async () =>
    (
      await client.workflowService.describeWorkerDeployment({
        namespace: 'default',
        deploymentName: temporalDeploymentName(namespace, 'orders'),
      })
    ).workerDeploymentInfo?.routingConfig;
  const aborted = await ns.until(
    'orders',
    'the ramp to be removed',
    (twd) => twd.status?.targetVersion?.rampPercentage === undefined,
  );
  assert.equal(aborted.status?.currentVersion?.buildID, v1);
  assert.equal((await routing())?.rampingDeploymentVersion?.buildId ?? '', '', 'no ramp in Temporal');
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const still = await ns.read('orders');
  assert.equal(condition(still, 'Stalled')?.reason, 'AnalysisFailed', 'not ramped again while the spec is the same');
  assert.equal((await routing())?.rampingDeploymentVersion?.buildId ?? '', '');
  const buildDeployments = await ns.buildDeployments();
  assert.ok(buildDeployments.has(v2), "the failed build's Pods are kept, for its pinned workflows");

  const warnings = (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace })).items.filter(
    (e) => e.reason === 'AnalysisFailed',
  );
  assert.deepEqual(
    warnings.map((e) => e.type),
    ['Warning'],
    'one Warning event, however many reconciles repeat the verdict',
  );
});

test('a healthy build passes the analysis of each step and is promoted, across a controller restart inside a window; each pass is one event', async (t) => {
  const { namespace, ns, v1, orders } = await rolledOutTo(t, 'analysis-pass', {
    first: 'blue',
    next: 'green',
    rollout: {
      strategy: 'Progressive',
      steps: [
        { rampPercentage: 50, pauseDuration: '30s' },
        { rampPercentage: 80, pauseDuration: '30s' },
      ],
      analysis: { minSamples: 5, maxFailureRate: 0.05 },
    },
  });
  // The controller restarted inside step 1's window goes on with the same window: it is Temporal's ramp time.
  const counting = await ns.until(
    'orders',
    'step 1 to be counted',
    (twd) => twd.status?.targetVersion?.analysis?.step === 1 && (twd.status.targetVersion.analysis.closed ?? 0) > 0,
    120_000,
  );
  await ns.stopController();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await ns.startController();
  const resumed = await ns.until(
    'orders',
    'the restarted controller to count step 1 again',
    (twd) =>
      twd.status?.targetVersion?.analysis?.step === 1 &&
      twd.status.targetVersion.analysis.checkedAt !== counting.status?.targetVersion?.analysis?.checkedAt,
  );
  assert.equal(
    resumed.status?.targetVersion?.analysis?.windowStart,
    counting.status?.targetVersion?.analysis?.windowStart,
    'the same window',
  );
  const promoted = await ns.until(
    'orders',
    'the build to pass both analyses and be promoted',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
    240_000,
  );
  await orders.stop();
  const v2 = promoted.status?.currentVersion?.buildID ?? '';
  const passes = (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace })).items
    .filter((e) => e.reason === 'AnalysisPassed')
    .map((e) => /^analysis of (step \d) of build (\S+):/.exec(e.message ?? '')?.slice(1))
    .sort();
  assert.deepEqual(passes, [
    ['step 1', v2],
    ['step 2', v2],
  ]);
});

test('relative: a build worse than the current one by more than maxFailureRateIncrease is aborted, though under maxFailureRate', async (t) => {
  const { ns, orders } = await rolledOutTo(t, 'analysis-relative', {
    first: 'fail-5',
    next: 'fail-30',
    rollout: {
      strategy: 'Progressive',
      steps: [{ rampPercentage: 50, pauseDuration: '5m' }],
      analysis: { minSamples: 10, maxFailureRate: 0.9, maxFailureRateIncrease: 0.1 },
    },
  });
  const failed = await ns.until(
    'orders',
    'the relative analysis to fail',
    (twd) => condition(twd, 'Stalled')?.reason === 'AnalysisFailed',
    240_000,
  );
  await orders.stop();
  const analysis = failed.status?.targetVersion?.analysis;
  assert.ok((analysis?.currentClosed ?? 0) > 0, `the current build was counted too: ${JSON.stringify(analysis)}`);
  assert.match(
    condition(failed, 'Stalled')?.message ?? '',
    /failed \(.*\), against .* on the current build \(\d+ of \d+\): more than maxFailureRateIncrease 10% worse/,
  );
});

test("too few samples by the window's end: Fail stops the rollout; a new generation with Pass promotes the build, and the status says which", async (t) => {
  const rollout = (tooFewSamples: string) => ({
    strategy: 'Progressive',
    steps: [{ rampPercentage: 50, pauseDuration: '30s' }],
    analysis: { minSamples: 5, maxFailureRate: 0.05, tooFewSamples },
  });
  // No workflow is started: nothing closes on the ramping build.
  const { namespace, ns, v1 } = await rolledOutTo(t, 'analysis-few', {
    first: 'blue',
    next: 'green',
    rollout: rollout('Fail'),
    orders: false,
  });
  const failed = await ns.until(
    'orders',
    'too few samples to fail the step',
    (twd) => condition(twd, 'Stalled')?.reason === 'AnalysisFailed',
    120_000,
  );
  assert.match(
    condition(failed, 'Stalled')?.message ?? '',
    /0 of 0 workflows closed on the ramping build failed \(0%\): fewer than minSamples \(5\) by the window's end, which fails \(tooFewSamples: Fail\)/,
  );
  assert.equal(failed.status?.currentVersion?.buildID, v1);

  await ns.patchSpec('orders', { rollout: rollout('Pass') });
  const promoted = await ns.until(
    'orders',
    'the new generation to pass on too few samples and promote',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
    120_000,
  );
  assert.equal(condition(promoted, 'Stalled')?.status, 'False');
  const passed = (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace })).items.filter(
    (e) => e.reason === 'AnalysisPassed',
  );
  assert.match(passed[0]?.message ?? '', /which passes \(tooFewSamples: Pass\)$/);
});

test('AllAtOnce: a promoted build failing 30% of its orders within its window goes back to the build current before; its Pods stay', async (t) => {
  const { ns, v1, orders } = await rolledOutTo(t, 'analysis-bake-fail', {
    first: 'blue',
    next: 'fail-30',
    rollout: { strategy: 'AllAtOnce', analysis: { window: '5m', minSamples: 10, maxFailureRate: 0.05 } },
  });
  const failed = await ns.until(
    'orders',
    'the promoted build to fail its analysis and the one before to be current again',
    (twd) => condition(twd, 'Stalled')?.reason === 'AnalysisFailed' && twd.status?.currentVersion?.buildID === v1,
    180_000,
  );
  await orders.stop();
  const v2 = failed.status?.targetVersion?.buildID ?? '';
  assert.notEqual(v2, v1);
  assert.match(
    condition(failed, 'Stalled')?.message ?? '',
    new RegExp(
      `^analysis of build ${v2} since its promotion: \\d+ of \\d+ workflows closed on the promoted build failed \\(.*\\), above maxFailureRate 5%$`,
    ),
  );
  assert.equal(failed.status?.targetVersion?.analysis?.verdict, 'Failed');
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const still = await ns.read('orders');
  assert.equal(still.status?.currentVersion?.buildID, v1, 'not promoted again while the spec is the same');
  assert.ok((await ns.buildDeployments()).has(v2), "the failed build's Pods are kept, for its pinned workflows");
});

test('AllAtOnce: a healthy promoted build is judged through its window (Progressing says so), then passes once', async (t) => {
  const { namespace, ns, v1, orders } = await rolledOutTo(t, 'analysis-bake-pass', {
    first: 'blue',
    next: 'green',
    rollout: { strategy: 'AllAtOnce', analysis: { window: '30s', minSamples: 5, maxFailureRate: 0.05 } },
  });
  const baking = await ns.until(
    'orders',
    'the new build to be current and judged',
    (twd) => twd.status?.currentVersion?.buildID !== v1 && condition(twd, 'Progressing')?.reason === 'AnalysisPending',
    120_000,
  );
  const v2 = baking.status?.currentVersion?.buildID ?? '';
  assert.equal(condition(baking, 'Ready')?.status, 'True');
  const passed = await ns.until(
    'orders',
    'the analysis to pass',
    (twd) =>
      twd.status?.targetVersion?.analysis?.verdict === 'Passed' && condition(twd, 'Progressing')?.reason === 'Done',
    120_000,
  );
  await orders.stop();
  assert.equal(passed.status?.currentVersion?.buildID, v2);
  const events = (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace })).items.filter(
    (e) => e.reason === 'AnalysisPassed',
  );
  assert.equal(events.length, 1);
  assert.match(
    events[0]?.message ?? '',
    new RegExp(`^analysis of build ${v2} since its promotion: .* within the limits$`),
  );
});

test('AllAtOnce: a rollback to a build is not judged, so its failures do not send new workflows back to the build the spec left', async (t) => {
  const { client, ns, v1 } = await rolledOutTo(t, 'analysis-rollback', {
    first: 'fail-30',
    next: 'green',
    rollout: { strategy: 'AllAtOnce', analysis: { window: '5m', minSamples: 5, maxFailureRate: 0.05 } },
    orders: false,
  });
  const v2 = (
    await ns.until('orders', 'the second build to be current', (twd) => twd.status?.currentVersion?.buildID !== v1)
  ).status?.currentVersion?.buildID;
  await ns.patchSpec('orders', { template: ns.template('fail-30') });
  await ns.until('orders', 'the rollback to the first build', (twd) => twd.status?.currentVersion?.buildID === v1);
  const orders = ordersUntilStopped(client, ns.taskQueue);
  t.after(() => orders.stop());
  await new Promise((resolve) => setTimeout(resolve, 20_000));
  const started = await orders.stop();
  const after = await ns.read('orders');
  assert.ok(started > 50, `orders ran on the rolled-back build: ${started}`);
  assert.equal(after.status?.currentVersion?.buildID, v1, `still current, not sent back to ${v2}`);
  assert.notEqual(condition(after, 'Stalled')?.reason, 'AnalysisFailed');
  assert.equal(after.status?.targetVersion?.analysis, undefined, 'not judged');
});
