// The controller end to end on the real environment: a new build becomes current, the old one
// drains, is scaled down and deleted, and its Temporal record goes.
import { AppsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDeployment } from '../../src/temporal/deployment-state.ts';
import type { Metrics } from '../../src/runtime/metrics.ts';
import { controlledNamespace } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, temporalClient, testNamespace } from '../support/environment.ts';

test('AllAtOnce: v1 becomes current; a template change makes v2 current while v1 drains, scales down and is deleted', async (t) => {
  const namespace = await testNamespace(t, 'allatonce');
  const client = await temporalClient(t);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, rollout: { strategy: 'AllAtOnce' }, sunset: { scaledownDelay: '2s', deleteDelay: '2s' }, template: ns.template('blue') });

  const first = await eventually('the first build to be current', async () => {
    const twd = await ns.read('orders');
    return twd.status?.currentVersion?.buildID && twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID ? twd : undefined;
  }, 90_000);
  const v1 = first.status?.currentVersion?.buildID ?? '';
  assert.equal(first.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');

  await ns.patchSpec('orders', { template: ns.template('green') });
  const second = await eventually('the second build to be current', async () => {
    const twd = await ns.read('orders');
    return twd.status?.currentVersion?.buildID && twd.status.currentVersion.buildID !== v1 && twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID ? twd : undefined;
  }, 90_000);
  const v2 = second.status?.currentVersion?.buildID ?? '';
  assert.notEqual(v2, v1);

  await eventually('the first build\'s Deployment to be deleted after the sunset delays', async () => {
    const names = (await apps.listNamespacedDeployment({ namespace })).items.map((d) => d.metadata?.labels?.['temporal.io/build-id']);
    return names.length === 1 && names[0] === v2 ? true : undefined;
  }, 90_000);
  await eventually('Temporal\'s record of the first build to be deleted', async () => {
    const state = await describeDeployment(client.workflowService, sharedEnvironment().temporalNamespace, `${namespace}/orders`);
    return state.versions.some((v) => v.buildId === v1) ? undefined : true;
  }, 90_000);

  // Settled: reconciles keep running (every second here) but write nothing.
  const settled = await eventually('the status to settle', async () => {
    const before = await ns.read('orders');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = await ns.read('orders');
    return after.metadata.resourceVersion === before.metadata.resourceVersion ? after : undefined;
  }, 30_000);
  const writesBefore = await kubernetesWrites(ns.metrics);
  const reconcilesBefore = await reconciles(ns.metrics);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const later = await ns.read('orders');
  // On failure, what changed says whether the controller or the world (a Pod restarting) moved.
  assert.deepEqual([later.metadata.resourceVersion, later.status], [settled.metadata.resourceVersion, settled.status], 'no change at steady state');
  assert.ok((await reconciles(ns.metrics)) - reconcilesBefore >= 3, 'reconciles kept running');
  assert.deepEqual(await kubernetesWrites(ns.metrics), writesBefore, 'and sent no write, not even one that changes nothing');
});

/** Kubernetes requests other than reads, by verb and resource. */
async function kubernetesWrites(metrics: Metrics): Promise<Record<string, number>> {
  const values = (await metrics.registry.getSingleMetric('twc_kubernetes_requests_total')?.get())?.values ?? [];
  const writes: Record<string, number> = {};
  for (const v of values) {
    if (['get', 'list', 'watch'].includes(String(v.labels.verb))) continue;
    const key = `${v.labels.verb} ${v.labels.resource}`;
    writes[key] = (writes[key] ?? 0) + v.value;
  }
  return writes;
}

async function reconciles(metrics: Metrics): Promise<number> {
  return ((await metrics.registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}
