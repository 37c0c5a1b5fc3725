// Deleting a TemporalWorkerDeployment: the finalizer holds it until its Deployments are gone and
// Temporal no longer has its Worker Deployment; the connection is held while it is needed.
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { FINALIZER } from '../../src/domain/finalizer.ts';
import { describeDeployment } from '../../src/temporal/deployment-state.ts';
import { controlledNamespace, deleteWorkerDeployment, gone, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, temporalService, testNamespace } from '../support/environment.ts';

const plural = (kind: keyof typeof KINDS) => KINDS[kind].plural;

test('deleting a worker deployment removes its Deployments and its Worker Deployment from Temporal, then the object', async (t) => {
  const namespace = await testNamespace(t, 'deletion');
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const ns = await controlledNamespace(t, namespace);
  const deploymentName = `${namespace}/orders`;
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    template: ns.template('blue'),
  });
  const rolled = await ns.until('orders', 'the build to be current', rolledOut);
  assert.deepEqual(rolled.metadata.finalizers, [FINALIZER]);
  const connection = (await custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: plural('TemporalConnection'),
    name: 'temporal',
  })) as { metadata: { finalizers?: string[] } };
  assert.deepEqual(
    connection.metadata.finalizers,
    [FINALIZER],
    'the connection is held while a worker deployment uses it',
  );

  await deleteWorkerDeployment(namespace, 'orders');
  await eventually('the worker deployment to be gone', () => gone(() => ns.read('orders')), 90_000);
  assert.equal((await apps.listNamespacedDeployment({ namespace })).items.length, 0, 'no Deployment left');
  const state = await describeDeployment(temporalService(t), sharedEnvironment().temporalNamespace, deploymentName);
  assert.equal(state.exists, false, `Temporal still has ${deploymentName}: ${JSON.stringify(state.versions)}`);
  await eventually('the connection to be let go', async () => {
    const after = (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: plural('TemporalConnection'),
      name: 'temporal',
    })) as { metadata: { finalizers?: string[] } };
    return (after.metadata.finalizers ?? []).length === 0 ? true : undefined;
  });

  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
  const reasons = new Set(events.items.filter((e) => e.involvedObject.name === 'orders').map((e) => e.reason));
  for (const reason of ['DeploymentCreated', 'VersionPromoted', 'DeploymentDeleted', 'TemporalCleanedUp'])
    assert.ok(reasons.has(reason), `an event ${reason} (saw ${[...reasons].join(', ')})`);
});

test('a connection deleted first waits, Terminating, saying which worker deployment holds it, until that one is cleaned up', async (t) => {
  const namespace = await testNamespace(t, 'deletion-conn');
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const ns = await controlledNamespace(t, namespace);
  const connectionObject = {
    group: GROUP,
    version: VERSION,
    namespace,
    plural: plural('TemporalConnection'),
    name: 'temporal',
  };
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Manual' },
    template: ns.template('blue'),
  });
  await ns.until('orders', 'the build to register', (twd) => twd.status?.targetVersion?.status === 'Inactive');

  await custom.deleteNamespacedCustomObject(connectionObject);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const terminating = (await custom.getNamespacedCustomObject(connectionObject)) as {
    metadata: { deletionTimestamp?: string };
  };
  assert.ok(terminating.metadata.deletionTimestamp, 'the connection is held while a worker deployment uses it');
  const held = await eventually('the connection to say what holds it', async () => {
    const read = (await custom.getNamespacedCustomObject(connectionObject)) as {
      status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
    };
    return read.status?.conditions?.find((c) => c.type === 'Ready' && c.reason === 'InUse');
  });
  assert.match(held.message, new RegExp(`while worker deployments use it: ${namespace}/orders; delete them`));
  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
  assert.ok(
    events.items.some(
      (e) => e.reason === 'ConnectionInUse' && e.type === 'Warning' && e.involvedObject.kind === 'TemporalConnection',
    ),
    'and a Warning event on the connection',
  );

  await deleteWorkerDeployment(namespace, 'orders');
  await eventually('the worker deployment to be gone', () => gone(() => ns.read('orders')), 90_000);
  await eventually(
    'the connection to be gone',
    () => gone(() => custom.getNamespacedCustomObject(connectionObject)),
    30_000,
  );
  const state = await describeDeployment(
    temporalService(t),
    sharedEnvironment().temporalNamespace,
    `${namespace}/orders`,
  );
  assert.equal(state.exists, false, 'cleaned up in Temporal through the held connection');
});
