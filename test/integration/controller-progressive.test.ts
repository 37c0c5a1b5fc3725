// Progressive end to end: the new build ramps through both steps, each timed by Temporal's ramp
// change time, then becomes current.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlledNamespace } from '../support/controller.ts';
import { eventually, testNamespace } from '../support/environment.ts';

test('Progressive with two steps ramps 10% then 50%, then promotes', async (t) => {
  const namespace = await testNamespace(t, 'progressive');
  const ns = await controlledNamespace(t, namespace);
  const steps = [
    { rampPercentage: 10, pauseDuration: '30s' },
    { rampPercentage: 50, pauseDuration: '30s' },
  ];
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Progressive', steps },
    template: ns.template('blue'),
  });
  const first = await eventually(
    'the first build to be current (no current build: promoted directly)',
    async () => {
      const twd = await ns.read('orders');
      return twd.status?.currentVersion && twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID
        ? twd
        : undefined;
    },
    90_000,
  );
  const v1 = first.status?.currentVersion?.buildID;

  await ns.patchSpec('orders', { template: ns.template('green') });
  const ramps: number[] = [];
  const promoted = await eventually(
    'the second build to ramp through both steps and become current',
    async () => {
      const twd = await ns.read('orders');
      const ramp = twd.status?.targetVersion?.rampPercentage;
      if (ramp !== undefined && ramps.at(-1) !== ramp) ramps.push(ramp);
      return twd.status?.currentVersion?.buildID !== v1 &&
        twd.status?.currentVersion?.buildID === twd.status?.targetVersion?.buildID
        ? twd
        : undefined;
    },
    150_000,
  );
  assert.deepEqual(ramps, [10, 50], 'both steps, in order');
  assert.ok(promoted.status?.currentVersion?.buildID);
});
