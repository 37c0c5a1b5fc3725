// Progressive end to end: the new build ramps through both steps, each timed by Temporal's ramp
// change time, then becomes current.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { Controller } from '../../src/controller/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace, uniqueName } from '../support/environment.ts';
import { create } from '../support/manifests.ts';

test('Progressive with two steps ramps 10% then 50%, then promotes', async (t) => {
  const namespace = await testNamespace(t, 'progressive');
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  // Scoped to the test's namespace: tests run side by side, each with its own controller.
  const controller = new Controller({ kubeconfig: kubeConfig(), identity: uniqueName('twc-test'), namespace, pollIntervalMs: 1000, log: () => {} });
  await controller.start();
  t.after(() => controller.stop());

  await create({ apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalConnection', metadata: { name: 'temporal' }, spec: { hostPort: temporalAddress } }, namespace);
  const taskQueue = uniqueName('q');
  const template = (behaviour: string) => ({ spec: { containers: [{ name: 'worker', image: 'sample-worker', env: [{ name: 'TEMPORAL_TASK_QUEUE', value: taskQueue }, { name: 'SAMPLE_BEHAVIOUR', value: behaviour }] }] } });
  const steps = [
    { rampPercentage: 10, pauseDuration: '30s' },
    { rampPercentage: 50, pauseDuration: '30s' },
  ];
  await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerDeployment',
      metadata: { name: 'orders' },
      spec: { replicas: 1, workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace }, rollout: { strategy: 'Progressive', steps }, template: template('blue') },
    },
    namespace,
  );
  const read = async () => (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural, name: 'orders' })) as TemporalWorkerDeployment;
  const first = await eventually('the first build to be current (no current build: promoted directly)', async () => {
    const twd = await read();
    return twd.status?.currentVersion?.buildID === twd.status?.targetVersion?.buildID && twd.status?.currentVersion ? twd : undefined;
  }, 90_000);
  const v1 = first.status?.currentVersion?.buildID;

  await custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural, name: 'orders', body: { spec: { template: template('green') } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const ramps: number[] = [];
  const promoted = await eventually('the second build to ramp through both steps and become current', async () => {
    const twd = await read();
    const ramp = twd.status?.targetVersion?.rampPercentage;
    if (ramp !== undefined && ramps.at(-1) !== ramp) ramps.push(ramp);
    return twd.status?.currentVersion?.buildID !== v1 && twd.status?.currentVersion?.buildID === twd.status?.targetVersion?.buildID ? twd : undefined;
  }, 150_000);
  assert.deepEqual(ramps, [10, 50], 'both steps, in order');
  assert.ok(promoted.status?.currentVersion?.buildID);
});
