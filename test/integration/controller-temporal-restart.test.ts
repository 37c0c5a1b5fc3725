// A Temporal server that goes away mid-rollout and comes back with its state: meanwhile the
// controller says so and touches no Deployment; afterwards the rollout completes, the workers
// having reconnected, and no Deployment was deleted or scaled down on the way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { testNamespace } from '../support/environment.ts';
import { ownTemporal } from '../support/own-temporal.ts';

test('Temporal stopped and started again mid-ramp: the rollout completes with no Deployment lost', async (t) => {
  const temporal = await ownTemporal(t, {}, { keepState: true });
  const namespace = await testNamespace(t, 'temporal-restart');
  const ns = await controlledNamespace(t, namespace, { temporalAddress: temporal.address });
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Progressive', steps: [{ rampPercentage: 50, pauseDuration: '30s' }] },
    template: ns.template('v0'),
  });
  const v0 = (await ns.until('orders', 'v0 to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  // From here on every look at the Deployments must find both builds' Deployments at 1 replica.
  const losses: string[] = [];
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const deployments = await ns.buildDeployments();
      for (const [build, d] of deployments)
        if (d.replicas !== 1) losses.push(`${build} at ${d.replicas ?? 'unset'} replicas`);
      if (!deployments.has(v0)) losses.push(`${v0} has no Deployment`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  t.after(async () => {
    watching = false;
    await watcher;
  });

  await ns.patchSpec('orders', { template: ns.template('v1') });
  const ramping = await ns.until(
    'orders',
    'v1 to ramp at 50%',
    (twd) => twd.status?.targetVersion?.rampPercentage === 50 && twd.status.targetVersion.buildID !== v0,
  );
  const v1 = ramping.status?.targetVersion?.buildID ?? '';

  await temporal.stop();
  const down = await ns.until(
    'orders',
    'the outage to show',
    (twd) => condition(twd, 'Progressing')?.reason === 'TemporalUnreachable',
    60_000,
  );
  assert.equal(condition(down, 'Progressing')?.status, 'False');
  assert.match(condition(down, 'Progressing')?.message ?? '', new RegExp(temporal.address.replaceAll('.', '\\.')));
  // A few reconciles against the absent server, past the step's pause.
  await new Promise((resolve) => setTimeout(resolve, 35_000));
  await temporal.start();

  await ns.until(
    'orders',
    'v1 to be current after the restart',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID === v1,
    180_000,
  );
  watching = false;
  await watcher;
  const deployments = await ns.buildDeployments();
  assert.deepEqual([...deployments.keys()].sort(), [v0, v1].sort(), 'both builds keep their Deployments');
  assert.deepEqual(losses, [], 'no Deployment went missing or was scaled down at any time');
});
