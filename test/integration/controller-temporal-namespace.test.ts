// A Temporal namespace that does not exist: the status says so, nothing is created or deleted
// meanwhile, and the rollout resumes once the spec names a namespace that exists.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { sharedEnvironment, testNamespace, uniqueName } from '../support/environment.ts';

const namespaceMissing = (twd: Parameters<typeof condition>[0]) =>
  condition(twd, 'Stalled')?.reason === 'TemporalNamespaceNotFound';

test('a Temporal namespace that does not exist stalls with TemporalNamespaceNotFound and touches no Deployment', async (t) => {
  const namespace = await testNamespace(t, 'tns');
  const ns = await controlledNamespace(t, namespace);
  const missing = uniqueName('does-not-exist');

  await ns.createWorkerDeployment('fresh', {
    replicas: 1,
    workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: missing },
    template: ns.template('blue'),
  });
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const running = await ns.until('orders', 'orders to be current', rolledOut);
  const fresh = await ns.until('fresh', 'the condition on a new worker deployment', namespaceMissing);
  assert.match(
    condition(fresh, 'Stalled')?.message ?? '',
    new RegExp(`Temporal namespace "${missing}" does not exist`),
  );
  const before = await ns.buildDeployments();
  assert.deepEqual(
    [...before.keys()],
    [running.status?.currentVersion?.buildID],
    'no Deployment for the worker deployment whose namespace is missing',
  );

  // A running worker deployment pointed at a missing namespace (and a new template): nothing moves.
  await ns.patchSpec('orders', {
    workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: missing },
    template: ns.template('green'),
  });
  const stalled = await ns.until('orders', 'the condition on a running worker deployment', namespaceMissing);
  assert.equal(
    stalled.status?.currentVersion?.buildID,
    running.status?.currentVersion?.buildID,
    'the known builds are kept',
  );
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.deepEqual(await ns.buildDeployments(), before, 'no Deployment created, scaled or deleted meanwhile');

  await ns.patchSpec('orders', {
    workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: sharedEnvironment().temporalNamespace },
  });
  const resumed = await ns.until(
    'orders',
    'the rollout to go on with the namespace fixed',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== running.status?.currentVersion?.buildID,
  );
  assert.equal(condition(resumed, 'Stalled')?.status, 'False');
});
