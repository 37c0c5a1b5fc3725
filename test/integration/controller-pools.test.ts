// Worker deployments with pools (seed 000) on the real environment: a gate judges a build on
// every pool's task queue, a pool removed from the spec keeps its Deployments for as long as its
// build is needed, a build is routed to only once every pool of it is available, and a pool's own
// template runs in its Pods and is part of the build.
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LABELS } from '../../src/k8s/names.ts';
import { gateWorkflowId } from '../../src/planner/gates.ts';
import { condition, controlledNamespace, gateRanOn, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';

test('pools: a gate runs on the task queue of every pool, each run on the target build', async (t) => {
  const namespace = await testNamespace(t, 'pools-gate');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const pools = [
    { name: 'main', taskQueue: `${ns.taskQueue}-main` },
    { name: 'batch', taskQueue: `${ns.taskQueue}-batch` },
  ];
  await ns.createWorkerDeployment('orders', { replicas: 1, pools, template: ns.template('blue') });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  await ns.patchSpec('orders', {
    rollout: { strategy: 'AllAtOnce', gate: { workflowType: 'gate', input: { pass: true } } },
    template: ns.template('green'),
  });
  const promoted = await ns.until(
    'orders',
    'the second build to pass its gates and be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  const v2 = promoted.status?.currentVersion?.buildID ?? '';
  for (const { taskQueue } of pools) {
    assert.equal(
      await gateRanOn(
        client,
        gateWorkflowId(
          `${namespace}/orders`,
          v2,
          { name: 'rollout', gate: { workflowType: 'gate', input: { pass: true } } },
          taskQueue,
        ),
      ),
      v2,
      `the gate on ${taskQueue} ran on the target build, not on the current one`,
    );
  }
});

test('pools: a pool removed from the spec keeps its Deployments while its build drains, and they go when the build retires', async (t) => {
  const namespace = await testNamespace(t, 'pools-removed');
  const client = await temporalClient(t);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const ns = await controlledNamespace(t, namespace);
  const [main, batch] = [
    { name: 'main', taskQueue: `${ns.taskQueue}-main` },
    { name: 'batch', taskQueue: `${ns.taskQueue}-batch` },
  ];
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    pools: [main, batch],
    sunset: { scaledownDelay: '1s', deleteDelay: '1s' },
    template: ns.template('blue'),
  });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';
  const pools = async (buildId: string) =>
    (await apps.listNamespacedDeployment({ namespace, labelSelector: `${LABELS.buildId}=${buildId}` })).items
      .map((d) => `${d.metadata?.labels?.[LABELS.pool]} ${d.spec?.replicas}`)
      .sort();
  assert.deepEqual(await pools(v1), ['batch 1', 'main 1']);
  // A workflow on the batch pool's queue, pinned to v1: v1 is needed until it ends.
  const pinned = await client.workflow.start('pinnedUntilSignalled', {
    taskQueue: batch.taskQueue,
    workflowId: `pinned-${namespace}`,
  });

  await ns.patchSpec('orders', { pools: [main], template: ns.template('green') });
  const second = await ns.until(
    'orders',
    'the second build to be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  const v2 = second.status?.currentVersion?.buildID ?? '';
  assert.deepEqual(await pools(v2), ['main 1'], 'the new build runs only the pools in the spec');
  await ns.until(
    'orders',
    'v1 to drain',
    (twd) => twd.status?.deprecatedVersions?.some((v) => v.buildID === v1 && v.status === 'Draining') === true,
  );
  // Well past both sunset delays: a draining build is not one of them.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  assert.deepEqual(
    await pools(v1),
    ['batch 1', 'main 1'],
    'while v1 drains, the removed pool keeps its Deployment and its replica',
  );

  await pinned.signal('finish');
  const report = (await pinned.result()) as { startedOn: { buildId: string }; finishedOn: { buildId: string } };
  assert.deepEqual(
    [report.startedOn.buildId, report.finishedOn.buildId],
    [v1, v1],
    'the pinned workflow ran to its end on v1, in the removed pool',
  );
  await eventually(
    "every Deployment of v1, the removed pool's included, to be deleted once v1 is drained",
    async () => ((await pools(v1)).length === 0 ? true : undefined),
    90_000,
  );
  assert.deepEqual(await pools(v2), ['main 1']);
});

test('pools: a new build whose one pool never becomes available is not routed to, though its other pool runs; the status names the stuck Deployment', async (t) => {
  const namespace = await testNamespace(t, 'pools-stuck');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const ns = await controlledNamespace(t, namespace);
  const main = { name: 'main', taskQueue: `${ns.taskQueue}-main` };
  const batch = { name: 'batch', taskQueue: `${ns.taskQueue}-batch` };
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    progressDeadlineSeconds: 5,
    pools: [main, batch],
    template: ns.template('blue'),
  });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  // No node carries this label: the batch pool's Pods are never placed.
  const nowhere = { ...batch, nodeSelector: { 'twc.test/nowhere': 'true' } };
  await ns.patchSpec('orders', { pools: [main, nowhere], template: ns.template('green') });
  const stalled = await ns.until(
    'orders',
    'the new build to be Stalled on its batch pool',
    (twd) => condition(twd, 'Stalled')?.reason === 'BuildNotAvailable',
    90_000,
  );
  const v2 = stalled.status?.targetVersion?.buildID ?? '';
  assert.notEqual(v2, v1);
  assert.match(condition(stalled, 'Stalled')?.message ?? '', new RegExp(`Deployment orders-batch-${v2}`));
  const running = await eventually('the main pool of the new build to be available', async () => {
    const items = (
      await apps.listNamespacedDeployment({ namespace, labelSelector: `${LABELS.buildId}=${v2},${LABELS.pool}=main` })
    ).items;
    return items[0]?.status?.availableReplicas === 1 ? items[0] : undefined;
  });
  assert.ok(running);
  const after = await ns.read('orders');
  assert.equal(after.status?.currentVersion?.buildID, v1, 'the current build keeps all traffic');
  assert.equal(after.status?.targetVersion?.rampPercentage, undefined, 'nothing ramps to the new build');
  assert.equal(condition(after, 'Ready')?.status, 'False');
});

test("pools: a pool's own template runs in its Pods, and a change to it is a new build of every pool", async (t) => {
  const namespace = await testNamespace(t, 'pools-template');
  const client = await temporalClient(t);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const ns = await controlledNamespace(t, namespace);
  const main = { name: 'main', taskQueue: `${ns.taskQueue}-main` };
  const batch = (behaviour: string) => ({
    name: 'batch',
    taskQueue: `${ns.taskQueue}-batch`,
    template: {
      metadata: { labels: { role: 'batch' } },
      spec: { containers: [{ name: 'worker', env: [{ name: 'SAMPLE_BEHAVIOUR', value: behaviour }] }] },
    },
  });
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    pools: [main, batch('green')],
    template: ns.template('blue'),
  });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';
  const pods = (await core.listNamespacedPod({ namespace, labelSelector: `${LABELS.buildId}=${v1},role=batch` })).items;
  assert.deepEqual(
    pods.map((p) => p.metadata?.labels?.[LABELS.pool]),
    ['batch'],
    "the pool's Pod label, on its Pods alone",
  );
  const ran = async (taskQueue: string) =>
    (await client.workflow.execute('order', { taskQueue, workflowId: uniqueName('order'), args: [1] })) as {
      buildId: string;
      behaviour: string;
    };
  const [onMain, onBatch] = [await ran(main.taskQueue), await ran(`${ns.taskQueue}-batch`)];
  assert.deepEqual([onMain.buildId, onMain.behaviour], [v1, 'blue'], 'the main pool runs spec.template');
  assert.deepEqual(
    [onBatch.buildId, onBatch.behaviour],
    [v1, 'green'],
    "the batch pool's worker read its own variable",
  );

  await ns.patchSpec('orders', { pools: [main, batch('red')] });
  const promoted = await ns.until(
    'orders',
    "a new build, for the batch pool's new template",
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  const v2 = promoted.status?.currentVersion?.buildID ?? '';
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const deployments = (await apps.listNamespacedDeployment({ namespace, labelSelector: `${LABELS.buildId}=${v2}` }))
    .items;
  assert.deepEqual(
    deployments.map((d) => d.metadata?.labels?.[LABELS.pool]).sort(),
    ['batch', 'main'],
    'the whole worker deployment is the new build, its main pool too',
  );
  assert.equal((await ran(`${ns.taskQueue}-batch`)).behaviour, 'red');
});
