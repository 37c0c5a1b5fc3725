// What the status says when the controller waits: on a human (Manual) or on Temporal.
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { controlledNamespace } from '../support/controller.ts';
import { eventually, kubeConfig, testNamespace } from '../support/environment.ts';

test('Manual: the build runs and registers, and routing is left alone, as the status says', async (t) => {
  const namespace = await testNamespace(t, 'manual');
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, rollout: { strategy: 'Manual' }, template: ns.template('blue') });
  const registered = await eventually('the build to register', async () => {
    const twd = await ns.read('orders');
    return twd.status?.targetVersion?.status === 'Inactive' && twd.status.targetVersion.healthySince ? twd : undefined;
  }, 90_000);
  assert.equal(registered.status?.currentVersion, undefined, 'never promoted');
  const ready = registered.status?.conditions?.find((c) => c.type === 'Ready');
  assert.equal(ready?.status, 'False');
  assert.match(ready?.message ?? '', /Manual strategy leaves routing to you/);
});

test('an unreachable Temporal: Progressing=False/TemporalUnreachable, and no Deployment is touched', async (t) => {
  const namespace = await testNamespace(t, 'unreachable');
  const ns = await controlledNamespace(t, namespace);
  await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalConnection.plural, name: 'temporal', body: { spec: { hostPort: '127.0.0.1:1' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const twd = await eventually('the condition', async () => {
    const current = await ns.read('orders');
    return current.status?.conditions?.find((c) => c.type === 'Progressing' && c.reason === 'TemporalUnreachable') ? current : undefined;
  }, 60_000);
  assert.match(twd.status?.conditions?.find((c) => c.reason === 'TemporalUnreachable')?.message ?? '', /127\.0\.0\.1:1/);
  assert.equal((await kubeConfig().makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace })).items.length, 0, 'nothing is created while Temporal cannot be read');
});
