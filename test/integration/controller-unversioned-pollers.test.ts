// Unversioned workers already polling the task queue: the first Progressive rollout ramps from them
// instead of promoting directly; AllAtOnce still promotes and Manual still leaves routing alone.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import { testNamespace } from '../support/environment.ts';
import { runUnversionedWorker } from '../support/unversioned-worker.ts';

suite('with unversioned pollers on the task queue', { concurrency: true }, () => {
  test('Progressive: the first build ramps at its first step instead of becoming current', async (t) => {
    const namespace = await testNamespace(t, 'unv-progressive');
    const ns = await controlledNamespace(t, namespace);
    await runUnversionedWorker(t, ns.taskQueue);
    const steps = [{ rampPercentage: 5, pauseDuration: '1h' }];
    await ns.createWorkerDeployment('orders', {
      replicas: 1,
      rollout: { strategy: 'Progressive', steps },
      template: ns.template('blue'),
    });
    const ramping = await ns.until(
      'orders',
      'the first build to ramp',
      (twd) => twd.status?.targetVersion?.status === 'Ramping' || twd.status?.currentVersion !== undefined,
    );
    assert.equal(
      ramping.status?.currentVersion,
      undefined,
      'not promoted: unversioned workers keep the rest of the traffic',
    );
    assert.equal(ramping.status?.targetVersion?.rampPercentage, 5);
  });

  test('AllAtOnce: the first build still becomes current', async (t) => {
    const namespace = await testNamespace(t, 'unv-allatonce');
    const ns = await controlledNamespace(t, namespace);
    await runUnversionedWorker(t, ns.taskQueue);
    await ns.createWorkerDeployment('orders', {
      replicas: 1,
      rollout: { strategy: 'AllAtOnce' },
      template: ns.template('blue'),
    });
    await ns.until('orders', 'the first build to be current', rolledOut);
  });

  test('Manual: the first build registers and stays Inactive', async (t) => {
    const namespace = await testNamespace(t, 'unv-manual');
    const ns = await controlledNamespace(t, namespace);
    await runUnversionedWorker(t, ns.taskQueue);
    await ns.createWorkerDeployment('orders', {
      replicas: 1,
      rollout: { strategy: 'Manual' },
      template: ns.template('blue'),
    });
    await ns.until(
      'orders',
      'the build to register and be available',
      (twd) => twd.status?.targetVersion?.status === 'Inactive' && twd.status.targetVersion.healthySince !== undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const later = await ns.read('orders');
    assert.equal(later.status?.targetVersion?.status, 'Inactive');
    assert.equal(later.status?.currentVersion, undefined);
  });
});
