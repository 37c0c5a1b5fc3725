// Deleting a worker deployment while a workflow pinned to one of its builds still runs: the build
// keeps its Deployment and Pods until the workflow is done, and the worker deployment says why;
// the force annotation deletes at once and says what it strands.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Client } from '@temporalio/client';
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import { condition, controlledNamespace, deleteWorkerDeployment, gone, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, temporalClient, testNamespace } from '../support/environment.ts';
import { pinnedWorkflow } from '../support/pinned-workflow.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

/** v1 current with a workflow pinned to it, then v2 current while v1 drains. */
async function pinnedToDrainingBuild(t: TestContext, prefix: string) {
  const namespace = await testNamespace(t, prefix);
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    template: ns.template('blue'),
  });
  const v1 = (await ns.until('orders', 'v1 to be current', rolledOut)).status?.currentVersion?.buildID ?? '';
  const workflow = await pinnedWorkflow(client, ns.taskQueue, v1);
  await ns.patchSpec('orders', { template: ns.template('green') });
  const draining = await ns.until(
    'orders',
    'v2 current while v1 drains',
    (twd) => rolledOut(twd) && twd.status?.deprecatedVersions?.find((v) => v.buildID === v1)?.status === 'Draining',
  );
  const v2 = draining.status?.currentVersion?.buildID ?? '';
  return { namespace, client, ns, v1, v2, workflow };
}

async function warnings(namespace: string, reason: string): Promise<string[]> {
  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
  return events.items
    .filter((e) => e.type === 'Warning' && e.reason === reason && e.involvedObject.name === 'orders')
    .map((e) => e.message ?? '');
}

/** True once Temporal lists no Worker Deployment of `orders`; until then, what it lists, said if the wait times out. */
async function temporalDeploymentGone(client: Client, namespace: string): Promise<true> {
  const state = await temporalOperator(client, temporalDeploymentName(namespace, 'orders')).describe();
  if (!state.exists) return true;
  throw new Error(
    `Temporal still lists it: current ${state.currentBuildId ?? 'none'}, versions ${JSON.stringify(state.versions)}`,
  );
}

test('deleting a worker deployment keeps the build a pinned workflow runs on until it finishes, and says so', async (t) => {
  const { namespace, client, ns, v1, v2, workflow } = await pinnedToDrainingBuild(t, 'delete-pinned');

  await deleteWorkerDeployment(namespace, 'orders');
  const waiting = await ns.until(
    'orders',
    'the deletion to wait for the pinned workflow',
    (twd) => condition(twd, 'Progressing')?.reason === 'DeletionWaitsForWorkflows',
  );
  assert.match(
    condition(waiting, 'Progressing')?.message ?? '',
    new RegExp(`^deletion waits for 1 running workflow on build ${v1} to finish: .*temporal.io/force-delete=true`),
  );
  assert.equal(condition(waiting, 'Ready')?.status, 'False');
  // Temporal's report stands 30 s before it is believed (DRAINED_REPORT_GRACE_MS).
  await eventually(
    "v2's Deployment to go once Temporal's report that it is drained has stood",
    async () => {
      const builds = await ns.buildDeployments();
      return builds.has(v2) ? undefined : builds;
    },
    90_000,
  );
  // Long past v2's drainage (the local server checks every second): v1 still has its Pod.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const kept = (await ns.buildDeployments()).get(v1);
  assert.ok(kept, "the draining build keeps its Deployment while its pinned workflow runs: v1's is gone");
  assert.deepEqual(
    kept.availableReplicas,
    1,
    'the draining build keeps its Pod while its pinned workflow runs: its Deployment has no available Pod',
  );
  const said = await warnings(namespace, 'DeletionWaitsForWorkflows');
  assert.equal(said.length, 1, `one Warning event, not one per reconcile: ${JSON.stringify(said)}`);
  assert.match(said[0] ?? '', new RegExp(`1 running workflow on build ${v1}`));

  await workflow.signal('finish');
  const report = (await workflow.result()) as RunReport;
  assert.deepEqual([report.startedOn.buildId, report.finishedOn.buildId], [v1, v1], 'the workflow finished on v1');
  await eventually('the worker deployment to be gone', () => gone(() => ns.read('orders')), 90_000);
  assert.equal((await ns.buildDeployments()).size, 0, 'no Deployment left');
  await eventually('Temporal to have no Worker Deployment left', () => temporalDeploymentGone(client, namespace));
});

test('the force annotation deletes at once, and a Warning says which workflows it strands', async (t) => {
  const { namespace, client, ns, v1, workflow } = await pinnedToDrainingBuild(t, 'delete-forced');
  t.after(() => workflow.terminate('test over').catch(() => undefined));

  await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace,
        plural: KINDS.TemporalWorkerDeployment.plural,
        name: 'orders',
        body: { metadata: { annotations: { 'temporal.io/force-delete': 'true' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  await deleteWorkerDeployment(namespace, 'orders');
  await eventually('the worker deployment to be gone', () => gone(() => ns.read('orders')), 90_000);
  assert.equal((await ns.buildDeployments()).size, 0, 'no Deployment left');
  await eventually('Temporal to have no Worker Deployment left', () => temporalDeploymentGone(client, namespace));
  const said = await warnings(namespace, 'ForcedDeletion');
  assert.ok(
    said.some((m) => m.includes(`1 running workflow on build ${v1}`)),
    `a Warning names the stranded workflow: ${JSON.stringify(said)}`,
  );
  assert.equal((await workflow.describe()).status.name, 'RUNNING', 'the workflow is stranded, as the event said');
});
