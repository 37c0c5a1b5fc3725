// `npm run bench`, part six: the cost of the backlog metrics when every build is asked for (as a
// Prometheus scraping the gauges asks). Many worker deployments, each with a few builds with
// replicas (their Pods pending: no node agent runs them), are read by the leader within the read
// budget, beside the reconciles' own polls (and each worker deployment's pollers,
// in the same share); then the external metrics API is read through the API server's aggregation
// layer, as an HPA reads it, answered from the figures in memory.
// Prints figures; asserts nothing.
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { Controller } from '../../src/controller/controller.ts';
import { externalMetricsHandler } from '../../src/external-metrics/api-server.ts';
import { publishLeaderEndpoint } from '../../src/k8s/leader-endpoint.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { EXTERNAL_METRICS_API_SERVICE, machineAddress, registerExternalMetrics } from '../../dev/localenv/webhook.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { DEFAULT_READS_PER_SECOND } from '../../src/api/defaults.ts';
import { DEFAULT_BANNED_KINDS } from '../../src/webhook/owned-resource-admission.ts';
import { SelfManagedCertificates } from '../../src/webhook/self-managed-certificates.ts';
import { startWebhook } from '../../src/webhook/server.ts';
import { BENCH_TEMPORAL_CONFIG, createNamespace, liveWorkerDeployments } from './objects.ts';
import { until } from './poll.ts';
import { budgetedReads } from './temporal-reads.ts';

const { values } = parseArgs({
  options: {
    'worker-deployments': { type: 'string', default: '200' },
    // A target, a current build and a drained one kept: what a worker deployment runs mid-rollout.
    builds: { type: 'string', default: '3' },
    'poll-interval-ms': { type: 'string', default: '10000' },
    budget: { type: 'string', default: String(DEFAULT_READS_PER_SECOND) },
    'steady-seconds': { type: 'string', default: '60' },
    requests: { type: 'string', default: '1000' },
  },
});
const workerDeployments = Number(values['worker-deployments']);
const buildsEach = Number(values.builds);
const builds = workerDeployments * buildsEach;
const pollIntervalMs = Number(values['poll-interval-ms']);
const budget = Number(values.budget);
const steadySeconds = Number(values['steady-seconds']);
const requests = Number(values.requests);
const GOAL_P99_MS = 20;
const namespace = 'bench-backlog';

const environment = await startEnvironment({
  crdDir: CRD_DIR,
  nodeAgent: false,
  temporalDynamicConfig: BENCH_TEMPORAL_CONFIG,
  log: (line) => console.error(line),
});
const access = kubeconfigAccess({ file: environment.kubeconfigPath });
const api = new KubernetesApi({ access });
const metrics = new Metrics();
const identity = 'twc-bench';
const controller = new Controller({
  access,
  identity,
  namespaces: [namespace],
  pollIntervalMs,
  temporalReadBudget: budget,
  backlogMetrics: true,
  metrics,
});
const service = { namespace, name: 'bench-external-metrics' };
// First: the certificate's Secret goes there.
await createNamespace(environment, namespace);
const server = await startWebhook({
  bindAddress: { host: machineAddress(), port: 0 },
  certificates: new SelfManagedCertificates({
    api,
    secret: { namespace, name: 'bench-external-metrics-tls' },
    configuration: 'bench-none',
    apiService: EXTERNAL_METRICS_API_SERVICE,
    hosts: [`${service.name}.${namespace}.svc`],
    lifetimeMs: 3_600_000,
    log: silentLogger,
  }),
  api,
  bannedKinds: DEFAULT_BANNED_KINDS,
  log: silentLogger,
  alsoServe: externalMetricsHandler({ api, figures: (asked) => controller.backlogFigures(asked), log: silentLogger }),
});
try {
  await registerExternalMetrics(environment.kubeconfig, service);
  await publishLeaderEndpoint(api, { ...service, service: service.name, address: machineAddress(), port: server.port });
  await controller.start();
  await liveWorkerDeployments(environment, namespace, workerDeployments, buildsEach, identity);
  // Every build asked for, as a Prometheus scraping the gauges asks: each one read every interval.
  const scrape = () => controller.backlogFigures({ by: 'scrape' });
  await until(() => Promise.resolve(scrape().length === builds), {
    intervalMs: 1000,
    timeoutMs: 600_000,
  });

  const before = await budgetedReads(metrics);
  // Scraped every 30 s meanwhile, as the chart's ServiceMonitor does.
  const scrapes = setInterval(scrape, 30_000);
  await new Promise((resolve) => setTimeout(resolve, steadySeconds * 1000));
  clearInterval(scrapes);
  const after = await budgetedReads(metrics);
  const ages = scrape()
    .map((figures) => (Date.now() - figures.readAt.getTime()) / 1000)
    .sort((a, b) => a - b);
  const rate = (method?: string) =>
    [...after]
      .filter(([m]) => method === undefined || m === method)
      .reduce((sum, [m, n]) => sum + n - (before.get(m) ?? 0), 0) / steadySeconds;
  const total = rate();
  const perBuildPerInterval = (rate('DescribeWorkerDeploymentVersion') * pollIntervalMs) / 1000 / builds;
  console.log(
    `backlog metrics: ${builds} builds with replicas (${workerDeployments} worker deployments × ${buildsEach} builds), poll interval ${pollIntervalMs / 1000} s, budget ${budget} reads/s:`,
  );
  console.log(
    `  ${total.toFixed(1)} Temporal reads/s over ${steadySeconds} s (${[...after.keys()].map((m) => `${m} ${rate(m).toFixed(1)}`).join(', ')})`,
  );
  console.log(
    `  backlog reads per build per poll interval: ${perBuildPerInterval.toFixed(2)} (the rest of the budget goes to the reconciles' polls)`,
  );
  const pollersPerInterval = (rate('DescribeTaskQueue') * pollIntervalMs) / 1000 / workerDeployments;
  console.log(
    `  pollers reads per worker deployment per poll interval: ${pollersPerInterval.toFixed(2)} (in the same share, for the status)`,
  );
  console.log(
    `  age of the figures served at the end: p50 ${quantile(ages, 0.5).toFixed(0)} s, max ${quantile(ages, 1).toFixed(0)} s (${ages.length} of ${builds} builds served)`,
  );
  const withinBudget = total <= budget * 1.05;
  console.log(
    `  goal: within the read budget and at most one read per build per interval, ${withinBudget && perBuildPerInterval <= 1 ? 'met' : 'NOT MET'}`,
  );

  // The HPA's path: API server, aggregation layer, this process, from memory.
  const buildIds = controller.backlogFigures().map((figures) => figures.buildId);
  const path = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${namespace}/temporal_backlog_count`;
  await until(async () => (await api.get(path).catch(() => undefined)) !== undefined, { timeoutMs: 120_000 });
  const latencies: number[] = [];
  for (let i = 0; i < requests; i++) {
    const sent = performance.now();
    await api.get(path, { labelSelector: `temporal.io/build-id=${buildIds[i % buildIds.length] ?? ''}` });
    latencies.push(performance.now() - sent);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => quantile(latencies, q);
  console.log(
    `  external metrics: ${requests} reads of one build's temporal_backlog_count through the API server: p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms`,
  );
  console.log(`  goal: p99 ≤ ${GOAL_P99_MS} ms, ${at(0.99) <= GOAL_P99_MS ? 'met' : 'NOT MET'}`);
} finally {
  await controller.stop();
  await server.close();
  api.close();
  await environment.stop();
}

/** Of figures sorted ascending. */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
