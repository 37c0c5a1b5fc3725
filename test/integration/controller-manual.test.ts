// Manual: the controller runs and registers the build, at the replicas asked, and never routes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { condition, controlledNamespace } from '../support/controller.ts';
import { testNamespace } from '../support/environment.ts';

test('Manual with 2 replicas: both run, the build registers and stays Inactive; the conditions say it waits on you, neither progressing nor stalled', async (t) => {
  const namespace = await testNamespace(t, 'manual2');
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', {
    replicas: 2,
    rollout: { strategy: 'Manual' },
    template: ns.template('blue'),
  });
  const registered = await ns.until(
    'orders',
    'the build to register with both replicas available',
    (twd) => twd.status?.targetVersion?.status === 'Inactive' && twd.status.targetVersion.healthySince !== undefined,
  );
  const build = registered.status?.targetVersion?.buildID ?? '';
  assert.deepEqual((await ns.buildDeployments()).get(build), {
    name: registered.status?.targetVersion?.deployments?.[0],
    replicas: 2,
    availableReplicas: 2,
  });
  // Several reconciles later (one a second): still not promoted.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const later = await ns.read('orders');
  assert.equal(later.status?.targetVersion?.status, 'Inactive');
  assert.equal(later.status?.currentVersion, undefined);
  const states = ['Ready', 'Progressing', 'Stalled'].map(
    (type) => `${type}=${condition(later, type)?.status}/${condition(later, type)?.reason}`,
  );
  assert.deepEqual(states, [
    'Ready=False/ManualPromotion',
    'Progressing=False/ManualPromotion',
    'Stalled=False/ManualPromotion',
  ]);
  assert.match(
    condition(later, 'Ready')?.message ?? '',
    new RegExp(
      `Manual strategy leaves routing to you: twc promote orders -n ${namespace}, or temporal worker deployment set-current-version --deployment-name ${namespace}/orders --build-id ${build}`,
    ),
  );
});
