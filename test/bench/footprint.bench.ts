// `npm run bench`, part four: the footprint of the controller process as users run it: `twc run` as
// the image runs it (twc-process.ts), with its DEFAULT flags (the webhook with its self-managed
// certificate, backlog metrics and leader election on; 10 s poll, 5m poller history). One worker
// deployment of the sample worker (2 replicas, AllAtOnce, the default sunset that keeps old builds'
// Pods an hour) is rolled out five times, then left idle: Temporal reads a minute by method, CPU
// seconds a minute (/proc/<pid>/stat over the window) and how often its JavaScript thread woke,
// beside what one wake of an idle Node.js costs on this machine (wake-cost.ts), RSS (VmRSS after it, VmHWM over the whole
// life: start, rollouts, window); then 200 idle worker deployments made as in objects.ts, for the
// peak RSS. Calls come from the process's own /metrics, scraped with name[] so that the scrape asks
// for no backlog figures (a scrape of the backlog gauges makes every build's backlog read). The
// idle window is, by default, one period of an idle worker deployment's pollers reads (half the
// poller history), so that it holds one of them whatever its phase. Each figure is printed beside
// its goal (issue 40) and the Go controller's, as measured on this environment. With --profile DIR,
// the windows are also CPU-profiled, their allocations sampled, and end with a heap snapshot
// (profile-hook.ts), which changes the figures: profile and measure in separate runs. Prints
// figures; asserts nothing.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_POLLER_HISTORY_MS } from '../../src/api/defaults.ts';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { sampleWorkerTemplate } from '../support/sample-template.ts';
import {
  BENCH_TEMPORAL_CONFIG,
  createConnection,
  createNamespace,
  createWorkerDeployment,
  idleWorkerDeployments,
} from './objects.ts';
import { until } from './poll.ts';
import { wakeCostMs } from './wake-cost.ts';
import {
  cpuTicks,
  growth,
  KUBERNETES_READS,
  KUBERNETES_WRITES,
  memoryOf,
  scrape,
  startTwc,
  TEMPORAL_CALLS,
  mainThreadWakes,
  threadTicks,
  TICKS_PER_SECOND,
  type TwcProcess,
} from './twc-process.ts';

const { values } = parseArgs({
  options: {
    rollouts: { type: 'string', default: '5' },
    replicas: { type: 'string', default: '2' },
    'window-seconds': { type: 'string', default: String(DEFAULT_POLLER_HISTORY_MS / 2 / 1000) },
    'worker-deployments': { type: 'string', default: '200' },
    profile: { type: 'string' },
  },
});
const rollouts = Number(values.rollouts);
const replicas = Number(values.replicas);
const windowSeconds = Number(values['window-seconds']);
const many = Number(values['worker-deployments']);
const profileDir = values.profile && path.resolve(values.profile);
const POLL_INTERVAL_S = DEFAULT_POLL_INTERVAL_MS / 1000;
/** Issue 40's goals. */
const GOALS = { readsPerMinute: 8, cpuSecondsPerMinute: 0.1, oneMiB: 100, manyMiB: 128 };
/**
 * Issue 40's table: the Go controller, default flags, on this local environment, one worker
 * deployment with 2 replicas after 5 AllAtOnce rollouts, then 50 worker deployments. It cannot run
 * here: these are its figures as measured then.
 */
const GO = {
  measured: '2026-11-26',
  readsPerMinute: 6,
  cpuSecondsPerMinute: 0.1,
  afterRolloutsMiB: 60,
  peakFiftyMiB: 70,
};
/** The metrics the bench reads: naming them leaves the backlog gauges uncollected. */
const SCRAPED = ['twc_temporal_requests_total', 'twc_kubernetes_requests_total'];

interface Figures {
  cpuSecondsPerMinute: number;
  /** Where that CPU went, in seconds a minute. */
  cpuByThread: { mainUser: number; mainKernel: number; v8: number; other: number };
  /** How often the JavaScript thread slept and woke, a minute. */
  wakesPerMinute: number;
  peakMiB: number;
  endMiB: number;
  kubernetesWrites: Map<string, number>;
  kubernetesReads: Map<string, number>;
  temporalCalls: Map<string, number>;
}

const environment = await startEnvironment({
  crdDir: CRD_DIR,
  temporalDynamicConfig: BENCH_TEMPORAL_CONFIG,
  log: (line) => console.error(line),
});
const started = performance.now();
let afterRollouts: (Figures & { rolloutSeconds: number; wakeMs: number }) | undefined;
let manyFigures: Figures | undefined;
try {
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const namespace = 'bench-footprint-rollouts';
  await createNamespace(environment, namespace);
  afterRollouts = await withTwc(namespace, 'twc-rollouts', async (twc) => {
    const rolloutsStarted = performance.now();
    await rollOut(namespace);
    const rolloutSeconds = (performance.now() - rolloutsStarted) / 1000;
    const figures = await idle(twc, windowSeconds);
    // Right after the window, with everything around as it was then.
    return { ...figures, rolloutSeconds, wakeMs: wakeCostMs() };
  });
  if (many > 0) {
    const manyNamespace = `bench-footprint-${many}`;
    await createNamespace(environment, manyNamespace);
    // Peak RSS covers the start, the creation of the worker deployments and their first reconciles.
    manyFigures = await withTwc(manyNamespace, `twc-${many}`, async (twc) => {
      await idleWorkerDeployments(environment, manyNamespace, many);
      return idle(twc, 2 * POLL_INTERVAL_S);
    });
  }
} finally {
  await environment.stop();
}

const mib = (n: number) => `${n.toFixed(0)} MiB`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
const perMinute = (m: Map<string, number>, seconds: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ${((n / seconds) * 60).toFixed(1)}`)
    .join(', ') || 'none';
const go = `Go controller, measured on ${GO.measured} on this environment (issue 40; it is not run here)`;
console.log(
  `controller footprint: \`twc run\` as the image runs it, with its default flags (webhook, backlog metrics and leader election on; poll interval ${POLL_INTERVAL_S} s, poller history ${DEFAULT_POLLER_HISTORY_MS / 60_000}m)${profileDir ? ' (PROFILED: figures perturbed)' : ''}, ${((performance.now() - started) / 1000).toFixed(0)} s in all:`,
);
if (afterRollouts) {
  const r = afterRollouts;
  const reads = [...r.temporalCalls].reduce((sum, [, n]) => sum + n, 0);
  const readsPerMinute = (reads / windowSeconds) * 60;
  const leases = new Map([...r.kubernetesWrites].filter(([key]) => key.endsWith(' leases')));
  const writes = new Map([...r.kubernetesWrites].filter(([key]) => !key.endsWith(' leases')));
  console.log(
    `  one worker deployment after ${rollouts} rollouts (${replicas} replicas, AllAtOnce; ${rollouts + 1} builds with Pods; the rollouts took ${r.rolloutSeconds.toFixed(0)} s), idle for ${windowSeconds} s:`,
  );
  console.log(
    `    Temporal reads a minute: ${readsPerMinute.toFixed(1)} (goal ≤ ${GOALS.readsPerMinute}, ${verdict(readsPerMinute <= GOALS.readsPerMinute)}; ${go}: ${GO.readsPerMinute}), by method: ${perMinute(r.temporalCalls, windowSeconds)}`,
  );
  console.log(
    `    controller CPU: ${r.cpuSecondsPerMinute.toFixed(3)} s a minute (goal ≤ ${GOALS.cpuSecondsPerMinute}, ${verdict(r.cpuSecondsPerMinute <= GOALS.cpuSecondsPerMinute)}; Go controller ${GO.cpuSecondsPerMinute.toFixed(2)}); of which the JavaScript thread ${r.cpuByThread.mainUser.toFixed(3)} s in user space and ${r.cpuByThread.mainKernel.toFixed(3)} s in the kernel, V8's helper threads ${r.cpuByThread.v8.toFixed(3)} s, others ${r.cpuByThread.other.toFixed(3)} s`,
  );
  console.log(
    `    the JavaScript thread woke ${r.wakesPerMinute.toFixed(0)} times a minute; a wake of an idle Node.js from a timer costs ${r.wakeMs.toFixed(2)} ms of CPU on this machine (test/bench/wake-cost.ts), so ${((r.wakesPerMinute * r.wakeMs) / 1000).toFixed(3)} s a minute are wakes before any work`,
  );
  console.log(
    `    RSS after the window ${mib(r.endMiB)} (Go controller after the rollouts ${GO.afterRolloutsMiB} MiB); peak RSS ${mib(r.peakMiB)} (goal ≤ ${GOALS.oneMiB} MiB, ${verdict(r.peakMiB <= GOALS.oneMiB)})`,
  );
  console.log(
    `    Kubernetes writes a minute: ${perMinute(writes, windowSeconds)} (goal: none but the Lease, ${verdict(writes.size === 0)}), Lease renewals ${perMinute(leases, windowSeconds)}; reads and watches ${perMinute(r.kubernetesReads, windowSeconds)}`,
  );
}
if (manyFigures) {
  const r = manyFigures;
  console.log(
    `  ${many} idle worker deployments (no Pods): peak RSS ${mib(r.peakMiB)} (goal ≤ ${GOALS.manyMiB} MiB, ${verdict(r.peakMiB <= GOALS.manyMiB)}; Go controller ${GO.peakFiftyMiB} MiB at its peak with 50, not measured at ${many}); RSS at the end ${mib(r.endMiB)}; Temporal reads a minute over the last ${2 * POLL_INTERVAL_S} s: ${perMinute(r.temporalCalls, 2 * POLL_INTERVAL_S)}`,
  );
}

/** Creates the worker deployment `orders` and rolls it out `rollouts` times, each until its new build is current. */
async function rollOut(namespace: string): Promise<void> {
  const custom = environment.kubeconfig.makeApiClient(CustomObjectsApi);
  const object = { group: GROUP, version: VERSION, namespace, plural: KINDS.TemporalWorkerDeployment.plural };
  const template = (build: number) => sampleWorkerTemplate('footprint', `build-${build}`);
  const read = async () =>
    (await custom.getNamespacedCustomObject({ ...object, name: 'orders' })) as TemporalWorkerDeployment;
  await createConnection(environment, namespace);
  await createWorkerDeployment(environment, namespace, 'orders', { replicas, template: template(0) });
  let current = '';
  for (let build = 0; build <= rollouts; build++) {
    if (build > 0)
      await custom.patchNamespacedCustomObject(
        { ...object, name: 'orders', body: { spec: { template: template(build) } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    const before = current;
    await until(
      async () => {
        const status = (await read()).status;
        current = status?.currentVersion?.buildID ?? '';
        return current !== '' && current !== before && status?.targetVersion?.buildID === current;
      },
      { intervalMs: 500 },
    );
  }
}

interface Twc extends TwcProcess {
  /** Under --profile: starts the CPU profile, or stops it and writes it with a heap snapshot. */
  profile?: () => Promise<void>;
}

/** Runs `twc run` (its defaults but for its ports and namespaces) on `namespace` while `use` runs, ready (caches synced) before. */
async function withTwc<T>(namespace: string, name: string, use: (twc: Twc) => Promise<T>): Promise<T> {
  const dir = profileDir;
  const twc = await startTwc(
    environment,
    namespace,
    [],
    dir
      ? {
          ...process.env,
          NODE_OPTIONS: `--import=${path.join(import.meta.dirname, 'profile-hook.ts')}`,
          TWC_PROFILE_DIR: dir,
          TWC_PROFILE_NAME: name,
        }
      : process.env,
  );
  let profiling = false;
  try {
    return await use({
      ...twc,
      ...(dir
        ? {
            profile: async () => {
              twc.signal('SIGUSR2');
              if (!(profiling = !profiling))
                await until(() => Promise.resolve(existsSync(path.join(dir, `${name}.heapsnapshot`))), {
                  timeoutMs: 120_000,
                });
            },
          }
        : {}),
    });
  } finally {
    await twc.stop();
  }
}

/**
 * The figures of an idle window of `seconds`, after nine poll intervals: the last status writes
 * have landed, and the reads that follow a rollout are done (its build's task queues, learnt once
 * Temporal has recorded them and confirmed three intervals later, or three more if the second
 * read listed more or failed; the pollers read an interval after its Pods are all available).
 */
async function idle(twc: Twc, seconds: number): Promise<Figures> {
  await new Promise((resolve) => setTimeout(resolve, 9 * POLL_INTERVAL_S * 1000));
  const before = await scrape(twc, SCRAPED);
  const cpuBefore = cpuTicks(twc.pid);
  const threadsBefore = threadTicks(twc.pid);
  const wakesBefore = mainThreadWakes(twc.pid);
  await twc.profile?.();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const cpuAfter = cpuTicks(twc.pid);
  const threadsAfter = threadTicks(twc.pid);
  const wakes = mainThreadWakes(twc.pid) - wakesBefore;
  const perMinuteOf = (ticks: number) => (ticks / TICKS_PER_SECOND / seconds) * 60;
  const memory = memoryOf(twc.pid);
  const after = await scrape(twc, SCRAPED);
  await twc.profile?.();
  return {
    cpuSecondsPerMinute: perMinuteOf(cpuAfter - cpuBefore),
    cpuByThread: {
      mainUser: perMinuteOf(threadsAfter.main.user - threadsBefore.main.user),
      mainKernel: perMinuteOf(threadsAfter.main.kernel - threadsBefore.main.kernel),
      v8: perMinuteOf(threadsAfter.v8 - threadsBefore.v8),
      other: perMinuteOf(threadsAfter.other - threadsBefore.other),
    },
    wakesPerMinute: (wakes / seconds) * 60,
    peakMiB: memory.peakMiB,
    endMiB: memory.rssMiB,
    kubernetesWrites: growth(before, after, KUBERNETES_WRITES, (l) => `${l.verb} ${l.resource}`),
    kubernetesReads: growth(before, after, KUBERNETES_READS, (l) => `${l.verb} ${l.resource}`),
    temporalCalls: growth(before, after, TEMPORAL_CALLS, (l) => l.method ?? ''),
  };
}
