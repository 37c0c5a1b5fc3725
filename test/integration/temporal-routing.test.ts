// Routing changes against the real server: the manager identity is claimed when the plan says so,
// every change carries the conflict token, a change decided on stale state is refused, and so is
// one made while another identity manages the deployment. Its Worker Deployment answers not found
// for a moment after each change (its workflow continues as new): each read waits that out.
import { AppsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import { describeDeployment } from '../../src/temporal/deployment-state.ts';
import { changeRouting, type RoutingTarget } from '../../src/temporal/routing.ts';
import {
  eventually,
  kubeConfig,
  sharedEnvironment,
  temporalService,
  testNamespace,
  uniqueName,
} from '../support/environment.ts';
import { runSampleBuilds } from '../support/sample-deployment.ts';

test('changeRouting claims the manager identity when asked, carries the conflict token and cannot override another manager', async (t) => {
  const namespace = await testNamespace(t, 'routing');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const deploymentName = uniqueName('routing');
  const taskQueue = uniqueName('routing-queue');
  const target: RoutingTarget = {
    service: temporalService(t),
    namespace: sharedEnvironment().temporalNamespace,
    deploymentName,
    identity: `twc-test-${uniqueName('install')}`,
  };
  const describeWhen = (what: string, done: (state: TemporalDeploymentState) => boolean) =>
    eventually(what, async () => {
      const state = await describeDeployment(target.service, target.namespace, deploymentName);
      return state.exists && done(state) ? state : undefined;
    });
  const describe = () => describeWhen('Temporal to describe the Worker Deployment', () => true);
  await runSampleBuilds(apps, namespace, deploymentName, taskQueue, ['v1', 'v2']);
  const registered = await describeWhen('both builds to register', (state) => state.versions.length === 2);
  assert.equal(registered.managerIdentity, undefined);

  const token = (state: { conflictToken?: Uint8Array }) =>
    state.conflictToken ? { conflictToken: state.conflictToken } : {};
  await changeRouting(target, { action: 'setCurrent', buildId: 'v1', claimManager: true, ...token(registered) });
  const current = await describe();
  assert.equal(current.currentBuildId, 'v1');
  assert.equal(current.managerIdentity, target.identity, 'the free manager identity was claimed');
  assert.equal(current.lastModifierIdentity, target.identity);

  await assert.rejects(
    changeRouting(target, {
      action: 'setRamp',
      buildId: 'v2',
      percentage: 20,
      claimManager: false,
      ...token(registered),
    }),
    'a change decided on stale state is refused',
  );
  assert.equal((await describe()).rampingBuildId, undefined, 'and changed nothing');

  await changeRouting(target, {
    action: 'setRamp',
    buildId: 'v2',
    percentage: 20,
    claimManager: false,
    ...token(current),
  });
  const ramping = await describe();
  assert.deepEqual([ramping.rampingBuildId, ramping.rampPercentage], ['v2', 20]);
  await changeRouting(target, { action: 'clearRamp', claimManager: false, ...token(ramping) });
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
    changeRouting(target, { action: 'setCurrent', buildId: 'v2', claimManager: false, ...token(elsewhere) }),
    'the server refuses a change from an identity that does not manage the deployment',
  );
  assert.equal((await describe()).currentBuildId, 'v1', 'nothing changed under another manager');
});
