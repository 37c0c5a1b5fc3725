// Rolling back to a build that was current within the rollback window: promoted at once, past
// the steps and the gate the spec asks for a new build.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { kubeConfig, testNamespace } from '../support/environment.ts';

test('a build current within the rollback window is promoted at once, without steps or gates, and that is logged once', async (t) => {
  const namespace = await testNamespace(t, 'rollback');
  const lines: string[] = [];
  const ns = await controlledNamespace(t, namespace, { log: (line) => lines.push(line) });
  // An hour before scale-down: the first build still runs when it is asked for again.
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    sunset: { scaledownDelay: '1h' },
    template: ns.template('blue'),
  });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';
  await ns.patchSpec('orders', { template: ns.template('green') });
  const second = await ns.until(
    'orders',
    'the second build to be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  assert.ok(
    second.status?.deprecatedVersions?.find((v) => v.buildID === v1)?.lastCurrentTime,
    'the status remembers when the first build stopped being current',
  );

  const slow = {
    strategy: 'Progressive',
    steps: [{ rampPercentage: 10, pauseDuration: '1h' }],
    gate: { workflowType: 'gate', input: { pass: false } },
  };
  await ns.patchSpec('orders', { rollout: slow, template: ns.template('blue') });
  const rolledBack = await ns.until(
    'orders',
    'the first build to be current again',
    (twd) => twd.status?.currentVersion?.buildID === v1,
  );
  assert.equal(rolledBack.status?.targetVersion?.rampPercentage, undefined, 'no ramp');
  assert.equal(condition(rolledBack, 'Stalled')?.status, 'False', 'no gate stood in the way');
  assert.equal(
    rolledBack.status?.deprecatedVersions?.find((v) => v.buildID === second.status?.currentVersion?.buildID)?.status !==
      undefined,
    true,
    'the second build is kept, deprecated',
  );

  await new Promise((resolve) => setTimeout(resolve, 3000));
  const logged = lines.filter((line) => /rolling back/.test(line));
  assert.equal(logged.length, 1, `logged once: ${lines.join('\n')}`);
  assert.deepEqual(
    Object.keys(JSON.parse(logged[0] ?? '') as object),
    ['level', 'time', 'kind', 'object', 'reconcile', 'build', 'action', 'msg'],
    'one JSON line',
  );
  assert.partialDeepStrictEqual(JSON.parse(logged[0] ?? ''), {
    level: 'info',
    kind: 'TemporalWorkerDeployment',
    object: `${namespace}/orders`,
    build: v1,
    action: 'route',
  });
  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
  assert.ok(
    events.items.some((e) => e.reason === 'VersionPromoted' && /rolling back/.test(e.message ?? '')),
    'and an event says so',
  );
});
