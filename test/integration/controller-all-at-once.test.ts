// The controller end to end on the real environment: a new build becomes current, the old one
// drains, is scaled down and deleted, and its Temporal record goes.
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { Controller } from '../../src/controller/controller.ts';
import { describeDeployment } from '../../src/temporal/deployment-state.ts';
import { eventually, kubeConfig, sharedEnvironment, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';
import { create } from '../support/manifests.ts';

test('AllAtOnce: v1 becomes current; a template change makes v2 current while v1 drains, scales down and is deleted', async (t) => {
  const namespace = await testNamespace(t, 'allatonce');
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const client = await temporalClient(t);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  // Scoped to the test's namespace: tests run side by side, each with its own controller.
  const controller = new Controller({ kubeconfig: kubeConfig(), identity: uniqueName('twc-test'), namespace, pollIntervalMs: 1000, log: () => {} });
  await controller.start();
  t.after(() => controller.stop());

  await create({ apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalConnection', metadata: { name: 'temporal' }, spec: { hostPort: temporalAddress } }, namespace);
  const taskQueue = uniqueName('q');
  const template = (behaviour: string) => ({ spec: { containers: [{ name: 'worker', image: 'sample-worker', env: [{ name: 'TEMPORAL_TASK_QUEUE', value: taskQueue }, { name: 'SAMPLE_BEHAVIOUR', value: behaviour }] }] } });
  await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerDeployment',
      metadata: { name: 'orders' },
      spec: { replicas: 1, workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace }, rollout: { strategy: 'AllAtOnce' }, sunset: { scaledownDelay: '2s', deleteDelay: '2s' }, template: template('blue') },
    },
    namespace,
  );
  const read = async () => (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural, name: 'orders' })) as TemporalWorkerDeployment;
  const first = await eventually('the first build to be current', async () => {
    const twd = await read();
    return twd.status?.currentVersion?.buildID && twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID ? twd : undefined;
  }, 90_000);
  const v1 = first.status?.currentVersion?.buildID ?? '';
  assert.equal(first.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');

  await custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural, name: 'orders', body: { spec: { template: template('green') } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const second = await eventually('the second build to be current', async () => {
    const twd = await read();
    return twd.status?.currentVersion?.buildID && twd.status.currentVersion.buildID !== v1 && twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID ? twd : undefined;
  }, 90_000);
  const v2 = second.status?.currentVersion?.buildID ?? '';
  assert.notEqual(v2, v1);

  await eventually('the first build\'s Deployment to be deleted after the sunset delays', async () => {
    const names = (await apps.listNamespacedDeployment({ namespace })).items.map((d) => d.metadata?.labels?.['temporal.io/build-id']);
    return names.length === 1 && names[0] === v2 ? true : undefined;
  }, 90_000);
  await eventually('Temporal\'s record of the first build to be deleted', async () => {
    const state = await describeDeployment(client.workflowService, temporalNamespace, `${namespace}/orders`);
    return state.versions.some((v) => v.buildId === v1) ? undefined : true;
  }, 90_000);

  // Settled: reconciles keep running (every second here) but write nothing.
  const settled = await eventually('the status to settle', async () => {
    const before = await read();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = await read();
    return after.metadata.resourceVersion === before.metadata.resourceVersion ? after : undefined;
  }, 30_000);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  assert.equal((await read()).metadata.resourceVersion, settled.metadata.resourceVersion, 'no write at steady state');
});
