// A plan's Kubernetes actions carried out against the real API server: in the order given, each
// idempotent, and a failure stops the rest and is reported with the API server's own words.
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { executePlan, type ExecutorDependencies } from '../../src/controller/execute.ts';
import { clusterClient } from '../../src/k8s/cluster-client.ts';
import { replacementOf } from '../../src/k8s/deployment-drift.ts';
import { versionedDeployment } from '../../src/k8s/versioned-deployment.ts';
import type { PlannedAction } from '../../src/planner/planned-action.ts';
import { Backoff, RetrySchedule } from '../../src/runtime/backoff.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { eventually, kubeConfig, kubernetesApi, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { create } from '../support/manifests.ts';

/** The executor's dependencies on the real API server; `events` holds the reason of each event recorded. */
function executorDependencies(t: TestContext): { deps: ExecutorDependencies; events: string[] } {
  const events: string[] = [];
  const deps: ExecutorDependencies = {
    cluster: clusterClient(kubernetesApi(t)),
    recordEvent: (_about, event) => Promise.resolve(void events.push(event.reason)),
    log: silentLogger,
    workerDeployments: () => [],
    now: () => new Date(),
    pollIntervalMs: 10_000,
    temporalBackoff: new Backoff({ baseMs: 1000, maxMs: 1000 }),
    copyRetries: new RetrySchedule<string>(new Backoff({ baseMs: 1000, maxMs: 1000 })),
  };
  return { deps, events };
}

test('Kubernetes actions run in the order given, are idempotent, and a failure stops the rest', async (t) => {
  const namespace = await testNamespace(t, 'executor');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  // A real owner: the garbage collector deletes Deployments whose owner does not exist.
  const workerDeployment = (await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerDeployment',
      metadata: { name: 'orders', finalizers: ['temporal.io/delete-protection'] },
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
  const { deps, events } = executorDependencies(t);
  const connection = {
    metadata: { name: 'temporal', namespace },
    spec: { hostPort: 'unused:7233' },
  } as TemporalConnection;
  const execute = (actions: PlannedAction[]) =>
    executePlan(deps, { key: `${namespace}/orders`, workerDeployment, connection }, actions);
  const build = (buildId: string) =>
    versionedDeployment({ workerDeployment, connection: { hostPort: sharedEnvironment().temporalAddress }, buildId });
  const createV = (buildId: string): PlannedAction => ({
    action: 'create',
    buildId,
    deployment: build(buildId),
    reason: 'new',
  });
  const names = async () =>
    (await apps.listNamespacedDeployment({ namespace })).items
      .map((d) => `${d.metadata?.name} ${d.spec?.replicas}`)
      .sort();

  assert.equal((await execute([createV('v1')])).failed, undefined);
  assert.equal((await execute([createV('v1')])).failed, undefined, 'creating what exists is done, not an error');
  const both = await execute([
    createV('v2'),
    { action: 'scale', deployment: 'orders-v1', buildId: 'v1', replicas: 0, reason: 'superseded' },
  ]);
  assert.deepEqual(
    both.done.map((a) => a.action),
    ['create', 'scale'],
  );
  assert.deepEqual(await names(), ['orders-v1 0', 'orders-v2 1']);

  // A Pod template without containers: the API server refuses it, and nothing after it runs.
  const refused = build('refused');
  const spec = refused.spec ?? assert.fail('a Deployment without a spec');
  const moved = { hostPort: 'temporal.elsewhere:7233' };
  const failing = await execute([
    {
      action: 'create',
      buildId: 'refused',
      deployment: { ...refused, spec: { ...spec, template: { ...spec.template, spec: { containers: [] } } } },
      reason: 'new target',
    },
    {
      action: 'update',
      deployment: 'orders-v2',
      buildId: 'v2',
      replacement: replacementOf(
        await apps.readNamespacedDeployment({ namespace, name: 'orders-v2' }),
        undefined,
        moved,
      ),
      reason: 'the connection changed',
    },
    { action: 'delete', deployment: 'orders-v1', buildId: 'v1', reason: 'drained' },
    { action: 'scale', deployment: 'orders-v2', buildId: 'v2', replicas: 3, reason: 'follow spec' },
  ]);
  assert.equal(failing.failed?.action.action, 'create', 'the refused create is the failure reported');
  assert.equal(failing.failed?.condition.reason, 'DeploymentCreateFailed');
  assert.match(
    failing.failed?.condition.message ?? '',
    /^new target: .*containers.*nothing more is changed until it succeeds$/,
  );
  assert.deepEqual(failing.done, [], 'nothing after the failure ran');
  assert.deepEqual(await names(), ['orders-v1 0', 'orders-v2 1'], 'nothing deleted or scaled');

  const rest = await execute([
    { action: 'delete', deployment: 'orders-v1', buildId: 'v1', reason: 'drained' },
    { action: 'scale', deployment: 'orders-v2', buildId: 'v2', replicas: 3, reason: 'follow spec' },
    { action: 'scale', deployment: 'no-such-deployment', buildId: 'v9', replicas: 0, reason: 'gone' },
  ]);
  assert.deepEqual(
    rest.done.map((a) => a.action),
    ['delete', 'scale'],
  );
  assert.equal(rest.failed?.condition.reason, 'DeploymentScaleFailed', 'scaling what does not exist fails');

  const read = () => apps.readNamespacedDeployment({ namespace, name: 'orders-v2' });
  const update = (replacement: ReturnType<typeof replacementOf>): PlannedAction => ({
    action: 'update',
    deployment: 'orders-v2',
    buildId: 'v2',
    replacement,
    reason: 'the connection changed',
  });
  const before = await read();
  // The Deployment controller writes the status meanwhile: a read may be stale by the time it is used.
  await eventually('the update to land on a fresh read', async () =>
    (await execute([update(replacementOf(await read(), undefined, moved))])).failed ? undefined : true,
  );
  const after = await read();
  const address = (d: typeof after) =>
    d.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'TEMPORAL_ADDRESS')?.value;
  assert.equal(address(after), moved.hostPort, 'rolled to the new connection');
  assert.equal(after.spec?.replicas, 3, "the replica count is not the update's to change");
  const stale = await execute([update(replacementOf(before, undefined, { hostPort: 'temporal.stale:7233' }))]);
  assert.equal(stale.failed?.condition.reason, 'DeploymentUpdateFailed', 'a stale read is refused, not written over');
  assert.equal(address(await read()), moved.hostPort);
  await eventually('orders-v1 to be gone', async () => ((await names()).length === 1 ? true : undefined));
  assert.equal(
    (await execute([{ action: 'delete', deployment: 'orders-v1', buildId: 'v1', reason: 'drained' }])).failed,
    undefined,
    'deleting what is gone is done',
  );
  assert.deepEqual(events.slice(0, 4), [
    'DeploymentCreated',
    'DeploymentCreated',
    'DeploymentCreated',
    'DeploymentScaled',
  ]);
});

test("worker deployments that put the connection's finalizer on from the same stale read all go on; after a change of its spec, one is refused", async (t) => {
  const namespace = await testNamespace(t, 'executor-finalizer');
  const { deps } = executorDependencies(t);
  const workerDeployment = (await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerDeployment',
      metadata: { name: 'orders' },
      spec: {
        workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'default' },
        template: { spec: { containers: [{ name: 'worker', image: 'w:1' }] } },
      },
    },
    namespace,
  )) as unknown as TemporalWorkerDeployment;
  const stale = (await create(
    {
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalConnection',
      metadata: { name: 'temporal' },
      spec: { hostPort: 'temporal:7233' },
    },
    namespace,
  )) as unknown as TemporalConnection;
  const addFinalizer: PlannedAction = { action: 'addFinalizer', kind: 'TemporalConnection', reason: 'in use' };
  const putOn = () =>
    executePlan(deps, { key: `${namespace}/orders`, workerDeployment, connection: stale }, [addFinalizer]);
  const stored = () =>
    kubeConfig().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'temporal.io',
      version: 'v1alpha1',
      namespace,
      plural: 'temporalconnections',
      name: 'temporal',
    }) as Promise<TemporalConnection>;

  const racing = await Promise.all([putOn(), putOn(), putOn()]);
  assert.deepEqual(
    racing.map((r) => r.failed?.condition.reason),
    [undefined, undefined, undefined],
  );
  assert.deepEqual((await stored()).metadata.finalizers, ['temporal.io/delete-protection']);

  await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .patchNamespacedCustomObject(
      {
        group: 'temporal.io',
        version: 'v1alpha1',
        namespace,
        plural: 'temporalconnections',
        name: 'temporal',
        body: { spec: { hostPort: 'temporal.elsewhere:7233' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  const afterChange = await putOn();
  assert.equal(afterChange.failed?.condition.reason, 'Conflict', 'planned on a spec that is no longer');
});
