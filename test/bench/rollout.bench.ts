// `npm run bench`, part two: how long the controller takes from a template change to the new
// build's Deployment (an event must act at once, whatever reconcile of the same worker deployment
// runs then) and from that Deployment becoming available to the build being Current, and what a
// reconcile of an unchanged worker deployment costs in Kubernetes and Temporal calls. Old builds
// are scaled down and deleted as soon as they drain, so that their retirement runs during the
// later rollouts, as it would in production. Prints figures; asserts nothing.
import {
  AppsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  Watch,
} from '@kubernetes/client-node';
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { Controller } from '../../src/controller/controller.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { LABELS } from '../../src/k8s/names.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { sampleWorkerTemplate } from '../support/sample-template.ts';
import { createConnection, createNamespace, createWorkerDeployment } from './objects.ts';
import { until } from './poll.ts';

const { values } = parseArgs({
  options: {
    rollouts: { type: 'string', default: '20' },
    replicas: { type: 'string', default: '2' },
    'steady-seconds': { type: 'string', default: '20' },
    // The controller's default: an event that waits for a poll shows as a whole interval.
    'poll-interval-ms': { type: 'string', default: '10000' },
  },
});
const rollouts = Number(values.rollouts);
const replicas = Number(values.replicas);
const steadySeconds = Number(values['steady-seconds']);
const pollIntervalMs = Number(values['poll-interval-ms']);
const namespace = 'bench-rollout';
/** Issue 11: a template change must reach its Deployment within this, every time. */
const CREATE_GOAL_MS = 500;
/** How often the benchmark looks: the resolution of the latencies it prints. */
const POLL = { intervalMs: 50 };

const environment = await startEnvironment({ crdDir: CRD_DIR, log: (line) => console.error(line) });
const metrics = new Metrics();
const controller = new Controller({
  access: kubeconfigAccess({ file: environment.kubeconfigPath }),
  identity: 'twc-bench',
  namespaces: [namespace],
  pollIntervalMs,
  metrics,
});
try {
  const apps = environment.kubeconfig.makeApiClient(AppsV1Api);
  const custom = environment.kubeconfig.makeApiClient(CustomObjectsApi);
  await createNamespace(environment, namespace);
  await controller.start();
  const object = { group: GROUP, version: VERSION, namespace, name: 'orders' };
  const template = (build: number) => sampleWorkerTemplate('bench', `build-${build}`);
  await createConnection(environment, namespace);
  await createWorkerDeployment(environment, namespace, 'orders', {
    replicas,
    template: template(0),
    sunset: { scaledownDelay: '0s', deleteDelay: '0s' },
  });
  const read = async () =>
    (await custom.getNamespacedCustomObject({
      ...object,
      plural: KINDS.TemporalWorkerDeployment.plural,
    })) as TemporalWorkerDeployment;
  await until(async () => (await read()).status?.currentVersion?.buildID !== undefined);

  // When each Deployment was first seen, by a watch: more precise than polling, and lighter.
  const createdAt = new Map<string, number>();
  const watching = await new Watch(environment.kubeconfig).watch(
    `/apis/apps/v1/namespaces/${namespace}/deployments`,
    {},
    (phase, deployment: V1Deployment) => {
      const name = deployment.metadata?.name ?? '';
      if (phase === 'ADDED' && !createdAt.has(name)) createdAt.set(name, performance.now());
    },
    () => {},
  );
  const creations: number[] = [];
  const latencies: number[] = [];
  for (let build = 1; build <= rollouts; build++) {
    const before = (await read()).status?.currentVersion?.buildID;
    const patchedAt = performance.now();
    await custom.patchNamespacedCustomObject(
      { ...object, plural: KINDS.TemporalWorkerDeployment.plural, body: { spec: { template: template(build) } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    let target: string | undefined;
    const available = await until(async () => {
      target ??= (await read()).status?.targetVersion?.buildID;
      if (!target || target === before) return ((target = undefined), false);
      const deployments = (
        await apps.listNamespacedDeployment({ namespace, labelSelector: `${LABELS.buildId}=${target}` })
      ).items;
      return deployments.length > 0 && deployments.every(isAvailable);
    }, POLL);
    const created = (await apps.listNamespacedDeployment({ namespace, labelSelector: `${LABELS.buildId}=${target}` }))
      .items;
    creations.push(Math.max(...created.map((d) => (createdAt.get(d.metadata?.name ?? '') ?? Infinity) - patchedAt)));
    const current = await until(async () => (await read()).status?.currentVersion?.buildID === target, POLL);
    latencies.push(current - available);
  }

  watching.abort();

  // Unchanged from here on: the poll interval alone drives reconciles.
  await settled(read);
  const before = await counts(metrics);
  await new Promise((resolve) => setTimeout(resolve, steadySeconds * 1000));
  const after = await counts(metrics);
  const reconciles = after.reconciles - before.reconciles;
  const perReconcile = (a: Map<string, number>, b: Map<string, number>) =>
    [...b]
      .map(([key, n]) => [key, (n - (a.get(key) ?? 0)) / reconciles] as const)
      .filter(([, n]) => n > 0)
      .map(([key, n]) => `${key} ${n.toFixed(2)}`)
      .join(', ') || 'none';
  const writes = [...after.kubernetes]
    .filter(([key]) => !/^(get|list|watch) /.test(key))
    .reduce((sum, [key, n]) => sum + n - (before.kubernetes.get(key) ?? 0), 0);

  const created = [...creations].sort((a, b) => a - b);
  console.log(
    `template patched -> new build's Deployment created (${rollouts} rollouts, poll interval ${pollIntervalMs} ms):`,
  );
  console.log(
    `  median ${ms(created[Math.floor(created.length / 2)])}, min ${ms(created[0])}, max ${ms(created.at(-1))}  (goal: max under ${CREATE_GOAL_MS} ms${(created.at(-1) ?? Infinity) < CREATE_GOAL_MS ? ', met' : ', NOT MET'})`,
  );
  console.log(`  each, in order: ${creations.map((c) => Math.round(c)).join(', ')} ms`);
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(`Deployment available -> build Current (${rollouts} rollouts, ${replicas} replicas, AllAtOnce):`);
  console.log(
    `  median ${ms(sorted[Math.floor(sorted.length / 2)])}, min ${ms(sorted[0])}, max ${ms(sorted.at(-1))}  (polled every 50 ms)`,
  );
  console.log(
    `unchanged worker deployment: ${reconciles} reconciles in ${steadySeconds} s (poll interval ${pollIntervalMs} ms); per reconcile:`,
  );
  console.log(
    `  Kubernetes requests (informer watches excluded): ${perReconcile(before.kubernetes, after.kubernetes)}`,
  );
  console.log(`  Kubernetes writes: ${writes}`);
  console.log(`  Temporal calls: ${perReconcile(before.temporal, after.temporal)}`);
} finally {
  await controller.stop();
  await environment.stop();
}

function isAvailable(d: V1Deployment): boolean {
  const wanted = d.spec?.replicas ?? 1;
  return (
    (d.status?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    (d.status?.availableReplicas ?? 0) >= wanted &&
    d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') === true
  );
}

async function settled(read: () => Promise<TemporalWorkerDeployment>): Promise<void> {
  for (;;) {
    const before = (await read()).metadata.resourceVersion;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    if ((await read()).metadata.resourceVersion === before) return;
  }
}

/** Requests so far, by "verb resource" and by Temporal method, and reconciles so far. */
async function counts(from: Metrics) {
  const total = async (name: string) => (await from.registry.getSingleMetric(name)?.get())?.values ?? [];
  const kubernetes = new Map<string, number>();
  for (const v of await total('twc_kubernetes_requests_total')) {
    if (v.labels.verb === 'watch') continue;
    const key = `${v.labels.verb} ${v.labels.resource}`;
    kubernetes.set(key, (kubernetes.get(key) ?? 0) + v.value);
  }
  const temporal = new Map<string, number>();
  for (const v of await total('twc_temporal_requests_total'))
    temporal.set(String(v.labels.method), (temporal.get(String(v.labels.method)) ?? 0) + v.value);
  const reconciles = (await total('controller_runtime_reconcile_total')).reduce((sum, v) => sum + v.value, 0);
  return { kubernetes, temporal, reconciles };
}

function ms(value: number | undefined): string {
  return value === undefined ? '-' : `${Math.round(value)} ms`;
}
