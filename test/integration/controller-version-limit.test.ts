// maxIneligibleVersions: no new build is created while that many builds that took traffic are not
// yet drained and scaled down, whatever the strategy; shortening the sunset frees room and the
// rollout goes on. Builds that never took traffic do not count, and go after their own delay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Rollout } from '../../src/api/temporal-worker-deployment.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, testNamespace } from '../support/environment.ts';

test('at 3 builds not yet eligible for deletion, a new build is blocked (AllAtOnce, Manual, Progressive) until the sunset is shortened', async (t) => {
  const namespace = await testNamespace(t, 'limit');
  const ns = await controlledNamespace(t, namespace, { maxIneligibleVersions: 3 });
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    sunset: { scaledownDelay: '1h', deleteDelay: '1h' },
    template: ns.template('v0'),
  });
  const builds: string[] = [];
  for (const behaviour of ['v0', 'v1', 'v2']) {
    if (behaviour !== 'v0') await ns.patchSpec('orders', { template: ns.template(behaviour) });
    const twd = await ns.until(
      'orders',
      `${behaviour} to be current`,
      (w) => rolledOut(w) && !builds.includes(w.status?.currentVersion?.buildID ?? ''),
    );
    builds.push(twd.status?.currentVersion?.buildID ?? '');
  }
  await ns.until(
    'orders',
    'v0 and v1 to drain (keeping their replicas)',
    (twd) =>
      twd.status?.deprecatedVersions?.filter((v) => v.status === 'Drained' && !v.eligibleForDeletion).length === 2,
  );

  const strategies: [string, Rollout][] = [
    ['v3', { strategy: 'AllAtOnce' }],
    ['v4', { strategy: 'Manual' }],
    ['v5', { strategy: 'Progressive', steps: [{ rampPercentage: 5, pauseDuration: '1h' }] }],
  ];
  for (const [behaviour, rollout] of strategies) {
    await ns.patchSpec('orders', { rollout, template: ns.template(behaviour) });
    const blocked = await ns.until(
      'orders',
      `${behaviour} to be blocked (${rollout.strategy})`,
      (twd) =>
        !builds.includes(twd.status?.targetVersion?.buildID ?? '') &&
        condition(twd, 'Stalled')?.reason === 'VersionLimitReached',
    );
    builds.push(blocked.status?.targetVersion?.buildID ?? '');
    assert.match(
      condition(blocked, 'Stalled')?.message ?? '',
      /3 older builds took traffic and are not yet drained and scaled down \(limit 3\): /,
    );
    assert.equal(blocked.status?.targetVersion?.status, 'NotRegistered');
    assert.equal(blocked.status?.currentVersion?.buildID, builds[2], `${rollout.strategy}: v2 stays current`);
    assert.deepEqual(
      [...(await ns.buildDeployments()).keys()].sort(),
      builds.slice(0, 3).sort(),
      `${rollout.strategy}: no Deployment for the blocked build`,
    );
  }

  // v0 and v1 scaled to 0 are eligible: room for v5, which starts its first step.
  await ns.patchSpec('orders', { sunset: { scaledownDelay: '1s', deleteDelay: '1h' } });
  const ramping = await ns.until(
    'orders',
    'v5 to be created and ramp',
    (twd) => twd.status?.targetVersion?.status === 'Ramping',
  );
  assert.equal(ramping.status?.targetVersion?.buildID, builds[5]);
  assert.equal(condition(ramping, 'Stalled')?.status, 'False');
  assert.deepEqual(
    (ramping.status?.deprecatedVersions ?? [])
      .filter((v) => v.eligibleForDeletion)
      .map((v) => v.buildID)
      .sort(),
    builds.slice(0, 2).sort(),
  );
});

test('at a limit of 3, four builds in a row whose gate fails do not count: the next rolls out, and each that never took traffic is deleted after spec.sunset.unusedBuildDeleteDelay', async (t) => {
  const namespace = await testNamespace(t, 'unused');
  const ns = await controlledNamespace(t, namespace, { maxIneligibleVersions: 3 });
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    sunset: { scaledownDelay: '1h', deleteDelay: '1h', unusedBuildDeleteDelay: '15s' },
    template: ns.template('v0'),
  });
  const first = await ns.until('orders', 'v0 to be current', rolledOut);
  const current = first.status?.currentVersion?.buildID ?? '';
  const failing = { strategy: 'AllAtOnce', gate: { workflowType: 'gate', input: { pass: false, message: 'no' } } };
  const failed: string[] = [];
  for (const behaviour of ['f1', 'f2', 'f3', 'f4']) {
    await ns.patchSpec('orders', { rollout: failing, template: ns.template(behaviour) });
    const stalled = await ns.until(
      'orders',
      `${behaviour} to fail its gate`,
      (twd) =>
        condition(twd, 'Stalled')?.reason === 'GateFailed' &&
        !failed.includes(twd.status?.targetVersion?.buildID ?? ''),
    );
    failed.push(stalled.status?.targetVersion?.buildID ?? '');
  }
  await ns.patchSpec('orders', { rollout: { strategy: 'AllAtOnce', gate: null }, template: ns.template('v5') });
  const next = await ns.until(
    'orders',
    'v5 to be current, four failed builds and the limit of 3 notwithstanding',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== current,
  );
  assert.ok(!failed.includes(next.status?.currentVersion?.buildID ?? ''));
  assert.deepEqual(
    (next.status?.failedBuilds ?? []).map((f) => f.buildID),
    failed,
    'each failure remembered',
  );
  const retired = await eventually(
    "the failed builds' Deployments to be deleted once their delay is over",
    async () => {
      const left = [...(await ns.buildDeployments()).keys()];
      return failed.some((b) => left.includes(b)) ? undefined : left;
    },
    120_000,
  );
  assert.ok(retired.includes(current), 'the build that took traffic stays (scaledownDelay 1h)');
  const after = await ns.read('orders');
  assert.deepEqual(
    (after.status?.failedBuilds ?? []).map((f) => f.buildID),
    failed,
    'their failures stay in the status after they go',
  );
});
