// A connection that does not exist stops the controller with a condition that says so; nothing
// is deleted or forgotten meanwhile, and the rollout goes on once the connection exists. (A
// connection in use cannot go away: its finalizer holds it, see controller-deletion.test.ts.)
import { AppsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlledNamespace, createTemporalConnection } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';

test('a missing connection sets Stalled/ConnectionNotFound and keeps every Deployment and the known builds', async (t) => {
  const namespace = await testNamespace(t, 'noconn');
  const ns = await controlledNamespace(t, namespace);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const current = await eventually(
    'the build to be current',
    async () => {
      const twd = await ns.read('orders');
      return twd.status?.currentVersion ? twd : undefined;
    },
    90_000,
  );

  await ns.patchSpec('orders', {
    workerOptions: { connectionRef: { name: 'elsewhere' } },
    template: ns.template('green'),
  });
  const stalled = await eventually('the Stalled condition', async () => {
    const twd = await ns.read('orders');
    return twd.status?.conditions?.find((c) => c.type === 'Stalled' && c.reason === 'ConnectionNotFound')
      ? twd
      : undefined;
  });
  assert.match(
    stalled.status?.conditions?.find((c) => c.type === 'Stalled')?.message ?? '',
    new RegExp(`TemporalConnection ${namespace}/elsewhere does not exist`),
  );
  assert.equal(
    stalled.status?.currentVersion?.buildID,
    current.status?.currentVersion?.buildID,
    'the known builds are kept',
  );
  assert.equal(
    (await apps.listNamespacedDeployment({ namespace })).items.length,
    1,
    'no Deployment created or deleted meanwhile',
  );

  await createTemporalConnection(namespace, { hostPort: sharedEnvironment().temporalAddress }, 'elsewhere');
  const resumed = await eventually(
    'the rollout to go on once the connection is back',
    async () => {
      const twd = await ns.read('orders');
      const build = twd.status?.currentVersion?.buildID;
      return build && build !== current.status?.currentVersion?.buildID && build === twd.status?.targetVersion?.buildID
        ? twd
        : undefined;
    },
    90_000,
  );
  assert.equal(
    resumed.status?.conditions?.some((c) => c.type === 'Stalled' && c.status === 'True'),
    false,
    'and nothing stalls any more',
  );
});
