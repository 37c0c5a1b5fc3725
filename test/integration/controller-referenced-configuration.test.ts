// A ConfigMap the worker Pod template reads, on the real environment: changing it rolls the running
// build in place (new Pods, the same build ID) and the workers see the new value.
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LABELS } from '../../src/k8s/names.ts';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';

test('a ConfigMap the template reads through envFrom changes: the running build is rolled in place, and its workers read the new value', async (t) => {
  const namespace = await testNamespace(t, 'configmap-roll');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'worker-settings' }, data: { SAMPLE_BEHAVIOUR: 'blue' } },
  });
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    template: {
      spec: {
        containers: [
          {
            name: 'worker',
            image: 'sample-worker',
            env: [{ name: 'TEMPORAL_TASK_QUEUE', value: ns.taskQueue }],
            envFrom: [{ configMapRef: { name: 'worker-settings' } }],
          },
        ],
      },
    },
  });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';
  const order = async () =>
    (await client.workflow.execute('order', {
      taskQueue: ns.taskQueue,
      workflowId: uniqueName('order'),
      args: [1],
    })) as { buildId: string; behaviour: string };
  const first = await order();
  assert.deepEqual([first.buildId, first.behaviour], [v1, 'blue']);
  const podsOf = async () =>
    (await core.listNamespacedPod({ namespace, labelSelector: `${LABELS.buildId}=${v1}` })).items
      .filter((p) => !p.metadata?.deletionTimestamp)
      .map((p) => p.metadata?.name ?? '');
  const before = await podsOf();
  assert.equal(before.length, 1);

  await core.patchNamespacedConfigMap(
    { namespace, name: 'worker-settings', body: { data: { SAMPLE_BEHAVIOUR: 'green' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await eventually(
    "the build's Deployment to be rolled, its old Pod replaced by an available new one",
    async () => {
      const [deployment] = (
        await apps.listNamespacedDeployment({ namespace, labelSelector: `${LABELS.buildId}=${v1}` })
      ).items;
      const status = deployment?.status;
      const rolled =
        (status?.observedGeneration ?? 0) >= (deployment?.metadata?.generation ?? 0) &&
        (deployment?.metadata?.generation ?? 0) > 1 &&
        status?.updatedReplicas === 1 &&
        status.availableReplicas === 1 &&
        status.replicas === 1;
      const pods = await podsOf();
      return rolled && pods.length === 1 && !before.includes(pods[0] ?? '') ? true : undefined;
    },
    90_000,
  );
  const after = await order();
  assert.deepEqual([after.buildId, after.behaviour], [v1, 'green'], 'the same build, with the new value');
  assert.deepEqual([...(await ns.buildDeployments()).keys()], [v1], 'no new build');
  assert.equal((await ns.read('orders')).status?.currentVersion?.buildID, v1);
  const updated = (await core.listNamespacedEvent({ namespace })).items.filter((e) => e.reason === 'DeploymentUpdated');
  assert.ok(
    updated.some((e) => /ConfigMap worker-settings changed/.test(e.message ?? '')),
    `an event names the ConfigMap: ${JSON.stringify(updated.map((e) => e.message))}`,
  );
});
