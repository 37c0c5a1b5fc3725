// A build the spec gives 0 replicas runs no workers, so it never registers in Temporal. That must
// never be taken for Temporal refusing it at its cap of versions: no drained build's record is
// deleted "to make room", and the status says at once why the build does not register.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { REGISTRATION_GRACE_MS } from '../../src/planner/versions.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { temporalClient, testNamespace } from '../support/environment.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

test("a target at 0 replicas is Stalled/BuildNotRegistered at once, and no drained build's record is deleted for it", async (t) => {
  const namespace = await testNamespace(t, 'zero');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const operator = temporalOperator(client, temporalDeploymentName(namespace, 'orders'));
  // Drained builds are scaled down at once and kept: each is a candidate to "make room".
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    sunset: { scaledownDelay: '1s', deleteDelay: '1h' },
    template: ns.template('v0'),
  });
  const v0 = (await ns.until('orders', 'v0 to be current', rolledOut, 90_000)).status?.currentVersion?.buildID ?? '';
  await ns.patchSpec('orders', { template: ns.template('v1') });
  await ns.until(
    'orders',
    'v1 to be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v0,
    90_000,
  );
  await ns.until(
    'orders',
    'v0 to be drained and scaled to 0',
    (twd) => twd.status?.deprecatedVersions?.find((v) => v.buildID === v0)?.eligibleForDeletion === true,
    90_000,
  );

  await ns.patchSpec('orders', { replicas: 0, template: ns.template('v2') });
  const stalled = await ns.until(
    'orders',
    'Stalled/BuildNotRegistered',
    (twd) => condition(twd, 'Stalled')?.reason === 'BuildNotRegistered',
    30_000,
  );
  assert.match(condition(stalled, 'Stalled')?.message ?? '', /runs no workers \(the spec gives it 0 replicas\)/);

  // Past the registration grace, when a guard that took the silence for the cap would have acted.
  await sleep(REGISTRATION_GRACE_MS + 10_000);
  assert.ok(
    (await operator.describe()).versions.some((v) => v.buildId === v0),
    `Temporal still records the drained build ${v0}`,
  );
  assert.equal(condition(await ns.read('orders'), 'Stalled')?.reason, 'BuildNotRegistered');
});
