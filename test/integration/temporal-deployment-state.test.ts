// The planners' view of Temporal, read from the real server as builds are promoted and drain.
import { AppsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDeployment, TemporalNamespaceNotFoundError } from '../../src/temporal/deployment-state.ts';
import { aroundCalls } from '../../src/temporal/service-calls.ts';
import {
  eventually,
  kubeConfig,
  temporalClient,
  temporalService,
  testNamespace,
  uniqueName,
} from '../support/environment.ts';
import { runSampleBuilds } from '../support/sample-deployment.ts';

test('describeDeployment follows a build from registered to current, ramping, draining and drained', async (t) => {
  const namespace = await testNamespace(t, 'state');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const client = await temporalClient(t);
  const service = client.workflowService;
  const temporalNamespace = client.options.namespace;
  const deploymentName = uniqueName('state');
  const taskQueue = uniqueName('state-queue');
  const controllerService = temporalService(t);
  const describe = () => describeDeployment(controllerService, temporalNamespace, deploymentName);

  // Temporal's NOT_FOUND says what is missing: no second read to tell a namespace from a deployment.
  const calls: string[] = [];
  const recorded = aroundCalls(
    controllerService,
    () => true,
    (request, call) => call(request),
    (method) => calls.push(method),
  );
  assert.deepEqual(
    await describeDeployment(recorded, temporalNamespace, deploymentName),
    { exists: false, versions: [] },
    'unknown until a worker polls',
  );
  await assert.rejects(
    describeDeployment(recorded, uniqueName('no-such-namespace'), deploymentName),
    TemporalNamespaceNotFoundError,
  );
  assert.deepEqual(calls, ['describeWorkerDeployment', 'describeWorkerDeployment']);

  await runSampleBuilds(apps, namespace, deploymentName, taskQueue, ['v1', 'v2']);
  const registered = await eventually('both builds to register', async () => {
    const state = await describe();
    return state.versions.length === 2 ? state : undefined;
  });
  assert.equal(registered.exists, true);
  assert.deepEqual(registered.versions.map((v) => [v.buildId, v.status, v.everActive]).sort(), [
    ['v1', 'Inactive', false],
    ['v2', 'Inactive', false],
  ]);
  assert.equal(registered.currentBuildId, undefined);
  assert.ok(registered.conflictToken, 'a conflict token to carry');

  await service.setWorkerDeploymentCurrentVersion({
    namespace: temporalNamespace,
    deploymentName,
    buildId: 'v1',
    conflictToken: registered.conflictToken,
    identity: 'test',
  });
  const current = await describe();
  assert.equal(current.currentBuildId, 'v1');
  assert.equal(current.versions.find((v) => v.buildId === 'v1')?.status, 'Current');

  const before = new Date();
  await service.setWorkerDeploymentRampingVersion({
    namespace: temporalNamespace,
    deploymentName,
    buildId: 'v2',
    percentage: 20,
    conflictToken: current.conflictToken,
    identity: 'test',
  });
  const ramping = await describe();
  assert.equal(ramping.rampingBuildId, 'v2');
  assert.equal(ramping.rampPercentage, 20);
  assert.equal(ramping.versions.find((v) => v.buildId === 'v2')?.status, 'Ramping');
  assert.ok(
    ramping.rampChangedAt && ramping.rampChangedAt.getTime() >= before.getTime() - 1000,
    `the ramp's change time: ${String(ramping.rampChangedAt)}`,
  );

  await service.setWorkerDeploymentCurrentVersion({
    namespace: temporalNamespace,
    deploymentName,
    buildId: 'v2',
    conflictToken: ramping.conflictToken,
    identity: 'test',
  });
  // No workflow is pinned to v1, so it drains at once (the environment refreshes drainage every second).
  const drained = await eventually('v1 to be drained', async () => {
    const state = await describe();
    return state.versions.find((v) => v.buildId === 'v1' && v.status === 'Drained') ? state : undefined;
  });
  const v1 = drained.versions.find((v) => v.buildId === 'v1');
  assert.equal(drained.currentBuildId, 'v2');
  assert.equal(drained.rampingBuildId, undefined, 'promoting the ramping build ends the ramp');
  assert.equal(v1?.everActive, true);
  assert.ok(v1?.drainedSince instanceof Date, 'drained since a time');
});
