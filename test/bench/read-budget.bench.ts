// `npm run bench`, part three: Temporal reads per second of many worker deployments at steady
// state, against the read budget. Each worker deployment is registered in Temporal (one versioned
// poll of its build, made here) and runs no Pod (`replicas: 0`, Manual, so nothing is routed):
// an unchanged worker deployment's reconcile is then what it is in production, one
// DescribeWorkerDeployment, without 200 worker processes on a laptop. Prints figures; asserts nothing.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../src/api/generate.ts';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { Controller } from '../../src/controller/controller.ts';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { startEnvironment } from '../../src/localenv/environment.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { BUDGETED_READS, DEFAULT_READS_PER_SECOND } from '../../src/temporal/read-budget.ts';
import { until } from './poll.ts';

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
const READ_METHODS = new Set([...BUDGETED_READS].map((m) => m[0]?.toUpperCase() + m.slice(1)));

const environment = await startEnvironment({ crdDir: CRD_DIR, log: (line) => console.error(line) });
const metrics = new Metrics();
const controller = new Controller({
  kubeconfig: environment.kubeconfig,
  identity: 'twc-bench',
  namespace,
  pollIntervalMs,
  temporalReadBudget: budget,
  metrics,
});
const temporal = await Connection.connect({ address: environment.temporalAddress });
try {
  const custom = environment.kubeconfig.makeApiClient(CustomObjectsApi);
  await environment.kubeconfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  await controller.start();
  const object = { group: GROUP, version: VERSION, namespace };
  const names = Array.from({ length: count }, (_, i) => `reads-${i}`);
  await custom.createNamespacedCustomObject({
    ...object,
    plural: KINDS.TemporalConnection.plural,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TemporalConnection',
      metadata: { name: 'temporal' },
      spec: { hostPort: environment.temporalAddress },
    },
  });
  for (const name of names) {
    const template = {
      spec: {
        containers: [{ name: 'worker', image: 'sample-worker', env: [{ name: 'TEMPORAL_TASK_QUEUE', value: name }] }],
      },
    };
    await custom.createNamespacedCustomObject({
      ...object,
      plural: KINDS.TemporalWorkerDeployment.plural,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'TemporalWorkerDeployment',
        metadata: { name },
        spec: {
          replicas: 0,
          rollout: { strategy: 'Manual' },
          workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: environment.temporalNamespace },
          template,
        },
      },
    });
  }
  const list = async () =>
    (
      (await custom.listNamespacedCustomObject({ ...object, plural: KINDS.TemporalWorkerDeployment.plural })) as {
        items: TemporalWorkerDeployment[];
      }
    ).items;
  await until(async () => (await list()).filter((twd) => twd.status?.targetVersion?.buildID).length === count, {
    intervalMs: 1000,
  });
  // A versioned poll registers its build, as its first worker would; the server may take longer
  // than the poll to do so, so builds still unregistered are polled again.
  const unregistered = async () => (await list()).filter((twd) => twd.status?.targetVersion?.status !== 'Inactive');
  for (let waiting = await unregistered(); waiting.length > 0; waiting = await unregistered()) {
    await temporal.withDeadline(Date.now() + 10_000, () =>
      Promise.all(waiting.map((twd) => register(twd).catch(() => undefined))),
    );
  }

  // Unchanged from here on: polls alone bring reconciles.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const before = await reads(metrics);
  await new Promise((resolve) => setTimeout(resolve, steadySeconds * 1000));
  const after = await reads(metrics);
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
  await temporal.close();
  await controller.stop();
  await environment.stop();
}

function register(twd: TemporalWorkerDeployment): Promise<unknown> {
  return temporal.workflowService.pollWorkflowTaskQueue({
    namespace: environment.temporalNamespace,
    taskQueue: { name: twd.metadata.name ?? '' },
    identity: 'twc-bench',
    deploymentOptions: {
      deploymentName: temporalDeploymentName(namespace, twd.metadata.name ?? ''),
      buildId: twd.status?.targetVersion?.buildID ?? '',
      workerVersioningMode: proto.temporal.api.enums.v1.WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED,
    },
  });
}

/** Reads so far, by Temporal method. */
async function reads(from: Metrics): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const v of (await from.registry.getSingleMetric('twc_temporal_requests_total')?.get())?.values ?? []) {
    const method = String(v.labels.method);
    if (READ_METHODS.has(method)) counts.set(method, (counts.get(method) ?? 0) + v.value);
  }
  return counts;
}
