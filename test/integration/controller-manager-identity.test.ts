// Another client holds the Worker Deployment's manager identity: the controller still runs the
// new build but leaves routing alone, says why, and takes over once the identity is released.
import assert from 'node:assert/strict';
import { suite, test, type TestContext } from 'node:test';
import type { Rollout } from '../../src/api/temporal-worker-deployment.ts';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { condition, controlledNamespace, rolledOut, type ControlledNamespace } from '../support/controller.ts';
import { temporalClient, testNamespace } from '../support/environment.ts';
import { temporalOperator, type TemporalOperator } from '../support/temporal-operator.ts';

const registered = (twd: Awaited<ReturnType<ControlledNamespace['read']>>, previous: string | undefined) =>
  twd.status?.targetVersion?.buildID !== previous &&
  twd.status?.targetVersion?.status === 'Inactive' &&
  twd.status.targetVersion.healthySince !== undefined;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** v0 is current (promoted by `promote`), then the operator claims the manager identity and the spec moves to v1, which runs and registers. */
async function blockedRollout(
  t: TestContext,
  prefix: string,
  rollout: Rollout,
  promote: (ns: ControlledNamespace, operator: TemporalOperator) => Promise<string>,
) {
  const namespace = await testNamespace(t, prefix);
  const ns = await controlledNamespace(t, namespace);
  const operator = temporalOperator(await temporalClient(t), temporalDeploymentName(namespace, 'orders'));
  await ns.createWorkerDeployment('orders', { replicas: 1, rollout, template: ns.template('blue') });
  const v0 = await promote(ns, operator);
  await operator.claimManager();
  await ns.patchSpec('orders', { template: ns.template('green') });
  const blocked = await ns.until('orders', 'v1 to run and register', (twd) => registered(twd, v0));
  // Several reconciles later (one a second), routing is still untouched.
  await pause(5000);
  const later = await ns.read('orders');
  assert.equal(later.status?.targetVersion?.status, 'Inactive', 'v1 is not promoted');
  assert.equal(later.status?.currentVersion?.buildID, v0, 'v0 stays current');
  const temporal = await operator.describe();
  assert.equal(temporal.managerIdentity, operator.identity, 'the controller did not take the manager identity');
  assert.equal(temporal.rampingBuildId, undefined, 'nor ramped anything');
  return { ns, operator, v0, v1: blocked.status?.targetVersion?.buildID ?? '', later };
}

/** The controller promotes the first build itself (there is no current build yet). */
const promotedByController = async (ns: ControlledNamespace) =>
  (await ns.until('orders', 'v0 to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

suite('manager identity held by another client', { concurrency: true }, () => {
  test('Manual: v1 stays Inactive while another client manages the deployment, and after it lets go', async (t) => {
    const { operator, v0, later } = await blockedRollout(
      t,
      'mgr-manual',
      { strategy: 'Manual' },
      async (ns, operator) => {
        const v0 =
          (await ns.until('orders', 'v0 to register', (twd) => registered(twd, undefined))).status?.targetVersion
            ?.buildID ?? '';
        await operator.setCurrent(v0);
        return v0;
      },
    );
    assert.equal(later.status?.managerIdentity, operator.identity, 'the status shows who manages it');
    await operator.releaseManager();
    await pause(5000);
    const released = await operator.describe();
    assert.equal(released.managerIdentity, undefined, 'Manual never claims the identity');
    assert.equal(released.currentBuildId, v0);
  });

  test('AllAtOnce: v1 waits with ManagedElsewhere naming the holder, then is promoted once the identity is released', async (t) => {
    const { ns, operator, v0, v1, later } = await blockedRollout(
      t,
      'mgr-allatonce',
      { strategy: 'AllAtOnce' },
      promotedByController,
    );
    const stalled = condition(later, 'Stalled');
    assert.equal(stalled?.reason, 'ManagedElsewhere');
    assert.match(stalled?.message ?? '', new RegExp(`managed by "${operator.identity}".*manager-identity unset`));
    await operator.releaseManager();
    const promoted = await ns.until(
      'orders',
      'v1 to be current and v0 drained',
      (twd) => rolledOut(twd) && twd.status?.deprecatedVersions?.find((v) => v.buildID === v0)?.status === 'Drained',
    );
    assert.equal(promoted.status?.currentVersion?.buildID, v1);
    assert.equal(promoted.status?.managerIdentity, ns.identity, 'the controller claimed the released identity');
    assert.equal(condition(promoted, 'Stalled')?.status, 'False');
  });

  test('Progressive: v1 waits, then starts at its first step once the identity is released', async (t) => {
    const rollout: Rollout = { strategy: 'Progressive', steps: [{ rampPercentage: 5, pauseDuration: '1h' }] };
    const { ns, operator, v0, v1, later } = await blockedRollout(t, 'mgr-progressive', rollout, promotedByController);
    assert.equal(condition(later, 'Stalled')?.reason, 'ManagedElsewhere');
    await operator.releaseManager();
    const ramping = await ns.until('orders', 'v1 to ramp', (twd) => twd.status?.targetVersion?.status === 'Ramping');
    assert.equal(ramping.status?.targetVersion?.buildID, v1);
    assert.equal(ramping.status?.targetVersion?.rampPercentage, 5, 'the first step');
    assert.equal(ramping.status?.currentVersion?.buildID, v0);
  });
});
