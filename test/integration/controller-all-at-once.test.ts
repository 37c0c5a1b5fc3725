// The controller end to end on the real environment: a new build becomes current, the old one
// drains, is scaled down and deleted, and its Temporal record goes; then each poll costs one
// Temporal read and no Kubernetes call.
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDeployment } from '../../src/temporal/deployment-state.ts';
import type { Metrics } from '../../src/runtime/metrics.ts';
import { controlledNamespace } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, temporalService, testNamespace } from '../support/environment.ts';
import { notificationReceiver } from '../support/notification-receiver.ts';

test('AllAtOnce: v1 becomes current; a template change makes v2 current while v1 drains, scales down and is deleted', async (t) => {
  const namespace = await testNamespace(t, 'allatonce');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  // spec.notifications along the way: the rollout's events reach a receiver the controller allows.
  const receiver = await notificationReceiver(t);
  const ns = await controlledNamespace(t, namespace, { notificationDestinations: [`${receiver.base}/hooks/`] });
  await kubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'rollout-hook' }, stringData: { url: `${receiver.base}/hooks/orders` } },
    });
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    sunset: { scaledownDelay: '2s', deleteDelay: '2s' },
    template: ns.template('blue'),
    notifications: [{ secretRef: { name: 'rollout-hook' }, events: ['Started', 'Promoted', 'OldBuildRetired'] }],
  });

  const first = await eventually(
    'the first build to be current',
    async () => {
      const twd = await ns.read('orders');
      return twd.status?.currentVersion?.buildID &&
        twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID
        ? twd
        : undefined;
    },
    90_000,
  );
  const v1 = first.status?.currentVersion?.buildID ?? '';
  assert.equal(first.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(
    first.status?.observedGeneration,
    first.metadata.generation,
    'the status says which generation it describes',
  );

  await ns.patchSpec('orders', { template: ns.template('green') });
  const second = await eventually(
    'the second build to be current',
    async () => {
      const twd = await ns.read('orders');
      return twd.status?.currentVersion?.buildID &&
        twd.status.currentVersion.buildID !== v1 &&
        twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID
        ? twd
        : undefined;
    },
    90_000,
  );
  const v2 = second.status?.currentVersion?.buildID ?? '';
  assert.notEqual(v2, v1);
  assert.ok(
    (second.metadata.generation ?? 0) > (first.metadata.generation ?? 0),
    'the spec change made a new generation',
  );
  assert.equal(second.status?.observedGeneration, second.metadata.generation, 'observedGeneration followed it');

  await eventually(
    "the first build's Deployment to be deleted after the sunset delays",
    async () => {
      const names = (await apps.listNamespacedDeployment({ namespace })).items.map(
        (d) => d.metadata?.labels?.['temporal.io/build-id'],
      );
      return names.length === 1 && names[0] === v2 ? true : undefined;
    },
    90_000,
  );
  await eventually(
    "Temporal's record of the first build to be deleted",
    async () => {
      const state = await describeDeployment(
        temporalService(t),
        sharedEnvironment().temporalNamespace,
        `${namespace}/orders`,
      );
      return state.versions.some((v) => v.buildId === v1) ? undefined : true;
    },
    90_000,
  );

  const told = () =>
    receiver.received.map((r) => {
      const { kind, buildID } = JSON.parse(r.body) as { kind: string; buildID: string };
      return `${kind} ${buildID}`;
    });
  await eventually(
    "the receiver to be told of the first build's retirement",
    () => Promise.resolve(told().includes(`OldBuildRetired ${v1}`) || undefined),
    30_000,
  );
  assert.deepEqual(
    told(),
    [`Started ${v1}`, `Promoted ${v1}`, `Started ${v2}`, `Promoted ${v2}`, `OldBuildRetired ${v1}`],
    'each event once, in order',
  );

  // Settled: reconciles keep running (every second here) but write nothing.
  const settled = await eventually(
    'the status to settle',
    async () => {
      const before = await ns.read('orders');
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const after = await ns.read('orders');
      // Temporal may list the deleted record a moment longer to the controller than to the test
      // (seen once: versionCount went from 2 to 1 inside the steady window): settled means absorbed.
      return after.metadata.resourceVersion === before.metadata.resourceVersion && after.status?.versionCount === 1
        ? after
        : undefined;
    },
    30_000,
  );
  const before = await afterReconciles(ns.metrics, (await reconciles(ns.metrics)) + 1);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  // At least three polls, however slow the machine: a loaded CI run once fitted only two in the window.
  const after = await afterReconciles(ns.metrics, before.reconciles + 3);
  const later = await ns.read('orders');
  // On failure, what changed says whether the controller or the world (a Pod restarting) moved.
  assert.deepEqual(
    [later.metadata.resourceVersion, later.status],
    [settled.metadata.resourceVersion, settled.status],
    'no change at steady state',
  );
  const polls = after.reconciles - before.reconciles;
  assert.deepEqual(
    difference(after.kubernetes, before.kubernetes),
    {},
    'no Kubernetes request but the watches, not even a read or a write that changes nothing',
  );
  assert.deepEqual(
    difference(after.temporal, before.temporal),
    { DescribeWorkerDeployment: polls },
    'one Temporal read per poll, and nothing else',
  );
});

interface Counts {
  reconciles: number;
  /** Kubernetes requests other than watches, by verb and resource. */
  kubernetes: Record<string, number>;
  /** Temporal calls by method. */
  temporal: Record<string, number>;
}

/**
 * The counts once `total` reconciles have ended, taken while none runs (no reconcile active before
 * or after reading them, and none finished meanwhile): no reconcile is counted in part. Times out
 * if the reconciles stop.
 */
async function afterReconciles(metrics: Metrics, total: number): Promise<Counts> {
  return eventually(
    `${total} reconciles to have ended, and the counts to be read while none runs`,
    async () => {
      const [done, active] = [await reconciles(metrics), await activeReconciles(metrics)];
      if (done < total || active > 0) return undefined;
      const kubernetes = await sums(metrics, 'twc_kubernetes_requests_total', (l) =>
        l.verb === 'watch' ? undefined : `${l.verb} ${l.resource}`,
      );
      const temporal = await sums(metrics, 'twc_temporal_requests_total', (l) => String(l.method));
      return (await reconciles(metrics)) === done && (await activeReconciles(metrics)) === 0
        ? { reconciles: done, kubernetes, temporal }
        : undefined;
    },
    30_000,
  );
}

function difference(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).flatMap(([key, n]) => (n === (before[key] ?? 0) ? [] : [[key, n - (before[key] ?? 0)]])),
  );
}

/** A counter's values summed by the key `keyOf` gives their labels; undefined leaves a value out. */
async function sums(
  metrics: Metrics,
  name: string,
  keyOf: (labels: Partial<Record<string, string | number>>) => string | undefined,
): Promise<Record<string, number>> {
  const values = (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
  const result: Record<string, number> = {};
  for (const v of values) {
    const key = keyOf(v.labels);
    if (key !== undefined) result[key] = (result[key] ?? 0) + v.value;
  }
  return result;
}

async function activeReconciles(metrics: Metrics): Promise<number> {
  return ((await metrics.registry.getSingleMetric('controller_runtime_active_workers')?.get())?.values ?? []).reduce(
    (sum, v) => sum + v.value,
    0,
  );
}

async function reconciles(metrics: Metrics): Promise<number> {
  return ((await metrics.registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values ?? []).reduce(
    (sum, v) => sum + v.value,
    0,
  );
}
