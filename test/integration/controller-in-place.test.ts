// Deployments rolled in place rather than replaced by a new build: a changed connection reaches
// every running build, a template change under a custom build ID keeps the build, and so do a
// pool's placement change and spec.deployment's settings.
import {
  AppsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
} from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { LABELS } from '../../src/k8s/names.ts';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

const envOf = (d: V1Deployment, name: string) =>
  d.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === name)?.value;
const rolled = (d: V1Deployment) =>
  (d.status?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
  d.status?.updatedReplicas === d.spec?.replicas &&
  d.status?.availableReplicas === d.spec?.replicas;

test('a changed connection rolls every build that still runs, old ones included, and the rollout stays done', async (t) => {
  const namespace = await testNamespace(t, 'reconnect');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const [host = '', port = ''] = sharedEnvironment().temporalAddress.split(':');
  const proxy = new TcpProxy({ host, port: Number(port) });
  await proxy.listen();
  t.after(() => proxy.cut());
  const ns = await controlledNamespace(t, namespace);
  // A drained build stays up for an hour: it is still running when the connection changes.
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    sunset: { scaledownDelay: '1h' },
    template: ns.template('blue'),
  });
  const v1 = (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID;
  await ns.patchSpec('orders', { template: ns.template('green') });
  await ns.until(
    'orders',
    'the second build to be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );

  const moved = `127.0.0.1:${proxy.port}`;
  await custom.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace,
      plural: KINDS.TemporalConnection.plural,
      name: 'temporal',
      body: { spec: { hostPort: moved } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const deployments = await eventually(
    'both builds to run on the new address',
    async () => {
      const items = (await apps.listNamespacedDeployment({ namespace })).items;
      return items.length === 2 && items.every((d) => envOf(d, 'TEMPORAL_ADDRESS') === moved && rolled(d))
        ? items
        : undefined;
    },
    90_000,
  );
  assert.ok(
    deployments.some((d) => d.metadata?.labels?.[LABELS.buildId] === v1),
    'the old build was rolled too',
  );
  const after = await ns.until(
    'orders',
    'the rollout to be done again',
    (twd) => rolledOut(twd) && twd.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
  );
  assert.notEqual(after.status?.currentVersion?.buildID, v1, 'no build changed routing');
});

test('under a custom build ID a template change rolls the same build in place', async (t) => {
  const namespace = await testNamespace(t, 'custom-build');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const ns = await controlledNamespace(t, namespace);
  const stable = (behaviour: string) => ({
    replicas: 1,
    workerOptions: {
      connectionRef: { name: 'temporal' },
      temporalNamespace: sharedEnvironment().temporalNamespace,
      unsafeCustomBuildID: 'stable',
    },
    template: ns.template(behaviour),
  });
  await ns.createWorkerDeployment('orders', stable('blue'));
  await ns.until('orders', 'the build to be current', rolledOut);

  await ns.patchSpec('orders', stable('green'));
  const [deployment] = await eventually(
    'the Deployment to run the new template',
    async () => {
      const items = (await apps.listNamespacedDeployment({ namespace })).items;
      return items.length === 1 && envOf(items[0]!, 'SAMPLE_BEHAVIOUR') === 'green' && rolled(items[0]!)
        ? items
        : undefined;
    },
    90_000,
  );
  assert.equal(deployment?.metadata?.labels?.[LABELS.buildId], 'stable');
  const after = await ns.until('orders', 'the build to stay current', rolledOut);
  assert.equal(after.status?.currentVersion?.buildID, 'stable');
  assert.equal(after.status?.deprecatedVersions, undefined, 'no second build');
});

test('pools: every build runs one Deployment per pool, each on its own task queue, and a new build rolls out across all of them', async (t) => {
  const namespace = await testNamespace(t, 'pools');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const ns = await controlledNamespace(t, namespace);
  const pools = [
    { name: 'main', taskQueue: `${ns.taskQueue}-main` },
    { name: 'batch', taskQueue: `${ns.taskQueue}-batch`, replicas: 2 },
  ];
  await ns.createWorkerDeployment('orders', { replicas: 1, pools, template: ns.template('blue') });
  const first = await ns.until('orders', 'the first build to be current', rolledOut);
  const v1 = first.status?.currentVersion?.buildID ?? '';
  const byPool = async (buildId: string) =>
    new Map(
      (await apps.listNamespacedDeployment({ namespace, labelSelector: `${LABELS.buildId}=${buildId}` })).items.map(
        (d) => [d.metadata?.labels?.[LABELS.pool], d],
      ),
    );
  const v1Deployments = await byPool(v1);
  assert.deepEqual([...v1Deployments.keys()].sort(), ['batch', 'main']);
  assert.equal(v1Deployments.get('main')?.spec?.replicas, 1, 'spec.replicas');
  assert.equal(v1Deployments.get('batch')?.spec?.replicas, 2, "the pool's own replicas");
  assert.equal(envOf(v1Deployments.get('batch')!, 'TEMPORAL_TASK_QUEUE'), pools[1]?.taskQueue);

  await ns.patchSpec('orders', { template: ns.template('green') });
  const second = await ns.until(
    'orders',
    'the second build to be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  const v2 = second.status?.currentVersion?.buildID ?? '';
  const v2Deployments = await byPool(v2);
  assert.deepEqual([...v2Deployments.keys()].sort(), ['batch', 'main']);

  // A placement change of one pool is not a new build: that pool's Deployment is rolled in place.
  const toleration = { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' };
  await ns.patchSpec('orders', { pools: [pools[0], { ...pools[1], tolerations: [toleration] }] });
  const placed = await eventually(
    "the batch pool's Deployment to run with the toleration",
    async () => {
      const now = await byPool(v2);
      const batch = now.get('batch');
      return batch?.spec?.template.spec?.tolerations?.some((x) => x.key === 'dedicated') && rolled(batch)
        ? now
        : undefined;
    },
    90_000,
  );
  const [batchBefore, batchAfter] = [v2Deployments.get('batch'), placed.get('batch')];
  assert.equal(batchAfter?.metadata?.name, batchBefore?.metadata?.name, 'the same Deployment');
  assert.equal(batchAfter?.metadata?.uid, batchBefore?.metadata?.uid, 'not deleted and created again');
  assert.ok((batchAfter?.metadata?.generation ?? 0) > (batchBefore?.metadata?.generation ?? 0), 'a new pod template');
  assert.equal(batchAfter?.spec?.replicas, 2, 'replicas unchanged');
  assert.equal(
    placed.get('main')?.metadata?.generation,
    v2Deployments.get('main')?.metadata?.generation,
    'the other pool is not touched',
  );
  assert.equal(placed.get('main')?.spec?.template.spec?.tolerations, undefined);
  const after = await ns.until(
    'orders',
    'the rollout to be done with the same build',
    (twd) => rolledOut(twd) && twd.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
  );
  assert.equal(after.status?.currentVersion?.buildID, v2, 'no new build');
  assert.deepEqual(
    [...(await ns.buildDeployments()).keys()].filter((b) => b !== v1),
    [v2],
    'no Deployment of another build',
  );
});

test("spec.deployment reaches every build's Deployments in place, old ones included, with no new build; taken out, it goes", async (t) => {
  const namespace = await testNamespace(t, 'deployment-settings');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    sunset: { scaledownDelay: '1h', deleteDelay: '1h' },
    deployment: { labels: { team: 'payments' }, revisionHistoryLimit: 3 },
    template: ns.template('blue'),
  });
  const first = await ns.until('orders', 'the first build to be current', rolledOut);
  const v1 = first.status?.currentVersion?.buildID ?? '';
  await ns.patchSpec('orders', { template: ns.template('green') });
  const second = await ns.until(
    'orders',
    'the second build to be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  const v2 = second.status?.currentVersion?.buildID ?? '';
  const deployments = async () => (await apps.listNamespacedDeployment({ namespace })).items;
  for (const d of await deployments()) {
    assert.equal(d.metadata?.labels?.team, 'payments', `${d.metadata?.name} labelled`);
    assert.equal(d.spec?.revisionHistoryLimit, 3);
  }

  const settings = {
    labels: { team: 'billing' },
    annotations: { 'example.com/owner': 'billing' },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
  };
  await ns.patchSpec('orders', { deployment: { ...settings, revisionHistoryLimit: null } });
  const updated = await eventually(
    'both builds to carry the new settings',
    async () => {
      const items = await deployments();
      const done = items.every(
        (d) =>
          d.metadata?.labels?.team === 'billing' &&
          d.metadata.annotations?.['example.com/owner'] === 'billing' &&
          d.spec?.strategy?.rollingUpdate?.maxUnavailable === 0 &&
          d.spec.revisionHistoryLimit === 10,
      );
      return items.length === 2 && done ? items : undefined;
    },
    60_000,
  );
  assert.deepEqual(
    updated.map((d) => d.metadata?.labels?.[LABELS.buildId]).sort(),
    [v1, v2].sort(),
    'the same two builds, old one included',
  );
  const after = await ns.until('orders', 'the second build to stay current', rolledOut);
  assert.equal(after.status?.currentVersion?.buildID, v2, 'no new build');

  await ns.patchSpec('orders', { deployment: null });
  await eventually(
    'the settings to be taken off both builds',
    async () => {
      const items = await deployments();
      return items.every(
        (d) =>
          d.metadata?.labels?.team === undefined &&
          d.metadata?.annotations?.['example.com/owner'] === undefined &&
          d.spec?.strategy?.rollingUpdate?.maxUnavailable === '25%',
      )
        ? true
        : undefined;
    },
    60_000,
  );
});
