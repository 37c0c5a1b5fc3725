// `npm run bench:scale`: how far one controller replica goes. `twc run` as the image runs it
// (twc-process.ts), with its defaults (leader election, 10 s poll, read budget 20/s, backlog
// metrics) over 1,000 worker deployments created at once, AllAtOnce, one Pod each; then every one
// of them rolled out once, then a tenth of them once more all at once, and another tenth one a
// second (rollouts as teams make them, the read budget holding). Each Pod is a real worker of its
// build to Temporal that only polls (the node agent's poller host), so the builds register, list
// their task queues and count pollers as with real workers. Prints, for each phase, how long until
// every build was Current and how long each took from its Deployment becoming Available, Temporal
// reads and Kubernetes requests a second, the controller's RSS and CPU, its queue and reconciles,
// and what each completed rollout cost (Temporal reads and writes by method, reconciles, its waits
// in the queue, for read tokens, for call slots and on Temporal); then a steady minute. Prints the
// goals beside the figures; asserts nothing.
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { Connection } from '@temporalio/client';
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { LABELS, temporalDeploymentName } from '../../src/k8s/names.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { POLL_ONLY } from '../../dev/node-agent/poller-host.ts';
import { DEFAULT_READS_PER_SECOND } from '../../src/api/defaults.ts';
import { BUDGETED_READS } from '../../src/temporal/read-budget.ts';
import { createConnection, createNamespace, createWorkerDeployment } from './objects.ts';
import { sampleWorkerTemplate } from '../support/sample-template.ts';
import { until } from './poll.ts';
import {
  cpuTicks,
  growth,
  KUBERNETES_WRITES,
  memoryOf,
  scrape,
  startTwc,
  TICKS_PER_SECOND,
  type TwcProcess,
} from './twc-process.ts';

const { values } = parseArgs({
  options: {
    'worker-deployments': { type: 'string', default: '1000' },
    // The share of them rolled out a second time, at once; as many others, one a second.
    again: { type: 'string', default: '0.1' },
    // 0: no steady minute, nor the wait for the status to settle before it.
    'steady-seconds': { type: 'string', default: '60' },
    'timeout-minutes': { type: 'string', default: '30' },
    // A flag of `twc run` beside its defaults, to see what it changes (`--twc-arg=--temporal-concurrency=32`); repeatable.
    'twc-arg': { type: 'string', multiple: true, default: [] },
    // Where to keep the controller's log (JSON lines), to follow the slowest rollout in it.
    'controller-log': { type: 'string' },
  },
});
const count = Number(values['worker-deployments']);
const againCount = Math.round(count * Number(values.again));
const steadySeconds = Number(values['steady-seconds']);
const timeoutMs = Number(values['timeout-minutes']) * 60_000;
const POLL_INTERVAL_S = 10; // twc run's default
const GOALS = {
  currentWithinS: 2 * POLL_INTERVAL_S,
  readsPerSecond: DEFAULT_READS_PER_SECOND,
  /** Issue 40: at 1,000 worker deployments. */
  rssMiB: 160,
  /** Issue 40: what a rollout may cost, and how soon its build is Current once available. */
  readsPerRollout: 2,
  atOnce: { p50S: 10, maxS: 120 },
  oneASecond: { p50S: 2, maxS: 20 },
};
const SAMPLE_EVERY_MS = 10_000;
/**
 * Steady once no status was written for one and a half rounds of routine looks (each worker
 * deployment read once at the half of the budget reconciles are sure of; at least three poll
 * intervals): a shorter quiet can end before the last build's drainage was read.
 */
const SETTLED_AFTER_S = Math.max(3 * POLL_INTERVAL_S, (1.5 * count) / (DEFAULT_READS_PER_SECOND / 2));
const namespace = 'bench-scale';
const names = Array.from({ length: count }, (_, i) => `scale-${String(i).padStart(4, '0')}`);

/**
 * Temporal as it ships (not the local environment's short polls and drainage checks, which cost
 * 2,000 pollers 400 polls a second), but for two limits of one namespace that the run would hit
 * and a production cluster would spread over namespaces and frontend hosts: 100 worker deployments
 * (`matching.maxDeployments`) and 1,200 concurrent polls per frontend host
 * (`frontend.namespaceCount`). Past that one, in a first run, Temporal's own worker of the
 * namespace could no longer poll, so the Worker Deployment workflows it runs stopped answering.
 */
const TEMPORAL_LIMITS_RAISED = { 'matching.maxDeployments': 10_000, 'frontend.namespaceCount': 10_000 };

const environment = await startEnvironment({
  crdDir: CRD_DIR,
  temporalDynamicConfig: TEMPORAL_LIMITS_RAISED,
  log: (line) => console.error(line),
});
const custom = environment.kubeconfig.makeApiClient(CustomObjectsApi);
const apps = environment.kubeconfig.makeApiClient(AppsV1Api);
const temporal = await Connection.connect({ address: environment.temporalAddress });
const object = { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural };
const template = (name: string, build: number) =>
  sampleWorkerTemplate(name, POLL_ONLY, [{ name: 'ROLLOUT', value: String(build) }]);

interface Sample {
  at: number;
  reads: number;
  kubernetes: number;
  depth: number;
  ticks: number;
  rssMiB: number;
  /** V8's heap as Node reports it, and the memory of its objects outside it (buffers). */
  heap: { totalMiB: number; usedMiB: number; externalMiB: number };
}
interface Phase {
  name: string;
  /** How the changes came: all at once, or one a second (the creation of the worker deployments: neither). */
  pace?: 'atOnce' | 'oneASecond';
  rollouts: number;
  allCurrentS: number;
  /** From each build's Deployment becoming Available to Temporal making it current, seconds, sorted. */
  lags: number[];
  /** The build that took longest, to look up in the controller's log: its worker deployment, and when it registered in Temporal (seconds after Available). */
  slowest?: { name: string; registeredS: number | undefined };
  /** Builds whose Deployment's Available time or Temporal's change time could not be read. */
  unmeasured: number;
  samples: Sample[];
  /** The controller's peak RSS (VmHWM) once the phase ended: the run's peak so far, between samples too. */
  peakMiB: number;
  before: Map<string, number>;
  after: Map<string, number>;
}

await createNamespace(environment, namespace);
await createConnection(environment, namespace);
const twcArgs = values['twc-arg'];
const twc = await startTwc(environment, namespace, twcArgs, process.env, values['controller-log']);
const phases: Phase[] = [];
let steady: { samples: Sample[]; writes: Map<string, number>; changed: Map<string, number> } | undefined;
let settleS = 0;
let settledPeakMiB = 0;
/** What the status writes while settling changed: leaf paths of the status, by how many worker deployments. */
let settlingChanges = new Map<string, number>();
try {
  phases.push(
    await phase('create', names, async () => {
      await inBatches(names, (name) =>
        createWorkerDeployment(environment, namespace, name, {
          replicas: 1,
          rollout: { strategy: 'AllAtOnce' },
          template: template(name, 0),
        }),
      );
    }),
  );
  phases.push(await phase('rollout', names, () => rollOut(names, 1), 'atOnce'));
  const tenth = names.slice(0, againCount);
  phases.push(await phase(`second rollout of ${againCount}, at once`, tenth, () => rollOut(tenth, 2), 'atOnce'));
  const another = names.slice(againCount, 2 * againCount);
  phases.push(
    await phase(
      `second rollout of ${againCount} others, one a second`,
      another,
      () => rollOut(another, 2, 1000),
      'oneASecond',
    ),
  );
  // Steady: once the old builds' drainage has been reported (Temporal's grace of minutes, and a
  // read of each worker deployment at the budget's pace), no status changes. A first run measured
  // right after the last phase saw 244 status writes in that minute, all of it this settling.
  if (steadySeconds > 0) {
    const settling = performance.now();
    let statuses = await statusesNow();
    settlingChanges = await settled(async () => {
      const [changes, now] = await statusChanges(statuses);
      statuses = now;
      return changes;
    });
    settleS = (performance.now() - settling) / 1000;
    settledPeakMiB = memoryOf(twc.pid).peakMiB;
    const before = await scrape(twc);
    const samples = await sampling(() => new Promise((resolve) => setTimeout(resolve, steadySeconds * 1000)));
    const writes = growth(before, await scrape(twc), KUBERNETES_WRITES, (l) => `${l.verb} ${l.resource}`);
    const [changed] = await statusChanges(statuses);
    steady = { samples, writes: new Map([...writes].filter(([key]) => !key.endsWith(' leases'))), changed };
  }
} finally {
  const peakMiB = memoryOf(twc.pid).peakMiB;
  // What the rest of the machine took: the node agent hosting every Pod's polls, and Temporal.
  const others = environment.processes
    .filter((p) => p.pid !== undefined && (p.name === 'node agent' || p.name === 'temporal dev server'))
    .map((p) => `${p.name} ${memoryOf(p.pid ?? 0).peakMiB.toFixed(0)} MiB`);
  await twc.stop();
  await temporal.close();
  await environment.stop();
  report(peakMiB, others);
}

/** Runs `change`, then waits until each of `rolled` has its new target Current, sampling the controller meanwhile. */
async function phase(
  name: string,
  rolled: string[],
  change: () => Promise<void>,
  pace?: Phase['pace'],
): Promise<Phase> {
  const before = await scrape(twc);
  const started = performance.now();
  const targets = new Map((await list()).map((twd) => [twd.metadata.name ?? '', twd.status?.targetVersion?.buildID]));
  const samples = await sampling(async () => {
    await change();
    await until(
      async () => {
        const twds = await list();
        return rolled.every((n) => {
          const twd = twds.find((t) => t.metadata.name === n);
          return twd !== undefined && done(twd) && twd.status?.currentVersion?.buildID !== targets.get(n);
        });
      },
      { intervalMs: 5000, timeoutMs },
    );
  });
  const allCurrentS = (performance.now() - started) / 1000;
  const after = await scrape(twc);
  const measured = await lags(rolled);
  const slowest = measured.at(-1);
  return {
    name,
    ...(pace ? { pace } : {}),
    rollouts: rolled.length,
    allCurrentS,
    lags: measured.map(({ lag }) => lag),
    ...(slowest ? { slowest: { name: slowest.name, registeredS: slowest.registeredS } } : {}),
    unmeasured: rolled.length - measured.length,
    samples,
    peakMiB: memoryOf(twc.pid).peakMiB,
    before,
    after,
  };
}

/**
 * Resolves once no status was written for SETTLED_AFTER_S (or after 15 minutes), with what
 * `look` found changed in the statuses meanwhile (looked at every 30 s).
 */
async function settled(look: () => Promise<Map<string, number>>): Promise<Map<string, number>> {
  const changes = new Map<string, number>();
  let lookedAt = performance.now();
  const writes = async () =>
    [...growth(new Map(), await scrape(twc), KUBERNETES_WRITES, (l) => l.resource ?? '')]
      .filter(([resource]) => resource !== 'leases')
      .reduce((sum, [, n]) => sum + n, 0);
  let last = await writes();
  let quietSince = performance.now();
  const deadline = performance.now() + 15 * 60_000;
  while (performance.now() - quietSince < SETTLED_AFTER_S * 1000 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const now = await writes();
    if (now !== last) quietSince = performance.now();
    last = now;
    if (performance.now() - lookedAt >= 30_000) {
      lookedAt = performance.now();
      for (const [path, n] of await look()) changes.set(path, (changes.get(path) ?? 0) + n);
    }
  }
  for (const [path, n] of await look()) changes.set(path, (changes.get(path) ?? 0) + n);
  return changes;
}

/** Each worker deployment's status, as JSON, by name. */
async function statusesNow(): Promise<Map<string, string>> {
  return new Map((await list()).map((twd) => [twd.metadata.name ?? '', JSON.stringify(twd.status ?? {})]));
}

/** The statuses' leaf paths changed since `before` (list positions as `[]`), by how many worker deployments; and the statuses now. */
async function statusChanges(before: Map<string, string>): Promise<[Map<string, number>, Map<string, string>]> {
  const now = await statusesNow();
  const changes = new Map<string, number>();
  for (const [name, status] of now) {
    const was = before.get(name);
    if (was === status) continue;
    for (const path of new Set(changedLeaves(was === undefined ? {} : JSON.parse(was), JSON.parse(status), 'status')))
      changes.set(path, (changes.get(path) ?? 0) + 1);
  }
  return [changes, now];
}

function changedLeaves(a: unknown, b: unknown, at: string): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (!isObject(a) || !isObject(b)) return JSON.stringify(a) === JSON.stringify(b) ? [] : [at];
  const list = Array.isArray(a) || Array.isArray(b);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((key) =>
    changedLeaves(a[key], b[key], list ? `${at}[]` : `${at}.${key}`),
  );
}

function slowestText({ slowest }: Phase): string {
  if (!slowest) return '';
  const registered =
    slowest.registeredS === undefined
      ? ''
      : `, registered in Temporal ${slowest.registeredS.toFixed(1)} s after Available`;
  return ` (${slowest.name}${registered})`;
}

/** The most changed paths first, as `path N`. */
function changesText(changes: Map<string, number>): string {
  return (
    [...changes]
      .sort(([, a], [, b]) => b - a)
      .slice(0, 12)
      .map(([path, n]) => `${path} ${n}`)
      .join(', ') || 'none'
  );
}

function done(twd: TemporalWorkerDeployment): boolean {
  return (
    twd.status?.currentVersion?.buildID !== undefined &&
    twd.status.currentVersion.buildID === twd.status.targetVersion?.buildID &&
    twd.status.observedGeneration === twd.metadata.generation
  );
}

/** Changes the template of each of `rolled` to `build`'s, 20 at a time, or one every `everyMs`. */
async function rollOut(rolled: string[], build: number, everyMs?: number): Promise<void> {
  const change = (name: string) =>
    custom.patchNamespacedCustomObject(
      { ...object, name, body: { spec: { template: template(name, build) } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  if (everyMs === undefined) return inBatches(rolled, change);
  for (const name of rolled) {
    await change(name);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * For each worker deployment, seconds from its current build's Deployment becoming Available
 * (Kubernetes' condition) to Temporal making it current (Temporal's routing change time).
 */
async function lags(rolled: string[]): Promise<{ name: string; lag: number; registeredS: number | undefined }[]> {
  const deployments = (await apps.listNamespacedDeployment({ namespace })).items;
  const availableAt = new Map<string, number>();
  for (const d of deployments) {
    const labels = d.metadata?.labels ?? {};
    const available = d.status?.conditions?.find((c) => c.type === 'Available' && c.status === 'True');
    if (available?.lastTransitionTime)
      availableAt.set(
        `${labels[LABELS.deploymentName]}/${labels[LABELS.buildId]}`,
        new Date(available.lastTransitionTime).getTime(),
      );
  }
  const result: { name: string; lag: number; registeredS: number | undefined }[] = [];
  const seconds = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    t?.seconds ? Number(t.seconds) + (t.nanos ?? 0) / 1e9 : undefined;
  const measure = async (name: string) => {
    const described = await temporal.workflowService
      .describeWorkerDeployment({
        namespace: environment.temporalNamespace,
        deploymentName: temporalDeploymentName(namespace, name),
      })
      .catch(() => undefined);
    const routing = described?.workerDeploymentInfo?.routingConfig;
    const buildId = routing?.currentDeploymentVersion?.buildId ?? '';
    const from = availableAt.get(`${name}/${buildId}`);
    const changed = seconds(routing?.currentVersionChangedTime);
    const created = seconds(
      described?.workerDeploymentInfo?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === buildId)
        ?.createTime,
    );
    if (from !== undefined && changed !== undefined)
      result.push({
        name,
        lag: changed - from / 1000,
        registeredS: created === undefined ? undefined : created - from / 1000,
      });
  };
  await inBatches(rolled, measure, 5);
  return result.sort((a, b) => a.lag - b.lag);
}

/** Samples the controller every 10 s while `during` runs. */
async function sampling(during: () => Promise<unknown>): Promise<Sample[]> {
  const samples: Sample[] = [await sample(twc)];
  const timer = setInterval(
    () =>
      void sample(twc).then(
        (s) => samples.push(s),
        () => {},
      ),
    SAMPLE_EVERY_MS,
  );
  try {
    await during();
  } finally {
    clearInterval(timer);
  }
  samples.push(await sample(twc));
  return samples;
}

async function sample(of: TwcProcess): Promise<Sample> {
  const metrics = await scrape(of);
  let reads = 0;
  let kubernetes = 0;
  let depth = 0;
  for (const [series, value] of metrics) {
    const method = /^twc_temporal_requests_total\{method="([^"]*)"/.exec(series)?.[1];
    if (method && BUDGETED_READS.has(method[0]!.toLowerCase() + method.slice(1))) reads += value;
    if (series.startsWith('twc_kubernetes_requests_total{')) kubernetes += value;
    if (series.startsWith('workqueue_depth{')) depth += value;
  }
  const mib = (series: string) => (metrics.get(series) ?? NaN) / 2 ** 20;
  const heap = {
    totalMiB: mib('nodejs_heap_size_total_bytes'),
    usedMiB: mib('nodejs_heap_size_used_bytes'),
    externalMiB: mib('nodejs_external_memory_bytes'),
  };
  return {
    at: performance.now(),
    reads,
    kubernetes,
    depth,
    ticks: cpuTicks(of.pid),
    rssMiB: memoryOf(of.pid).rssMiB,
    heap,
  };
}

async function list(): Promise<TemporalWorkerDeployment[]> {
  return ((await custom.listNamespacedCustomObject(object)) as { items: TemporalWorkerDeployment[] }).items;
}

/** Runs `each` over `items`, `size` at a time. */
async function inBatches<T>(items: T[], each: (item: T) => Promise<unknown>, size = 20): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
}

function report(peakMiB: number, others: string[]): void {
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
  console.log(
    `scale: ${count} worker deployments in one namespace, one \`twc run\` (the image's command) with its defaults${twcArgs.length ? ` but ${twcArgs.join(' ')}` : ''} (poll ${POLL_INTERVAL_S} s, read budget ${DEFAULT_READS_PER_SECOND}/s, half of it for backlog and pollers); Temporal's limits of 100 worker deployments and 1,200 concurrent polls a namespace raised (${Object.keys(TEMPORAL_LIMITS_RAISED).join(', ')})`,
  );
  for (const p of phases) {
    const within = p.lags.filter((lag) => lag <= GOALS.currentWithinS).length;
    const unmeasured = p.unmeasured ? ` (${p.unmeasured} not measured)` : '';
    const rates = ratesOf(p.samples);
    console.log(`  ${p.name}: ${p.rollouts} builds Current ${p.allCurrentS.toFixed(0)} s after the change began`);
    console.log(
      `    from Deployment Available to Current: p50 ${quantile(p.lags, 0.5).toFixed(1)} s, p90 ${quantile(p.lags, 0.9).toFixed(1)} s, max ${quantile(p.lags, 1).toFixed(1)} s${slowestText(p)}; within ${GOALS.currentWithinS} s: ${within} of ${p.rollouts}${unmeasured} (goal: all, ${verdict(within === p.rollouts)})`,
    );
    console.log(
      `    Temporal reads ${rates.reads.mean.toFixed(1)}/s, at most ${rates.reads.max.toFixed(1)}/s over 10 s (goal ≤ ${GOALS.readsPerSecond} over the phase, ${verdict(rates.reads.mean <= GOALS.readsPerSecond * 1.02)}; the bucket's burst can lift a 10 s window above it); Kubernetes requests ${rates.kubernetes.mean.toFixed(1)}/s, at most ${rates.kubernetes.max.toFixed(1)}/s`,
    );
    const largest = p.samples.reduce((a, b) => (b.rssMiB > a.rssMiB ? b : a));
    const { totalMiB, usedMiB, externalMiB } = largest.heap;
    console.log(
      `    controller CPU ${rates.cpu.mean.toFixed(2)} cores, at most ${rates.cpu.max.toFixed(2)}; RSS at most ${largest.rssMiB.toFixed(0)} MiB sampled every ${SAMPLE_EVERY_MS / 1000} s (then V8's heap ${totalMiB.toFixed(0)} MiB, ${usedMiB.toFixed(0)} used; external ${externalMiB.toFixed(0)} MiB), peak RSS of the run so far ${p.peakMiB.toFixed(0)} MiB; queue depth at most ${Math.max(...p.samples.map((s) => s.depth))}`,
    );
    const pace = p.pace && GOALS[p.pace];
    if (pace) {
      const [p50, max] = [quantile(p.lags, 0.5), quantile(p.lags, 1)];
      console.log(
        `    goals of issue 40 (${p.pace === 'atOnce' ? 'at once' : 'one a second'}): p50 ${p50.toFixed(1)} s (goal ≤ ${pace.p50S} s, ${verdict(p50 <= pace.p50S)}), max ${max.toFixed(1)} s (goal ≤ ${pace.maxS} s, ${verdict(max <= pace.maxS)})`,
      );
    }
    printRolloutCosts(p);
    console.log(
      `    queue wait (its buckets are powers of ten, so means): a rollout's progress (top lane) ${mean(p, 'workqueue_queue_duration_seconds', 'priority="top"')}, other changes and what falls due (high) ${mean(p, 'workqueue_queue_duration_seconds', 'priority="high"')}, routine looks (low) ${mean(p, 'workqueue_queue_duration_seconds', 'priority="low"')}; reconcile p50 ${histogram(p, 'controller_runtime_reconcile_time_seconds', 0.5)}, p99 ${histogram(p, 'controller_runtime_reconcile_time_seconds', 0.99)}`,
    );
  }
  if (steady) {
    const rates = ratesOf(steady.samples);
    const writes = [...steady.writes.values()].reduce((sum, n) => sum + n, 0);
    console.log(
      `  steady for ${steadySeconds} s, once no status was written for ${SETTLED_AFTER_S.toFixed(0)} s (${settleS.toFixed(0)} s after the last phase, peak RSS of the run then ${settledPeakMiB.toFixed(0)} MiB; what the statuses changed meanwhile, by worker deployments: ${changesText(settlingChanges)}):`,
    );
    console.log(
      `    Kubernetes writes ${writes}${writes ? ` (${[...steady.writes].map(([k, n]) => `${k} ${n}`).join(', ')})` : ''} besides the Lease renewals (goal 0, ${verdict(writes === 0)}${writes ? `; the statuses changed ${changesText(steady.changed)}` : ''}); Temporal reads ${rates.reads.mean.toFixed(1)}/s, at most ${rates.reads.max.toFixed(1)}/s; CPU ${rates.cpu.mean.toFixed(2)} cores`,
    );
  }
  console.log(
    `  controller peak RSS ${peakMiB.toFixed(0)} MiB (goal ≤ ${GOALS.rssMiB} MiB, ${verdict(peakMiB <= GOALS.rssMiB)}); peak RSS of the ${others.join(', the ')}`,
  );
}

/**
 * What each rollout completed in the phase cost, from the controller's own count
 * (controller/rollout-costs.ts): Temporal reads and writes by method, reconciles, and the time its
 * reconciles waited in the queue, for read tokens, for call slots and on Temporal's answers.
 */
function printRolloutCosts(p: Phase): void {
  const grew = (series: string) => (p.after.get(series) ?? 0) - (p.before.get(series) ?? 0);
  const rollouts = grew('twc_rollouts_total');
  if (rollouts === 0) return console.log("    per rollout: none completed by the controller's count");
  const reads = new Map<string, number>();
  const writes = new Map<string, number>();
  for (const series of p.after.keys()) {
    const method = /^twc_rollout_temporal_calls_total\{method="([^"]*)"/.exec(series)?.[1];
    if (!method) continue;
    const into = BUDGETED_READS.has(method[0]!.toLowerCase() + method.slice(1)) ? reads : writes;
    into.set(method, grew(series) / rollouts);
  }
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const list = (m: Map<string, number>) =>
    [...m]
      .filter(([, n]) => n > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([method, n]) => `${method} ${n.toFixed(2)}`)
      .join(', ') || 'none';
  const perRollout = sum(reads);
  console.log(
    `    per rollout (${rollouts} completed): Temporal reads ${perRollout.toFixed(2)} (goal ≤ ${GOALS.readsPerRollout}, ${perRollout <= GOALS.readsPerRollout ? 'met' : 'NOT MET'}: ${list(reads)}); writes ${sum(writes).toFixed(2)} (${list(writes)}); reconciles ${(grew('twc_rollout_reconciles_total') / rollouts).toFixed(2)}`,
  );
  const wait = (on: string) => {
    const series = (part: string) => `twc_rollout_wait_seconds_${part}{on="${on}"}`;
    const count = grew(series('count'));
    return count === 0 ? 'none' : `${(grew(series('sum')) / count).toFixed(2)} s`;
  };
  console.log(
    `    per rollout, mean time its reconciles spent: in the queue ${wait('queue')}, for read tokens ${wait('read_token')}, for call slots ${wait('call_slot')}, on Temporal's answers ${wait('temporal')}; a call's wait for its slot: mean ${mean(p, 'twc_temporal_call_slot_wait_seconds', '')}`,
  );
}

/** Mean over the whole phase and the most over one sampling interval, a second. */
function ratesOf(samples: Sample[]): Record<'reads' | 'kubernetes' | 'cpu', { mean: number; max: number }> {
  const rate = (value: (s: Sample) => number) => {
    const [first, last] = [samples[0], samples.at(-1)];
    if (!first || !last || last.at === first.at) return { mean: 0, max: 0 };
    let max = 0;
    for (let i = 1; i < samples.length; i++) {
      const [a, b] = [samples[i - 1]!, samples[i]!];
      if (b.at - a.at >= SAMPLE_EVERY_MS / 2) max = Math.max(max, ((value(b) - value(a)) * 1000) / (b.at - a.at));
    }
    return { mean: ((value(last) - value(first)) * 1000) / (last.at - first.at), max };
  };
  return {
    reads: rate((s) => s.reads),
    kubernetes: rate((s) => s.kubernetes),
    cpu: rate((s) => s.ticks / TICKS_PER_SECOND),
  };
}

/** A quantile of a histogram's observations during a phase, interpolated in its bucket as Prometheus does. */
/** The mean of the histogram `name` over the phase, of its series whose labels include `label`. */
function mean(p: Phase, name: string, label: string): string {
  const growth = (part: string) =>
    [...p.after]
      .filter(([series]) => series.startsWith(`${name}_${part}{`) && series.includes(label))
      .reduce((sum, [series, value]) => sum + value - (p.before.get(series) ?? 0), 0);
  const count = growth('count');
  const seconds = growth('sum') / count;
  return count === 0 ? 'none' : `${seconds.toFixed(seconds < 1 ? 3 : 1)} s`;
}

/** A quantile of the histogram `name` over the phase. */
function histogram(p: Phase, name: string, q: number): string {
  const buckets = new Map<number, number>();
  for (const [series, value] of p.after) {
    const le = new RegExp(`^${name}_bucket\\{.*le="([^"]+)"`).exec(series)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + value - (p.before.get(series) ?? 0));
  }
  const sorted = [...buckets].sort(([a], [b]) => a - b);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total === 0) return 'none';
  const rank = q * total;
  const at = sorted.findIndex(([, n]) => n >= rank);
  const [upper, count] = sorted[at] ?? [Infinity, total];
  const [lower, below] = sorted[at - 1] ?? [0, 0];
  if (upper === Infinity) return `> ${lower} s`;
  const seconds = lower + ((upper - lower) * (rank - below)) / Math.max(count - below, 1);
  return seconds < 0.01 ? `${(seconds * 1000).toFixed(1)} ms` : `${seconds.toFixed(seconds < 1 ? 2 : 1)} s`;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
