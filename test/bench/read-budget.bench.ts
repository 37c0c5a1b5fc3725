// `npm run bench`, part three: Temporal reads per second of many worker deployments at steady
// state, against the read budget (see objects.ts for how they are made cheaply).
// Prints figures; asserts nothing.
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { Controller } from '../../src/controller/controller.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { DEFAULT_READS_PER_SECOND } from '../../src/api/defaults.ts';
import { BENCH_TEMPORAL_CONFIG, createNamespace, idleWorkerDeployments } from './objects.ts';
import { budgetedReads } from './temporal-reads.ts';

const { values } = parseArgs({
  options: {
    'worker-deployments': { type: 'string', default: '200' },
    'poll-interval-ms': { type: 'string', default: '1000' },
    budget: { type: 'string', default: String(DEFAULT_READS_PER_SECOND) },
    'steady-seconds': { type: 'string', default: '30' },
  },
});
const count = Number(values['worker-deployments']);
const pollIntervalMs = Number(values['poll-interval-ms']);
const budget = Number(values.budget);
const steadySeconds = Number(values['steady-seconds']);
const namespace = 'bench-reads';

const environment = await startEnvironment({
  crdDir: CRD_DIR,
  temporalDynamicConfig: BENCH_TEMPORAL_CONFIG,
  log: (line) => console.error(line),
});
const metrics = new Metrics();
const controller = new Controller({
  access: kubeconfigAccess({ file: environment.kubeconfigPath }),
  identity: 'twc-bench',
  namespaces: [namespace],
  pollIntervalMs,
  temporalReadBudget: budget,
  metrics,
});
try {
  await createNamespace(environment, namespace);
  await controller.start();
  await idleWorkerDeployments(environment, namespace, count);

  // Unchanged from here on: polls alone bring reconciles.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const before = await budgetedReads(metrics);
  await new Promise((resolve) => setTimeout(resolve, steadySeconds * 1000));
  const after = await budgetedReads(metrics);
  const perSecond = (method?: string) =>
    [...after]
      .filter(([m]) => method === undefined || m === method)
      .reduce((sum, [m, n]) => sum + n - (before.get(m) ?? 0), 0) / steadySeconds;
  const describes = perSecond('DescribeWorkerDeployment');
  console.log(
    `Temporal reads at steady state: ${count} worker deployments in one namespace, poll interval ${pollIntervalMs} ms (${(count / (pollIntervalMs / 1000)).toFixed(0)} reads/s wanted), budget ${budget} reads/s:`,
  );
  console.log(
    `  ${perSecond().toFixed(1)} reads/s measured over ${steadySeconds} s (${[...after.keys()].map((m) => `${m} ${perSecond(m).toFixed(1)}`).join(', ')})`,
  );
  console.log(
    `  each worker deployment described every ${describes > 0 ? (count / describes).toFixed(1) : '-'} s on average (poll interval ${pollIntervalMs / 1000} s)`,
  );
} finally {
  await controller.stop();
  await environment.stop();
}
