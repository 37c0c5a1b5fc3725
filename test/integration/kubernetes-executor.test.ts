// A versions plan carried out against the real API server.
import { AppsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { executeVersionActions } from '../../src/controller/kubernetes-executor.ts';
import { replacementOf } from '../../src/k8s/deployment-drift.ts';
import { versionedDeployment } from '../../src/k8s/versioned-deployment.ts';
import type { VersionAction } from '../../src/planner/versions.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { create } from '../support/manifests.ts';

test('create, update, scale and delete run in order, are idempotent, and a failure stops the rest', async (t) => {
  const namespace = await testNamespace(t, 'executor');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  // A real owner: the garbage collector deletes Deployments whose owner does not exist.
  const workerDeployment = (await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerDeployment',
      metadata: { name: 'orders' },
      spec: {
        replicas: 1,
        workerOptions: {
          connectionRef: { name: 'temporal' },
          temporalNamespace: sharedEnvironment().temporalNamespace,
        },
        template: { spec: { containers: [{ name: 'worker', image: 'w:1' }] } },
      },
    },
    namespace,
  )) as unknown as TemporalWorkerDeployment;
  const moved = { hostPort: 'temporal.elsewhere:7233' };
  const objects = {
    created: (buildId: string) => {
      const deployment = versionedDeployment({
        workerDeployment,
        connection: { hostPort: sharedEnvironment().temporalAddress },
        buildId,
      });
      const spec = deployment.spec ?? assert.fail('a Deployment without a spec');
      // A Pod template without containers: the API server refuses it.
      return buildId === 'refused'
        ? { ...deployment, spec: { ...spec, template: { ...spec.template, spec: { containers: [] } } } }
        : deployment;
    },
    replacement: (name: string) => replacements.get(name) ?? assert.fail(`no replacement prepared for ${name}`),
  };
  const replacements = new Map<string, ReturnType<typeof replacementOf>>();
  const names = async () =>
    (await apps.listNamespacedDeployment({ namespace })).items
      .map((d) => `${d.metadata?.name} ${d.spec?.replicas}`)
      .sort();

  const first = await executeVersionActions(
    apps,
    namespace,
    [{ action: 'create', buildId: 'v1', reason: 'new' }],
    objects,
  );
  assert.equal(first.failed, undefined);
  const again = await executeVersionActions(
    apps,
    namespace,
    [{ action: 'create', buildId: 'v1', reason: 'new' }],
    objects,
  );
  assert.equal(again.failed, undefined, 'creating what exists is done, not an error');

  const plan: VersionAction[] = [
    { action: 'scale', deployment: 'orders-v1', buildId: 'v1', replicas: 0, reason: 'superseded' },
    { action: 'blocked', buildId: 'v3', condition: 'VersionLimitReached', reason: "not the executor's to act on" },
    { action: 'create', buildId: 'v2', reason: 'new target' },
  ];
  const result = await executeVersionActions(apps, namespace, plan, objects);
  assert.deepEqual(
    result.done.map((a) => a.action),
    ['create', 'scale'],
    'create first, then scale; nothing for blocked',
  );
  assert.deepEqual(await names(), ['orders-v1 0', 'orders-v2 1']);

  // A create the API server refuses runs first: the update, delete and scale after it must not happen.
  replacements.set(
    'orders-v2',
    replacementOf(await apps.readNamespacedDeployment({ namespace, name: 'orders-v2' }), undefined, moved),
  );
  const failing = await executeVersionActions(
    apps,
    namespace,
    [
      { action: 'scale', deployment: 'orders-v2', buildId: 'v2', replicas: 3, reason: 'follow spec' },
      { action: 'delete', deployment: 'orders-v1', buildId: 'v1', reason: 'drained' },
      { action: 'update', deployment: 'orders-v2', buildId: 'v2', reason: 'the connection changed' },
      { action: 'create', buildId: 'refused', reason: 'new target' },
    ],
    objects,
  );
  assert.equal(failing.failed?.action.action, 'create', 'the refused create is the failure reported');
  assert.equal((failing.failed?.error as { code?: number }).code, 422);
  assert.deepEqual(failing.done, [], 'nothing after the failure ran');
  assert.deepEqual(await names(), ['orders-v1 0', 'orders-v2 1'], 'nothing deleted or scaled');
  const untouched = await apps.readNamespacedDeployment({ namespace, name: 'orders-v2' });
  assert.equal(
    untouched.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'TEMPORAL_ADDRESS')?.value,
    sharedEnvironment().temporalAddress,
    'nothing rolled',
  );

  const rest = await executeVersionActions(
    apps,
    namespace,
    [
      { action: 'scale', deployment: 'orders-v2', buildId: 'v2', replicas: 3, reason: 'follow spec' },
      { action: 'scale', deployment: 'no-such-deployment', buildId: 'v9', replicas: 0, reason: 'gone' },
      { action: 'delete', deployment: 'orders-v1', buildId: 'v1', reason: 'drained' },
    ],
    objects,
  );
  assert.deepEqual(
    rest.done.map((a) => a.action),
    ['delete', 'scale'],
  );
  assert.equal(rest.failed?.action.action, 'scale');
  assert.equal((rest.failed?.error as { code?: number }).code, 404);

  const read = () => apps.readNamespacedDeployment({ namespace, name: 'orders-v2' });
  const update = {
    action: 'update',
    deployment: 'orders-v2',
    buildId: 'v2',
    reason: 'the connection changed',
  } as const;
  const before = await read();
  // The Deployment controller writes the status meanwhile: a read may be stale by the time it is used.
  await eventually('the update to land on a fresh read', async () => {
    replacements.set('orders-v2', replacementOf(await read(), undefined, moved));
    return (await executeVersionActions(apps, namespace, [update], objects)).failed ? undefined : true;
  });
  const after = await apps.readNamespacedDeployment({ namespace, name: 'orders-v2' });
  assert.equal(
    after.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'TEMPORAL_ADDRESS')?.value,
    moved.hostPort,
    'rolled to the new connection',
  );
  assert.equal(after.spec?.replicas, 3, "the replica count is not the update's to change");
  replacements.set('orders-v2', replacementOf(before, undefined, { hostPort: 'temporal.stale:7233' }));
  const stale = await executeVersionActions(apps, namespace, [update], objects);
  assert.equal((stale.failed?.error as { code?: number }).code, 409, 'a stale read is refused, not written over');
  await eventually('orders-v1 to be gone', async () => ((await names()).length === 1 ? true : undefined));
  assert.deepEqual(await names(), ['orders-v2 3']);
  assert.equal(
    (
      await executeVersionActions(
        apps,
        namespace,
        [{ action: 'delete', deployment: 'orders-v1', buildId: 'v1', reason: 'drained' }],
        objects,
      )
    ).failed,
    undefined,
    'deleting what is gone is done',
  );
});
