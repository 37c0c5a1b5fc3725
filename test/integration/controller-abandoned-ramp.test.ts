// A new build promoted while an older target still ramps: the older build's ramp goes in the same
// change, not a reconcile later, so no new workflow is sent to a build nobody wants any more.
import { optionalTsToDate } from '@temporalio/common/lib/time.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import { temporalClient, testNamespace } from '../support/environment.ts';

test('promoting a new build while an older target ramps clears that ramp in the same change', async (t) => {
  const namespace = await testNamespace(t, 'abandoned-ramp');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  await ns.until('orders', 'the first build to be current', rolledOut);
  await ns.patchSpec('orders', {
    rollout: { strategy: 'Progressive', steps: [{ rampPercentage: 40, pauseDuration: '1h' }] },
    template: ns.template('green'),
  });
  const ramping = await ns.until(
    'orders',
    'green to ramp at 40%',
    (twd) => twd.status?.targetVersion?.rampPercentage === 40,
  );
  const green = ramping.status?.targetVersion?.buildID;

  // A merge patch: null removes the steps.
  await ns.patchSpec('orders', { rollout: { strategy: 'AllAtOnce', steps: null }, template: ns.template('red') });
  const done = await ns.until('orders', 'red to be current', rolledOut);
  assert.notEqual(done.status?.currentVersion?.buildID, green);
  const routing = (
    await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName: `${namespace}/orders`,
    })
  ).workerDeploymentInfo?.routingConfig;
  assert.equal(routing?.rampingDeploymentVersion?.buildId ?? '', '', 'nothing ramps');
  const rampCleared = optionalTsToDate(routing?.rampingVersionChangedTime)?.getTime() ?? 0;
  const promoted = optionalTsToDate(routing?.currentVersionChangedTime)?.getTime() ?? 0;
  assert.ok(
    rampCleared <= promoted,
    `the ramp of ${green} was cleared with the promotion, not after it (${rampCleared - promoted} ms after)`,
  );
});
