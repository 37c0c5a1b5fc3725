// Against a server that forgets pollers after 1s and holds at most 4 versions per deployment: a
// drained build scaled to 0 does not count against maxIneligibleVersions, and at the server's cap
// the record of the longest-drained, scaled-down build is deleted to make room (the server would
// do it itself, but not while the controller holds the manager identity), then its Deployment.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { controlledNamespace, rolledOut, type ControlledNamespace } from '../support/controller.ts';
import { eventually, testNamespace } from '../support/environment.ts';
import { ownTemporal } from '../support/own-temporal.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

const SERVER_MAX_VERSIONS = 4;

test('short poller TTL, server cap 4: a scaled-down drained build does not count against the limit, and makes room at the cap', async (t) => {
  const temporal = await ownTemporal(t, {
    'matching.PollerHistoryTTL': '1s',
    'matching.maxVersionsInDeployment': SERVER_MAX_VERSIONS,
  });
  const namespace = await testNamespace(t, 'ttl');
  const ns = await controlledNamespace(t, namespace, {
    maxIneligibleVersions: 3,
    maxVersionsInDeployment: SERVER_MAX_VERSIONS,
    temporalAddress: temporal.address,
  });
  const operator = temporalOperator(temporal.client, temporalDeploymentName(namespace, 'orders'));
  const builds: string[] = [];
  const rollTo = async (behaviour: string, spec: Record<string, unknown> = {}) => {
    await ns.patchSpec('orders', { ...spec, template: ns.template(behaviour) });
    const twd = await ns.until(
      'orders',
      `${behaviour} to be current`,
      (w) => rolledOut(w) && !builds.includes(w.status?.currentVersion?.buildID ?? ''),
    );
    builds.push(twd.status?.currentVersion?.buildID ?? '');
  };
  const deprecated = (twd: Awaited<ReturnType<ControlledNamespace['read']>>, build: string | undefined) =>
    twd.status?.deprecatedVersions?.find((v) => v.buildID === build);

  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    sunset: { scaledownDelay: '1s', deleteDelay: '1h' },
    template: ns.template('v0'),
  });
  builds.push((await ns.until('orders', 'v0 to be current', rolledOut)).status?.currentVersion?.buildID ?? '');
  await rollTo('v1');
  await ns.until(
    'orders',
    'v0 drained and scaled to 0',
    (twd) => deprecated(twd, builds[0])?.eligibleForDeletion === true,
  );
  // From now on drained builds keep their replicas: each one counts against the limit.
  await rollTo('v2', { sunset: { scaledownDelay: '1h', deleteDelay: '1h' } });
  await ns.until('orders', 'v1 drained', (twd) => deprecated(twd, builds[1])?.status === 'Drained');
  // Not eligible: v1 (drained, replicas kept) and v2 (current), 2 of 3. Were the scaled-down v0 counted, v3 would be blocked.
  await rollTo('v3');
  await ns.until('orders', 'v2 drained', (twd) => deprecated(twd, builds[2])?.status === 'Drained');
  assert.deepEqual(
    (await operator.describe()).versions.map((v) => v.buildId).sort(),
    builds.slice().sort(),
    'the server holds 4 versions: its cap',
  );

  // The next build needs room on the server: shortened, the sunset scales v1 and v2 down, which
  // frees the controller's limit; v4 runs but cannot register until a version record goes: v0's.
  await rollTo('v4', { sunset: { scaledownDelay: '1s', deleteDelay: '1h' } });
  // The server lists a new current version among its versions a moment after routing to it.
  const expected = builds.slice(1).sort();
  await eventually(
    'v0 to have made room for v4',
    async () => {
      const held = (await operator.describe()).versions.map((v) => v.buildId).sort();
      return JSON.stringify(held) === JSON.stringify(expected) ? true : undefined;
    },
    30_000,
  );
  await eventually("the controller to delete v0's Deployment, now unknown to Temporal", async () =>
    (await ns.buildDeployments()).has(builds[0] ?? '') ? undefined : true,
  );
  // Drainage is the server's to report, and slower while the whole suite loads the machine.
  const last = await ns.until(
    'orders',
    'the status to show v1 to v3 drained',
    (twd) => builds.slice(1, 4).every((b) => deprecated(twd, b)?.status === 'Drained'),
    150_000,
  );
  assert.equal(last.status?.currentVersion?.buildID, builds[4]);
  assert.equal(deprecated(last, builds[0]), undefined);
});
