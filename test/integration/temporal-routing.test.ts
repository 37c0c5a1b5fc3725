// Routing changes against the real server: the manager identity is claimed only when free, every
// change carries the conflict token, and a change decided on stale state is refused.
import { AppsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDeployment } from '../../src/temporal/deployment-state.ts';
import { applyRouting, ManagedElsewhereError, type RoutingTarget } from '../../src/temporal/routing.ts';
import { eventually, kubeConfig, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';
import { runSampleBuilds } from '../support/sample-deployment.ts';

test('applyRouting claims a free manager identity, carries the conflict token and respects another manager', async (t) => {
  const namespace = await testNamespace(t, 'routing');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const client = await temporalClient(t);
  const deploymentName = uniqueName('routing');
  const taskQueue = uniqueName('routing-queue');
  const target: RoutingTarget = {
    service: client.workflowService,
    namespace: client.options.namespace,
    deploymentName,
    identity: `twc-test-${uniqueName('install')}`,
  };
  const describe = () => describeDeployment(target.service, target.namespace, deploymentName);
  await runSampleBuilds(apps, namespace, deploymentName, taskQueue, ['v1', 'v2']);
  const registered = await eventually('both builds to register', async () => {
    const state = await describe();
    return state.versions.length === 2 ? state : undefined;
  });
  assert.equal(registered.managerIdentity, undefined);

  await applyRouting(target, registered, { action: 'setCurrent', buildId: 'v1', reason: 'test' });
  const current = await describe();
  assert.equal(current.currentBuildId, 'v1');
  assert.equal(current.managerIdentity, target.identity, 'the free manager identity was claimed');
  assert.equal(current.lastModifierIdentity, target.identity);

  await assert.rejects(
    applyRouting(
      target,
      { ...registered, managerIdentity: target.identity },
      { action: 'setRamp', buildId: 'v2', percentage: 20, reason: 'test' },
    ),
    'a change decided on stale state is refused',
  );
  assert.equal((await describe()).rampingBuildId, undefined, 'and changed nothing');

  await applyRouting(target, current, { action: 'setRamp', buildId: 'v2', percentage: 20, reason: 'test' });
  const ramping = await describe();
  assert.deepEqual([ramping.rampingBuildId, ramping.rampPercentage], ['v2', 20]);
  await applyRouting(target, ramping, { action: 'clearRamp', reason: 'test' });
  const cleared = await describe();
  assert.equal(cleared.rampingBuildId, undefined);

  await target.service.setWorkerDeploymentManager({
    namespace: target.namespace,
    deploymentName,
    managerIdentity: 'ops-team',
    conflictToken: cleared.conflictToken,
    identity: 'ops-team',
  });
  const elsewhere = await describe();
  await assert.rejects(
    applyRouting(target, elsewhere, { action: 'setCurrent', buildId: 'v2', reason: 'test' }),
    (error: unknown) => {
      assert.ok(error instanceof ManagedElsewhereError);
      assert.equal(error.holder, 'ops-team');
      assert.match(error.message, /manager-identity unset/);
      return true;
    },
  );
  assert.equal((await describe()).currentBuildId, 'v1', 'nothing changed under another manager');
});
