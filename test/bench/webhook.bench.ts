// `npm run bench`, part five: the owned-resource webhook under load, as the API server calls it.
// `bin/twc run` serves it as users run it (a child process, its own CPU); TemporalWorkerOwnedResource
// creates go to the real API server at a fixed rate, open loop, as dry runs (the webhook is called,
// nothing is stored), each one admitted only after the webhook's discovery and access reviews. The
// latency is the client's: the API server, the webhook and the reviews it asks the API server for.
// Prints figures; asserts nothing.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { grantOwnedResourcesAccount, OWNED_RESOURCES_ACCOUNT } from '../../dev/localenv/owned-resources-account.ts';
import { freePort } from '../../dev/localenv/ports.ts';
import { exposeWebhook, machineAddress, registerWebhook } from '../../dev/localenv/webhook.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { createNamespace } from './objects.ts';
import { until } from './poll.ts';

const { values } = parseArgs({
  options: { rate: { type: 'string', default: '50' }, seconds: { type: 'string', default: '20' } },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const GOAL_P99_MS = 1000;
const TWC = path.join(import.meta.dirname, '../../bin/twc');
const namespace = 'bench-webhook';

const environment = await startEnvironment({ crdDir: CRD_DIR, nodeAgent: false, log: (line) => console.error(line) });
const api = new KubernetesApi({ access: kubeconfigAccess({ file: environment.kubeconfigPath }) });
const [port, probePort] = [await freePort(), await freePort()];
const endpoint = { address: machineAddress(), port };
const service = { namespace, name: 'bench-webhook' };
await createNamespace(environment, namespace);
// The account the copies are written as, whose rights the webhook asks about as it would in use.
await grantOwnedResourcesAccount(environment.kubeconfig, namespace);
await exposeWebhook(environment.kubeconfig, service, endpoint);
await registerWebhook(environment.kubeconfig, { name: 'bench-webhook', service, namespaces: [namespace] });
// Its own certificate, as by default: it fills the caBundle of the configuration above.
const twc = spawn(
  TWC,
  [
    'run',
    `--kubeconfig=${environment.kubeconfigPath}`,
    `--namespace=${namespace}`,
    '--no-leader-elect',
    '--metrics-bind-address=0',
    `--health-probe-bind-address=127.0.0.1:${probePort}`,
    `--webhook-bind-address=${endpoint.address}:${port}`,
    `--webhook-namespace=${namespace}`,
    `--webhook-service=${service.name}`,
    `--webhook-configuration=bench-webhook`,
    `--owned-resources-service-account=${OWNED_RESOURCES_ACCOUNT}`,
  ],
  { stdio: 'ignore' },
);
const collection = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${KINDS.TemporalWorkerOwnedResource.plural}`;
const twor = (object: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'TemporalWorkerOwnedResource',
  metadata: { generateName: 'bench-' },
  spec: { workerRef: { name: 'orders' }, object },
});
const pdb = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  spec: { minAvailable: 1, selector: { matchLabels: {} } },
};
const create = (object: Record<string, unknown>) =>
  api.request('POST', collection, { body: twor(object), query: { dryRun: 'All' } });
try {
  await until(async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.ok ?? false, {
    timeoutMs: 60_000,
  });
  // In force once the API server refuses a banned kind through it.
  await until(
    () =>
      create({ apiVersion: 'apps/v1', kind: 'Deployment' }).then(
        () => false,
        (error: unknown) => /denied the request/.test(String(error)),
      ),
    { timeoutMs: 60_000 },
  );
  const latencies: number[] = [];
  let refused = 0;
  const reasons = new Map<string, number>();
  const calls: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    calls.push(
      create(pdb).then(
        () => void latencies.push(performance.now() - sent),
        (error: unknown) => {
          refused++;
          const reason = String(error).slice(0, 160);
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        },
      ),
    );
  }
  await Promise.all(calls);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const p99 = at(0.99);
  console.log(
    `owned-resource webhook: ${latencies.length} dry-run creates admitted at ${rate}/s for ${seconds} s through the API server (${refused} refused or failed):`,
  );
  console.log(
    `  latency p50 ${at(0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(0)} ms`,
  );
  for (const [reason, times] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 3))
    console.log(`  refused ${times} times: ${reason}`);
  console.log(`  goal: p99 ≤ ${GOAL_P99_MS} ms, ${p99 <= GOAL_P99_MS && refused === 0 ? 'met' : 'NOT MET'}`);
} finally {
  twc.kill('SIGTERM');
  await new Promise((resolve) => twc.on('exit', resolve));
  api.close();
  await environment.stop();
}
