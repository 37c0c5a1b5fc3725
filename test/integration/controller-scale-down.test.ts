// Superseded builds: one never promoted is scaled to 0 at once, since no workflow can be pinned
// to it; a drained one keeps its replicas until scaledownDelay, under Manual and AllAtOnce alike.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { controlledNamespace, rolledOut, type ControlledNamespace } from '../support/controller.ts';
import { temporalClient, testNamespace } from '../support/environment.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

type Read = Awaited<ReturnType<ControlledNamespace['read']>>;
const registeredOther = (previous: string[]) => (twd: Read) =>
  !previous.includes(twd.status?.targetVersion?.buildID ?? '') &&
  twd.status?.targetVersion?.status === 'Inactive' &&
  twd.status.targetVersion.healthySince !== undefined;
const buildOf = (twd: Read) => twd.status?.targetVersion?.buildID ?? '';

/** v0 Drained with its replica, v1 Inactive scaled to 0, the target v2 as `expected`. */
async function expectScaledDown(ns: ControlledNamespace, v0: string, v1: string, v2Done: (twd: Read) => boolean) {
  const settled = await ns.until('orders', 'v1 scaled to 0 while v0 keeps its replica', (twd) => {
    const deprecated = new Map((twd.status?.deprecatedVersions ?? []).map((v) => [v.buildID, v.status]));
    return v2Done(twd) && deprecated.get(v0) === 'Drained' && deprecated.get(v1) === 'Inactive';
  });
  const deployments = await ns.buildDeployments();
  assert.equal(deployments.get(v1)?.replicas, 0, 'the never-promoted build is scaled to 0');
  assert.equal(
    deployments.get(v0)?.replicas,
    1,
    'the drained build keeps its replica: scaledownDelay (1h) has not passed',
  );
  assert.equal(deployments.get(buildOf(settled))?.replicas, 1);
  return settled;
}

suite('scale-down of superseded builds', { concurrency: true }, () => {
  test('Manual: v0 drained by hand keeps its replica, v1 never promoted goes to 0, v2 Inactive', async (t) => {
    const namespace = await testNamespace(t, 'sd-manual');
    const ns = await controlledNamespace(t, namespace);
    const operator = temporalOperator(await temporalClient(t), temporalDeploymentName(namespace, 'orders'));
    await ns.createWorkerDeployment('orders', {
      replicas: 1,
      rollout: { strategy: 'Manual' },
      template: ns.template('blue'),
    });
    const v0 = buildOf(await ns.until('orders', 'v0 to register', registeredOther([])));
    // What a person does under Manual: make v0 current, then route back to unversioned; v0 drains.
    await operator.setCurrent(v0);
    await operator.setCurrent('');
    await ns.until('orders', 'v0 to drain', (twd) => twd.status?.targetVersion?.status === 'Drained');
    await ns.patchSpec('orders', { template: ns.template('green') });
    const v1 = buildOf(await ns.until('orders', 'v1 to register', registeredOther([v0])));
    await ns.patchSpec('orders', { template: ns.template('red') });
    const settled = await expectScaledDown(ns, v0, v1, registeredOther([v0, v1]));
    assert.equal(settled.status?.currentVersion, undefined, 'Manual promoted nothing');
  });

  test('AllAtOnce: v2 current, v0 drained keeps its replica, v1 never promoted goes to 0', async (t) => {
    const namespace = await testNamespace(t, 'sd-allatonce');
    const ns = await controlledNamespace(t, namespace);
    await ns.createWorkerDeployment('orders', {
      replicas: 1,
      rollout: { strategy: 'AllAtOnce' },
      template: ns.template('blue'),
    });
    const v0 = buildOf(await ns.until('orders', 'v0 to be current', rolledOut));
    // v1 is held back by switching to Manual with it, so it registers without ever taking traffic.
    await ns.patchSpec('orders', { rollout: { strategy: 'Manual' }, template: ns.template('green') });
    const v1 = buildOf(await ns.until('orders', 'v1 to register', registeredOther([v0])));
    await ns.patchSpec('orders', { rollout: { strategy: 'AllAtOnce' }, template: ns.template('red') });
    const settled = await expectScaledDown(ns, v0, v1, rolledOut);
    assert.notEqual(settled.status?.currentVersion?.buildID, v1);
  });
});
