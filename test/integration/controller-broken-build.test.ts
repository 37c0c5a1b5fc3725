// A build that never becomes available: the current build keeps all traffic, the status says
// which Deployment is stuck and where to look, and the next good build clears it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { testNamespace } from '../support/environment.ts';

test('a build stuck past progressDeadlineSeconds is Stalled, takes no traffic, and a fixed build rolls out', async (t) => {
  const namespace = await testNamespace(t, 'broken-build');
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, progressDeadlineSeconds: 5, template: ns.template('blue') });
  const v1 = (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID;

  const broken = ns.template('green') as { spec: { containers: { env: object[] }[] } };
  broken.spec.containers[0]?.env.push({
    name: 'PASSWORD',
    valueFrom: { secretKeyRef: { name: 'no-such-secret', key: 'password' } },
  });
  await ns.patchSpec('orders', { template: broken });
  const stalled = await ns.until(
    'orders',
    'the broken build to be reported Stalled',
    (twd) => condition(twd, 'Stalled')?.reason === 'BuildNotAvailable',
    90_000,
  );
  const message = condition(stalled, 'Stalled')?.message ?? '';
  assert.match(message, /ProgressDeadlineExceeded/);
  assert.match(
    message,
    new RegExp(`Deployment orders-${stalled.status?.targetVersion?.buildID}`),
    'names the Deployment',
  );
  assert.equal(stalled.status?.currentVersion?.buildID, v1, 'the good build keeps the traffic');
  assert.equal(condition(stalled, 'Ready')?.status, 'False');

  await ns.patchSpec('orders', { template: ns.template('yellow') });
  const fixed = await ns.until(
    'orders',
    'the fixed build to be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  assert.equal(condition(fixed, 'Stalled')?.status, 'False', 'nothing stalls any more');
});
