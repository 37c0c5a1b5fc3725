// `npm run bench`, part four: the footprint of the controller process as users run it: `bin/twc
// run` as a child process with its default flags (leader election on, 10 s poll), idle over a
// set of worker deployments made as in objects.ts, and for one worker deployment again with
// --no-leader-elect, the configuration the Go figure was measured in. CPU comes from
// /proc/<pid>/stat over an idle window, peak RSS from VmHWM (the whole life of the process:
// start, first reconciles, window), calls from the process's own /metrics. With --profile DIR,
// the window is also CPU-profiled and ends with a heap snapshot (profile-hook.ts), which changes
// the figures: profile and measure in separate runs. Prints figures; asserts nothing.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CRD_DIR } from '../../scripts/generate.ts';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { BENCH_TEMPORAL_CONFIG, createNamespace, idleWorkerDeployments } from './objects.ts';
import { until } from './poll.ts';
import {
  cpuTicks,
  growth,
  KUBERNETES_READS,
  KUBERNETES_WRITES,
  memoryOf,
  scrape,
  startTwc,
  TEMPORAL_CALLS,
  TICKS_PER_SECOND,
  type TwcProcess,
} from './twc-process.ts';

const { values } = parseArgs({
  options: {
    'worker-deployments': { type: 'string', default: '1,200' },
    'window-seconds': { type: 'string', default: '60' },
    profile: { type: 'string' },
  },
});
const counts = (values['worker-deployments'] ?? '').split(',').map(Number);
const windowSeconds = Number(values['window-seconds']);
const profileDir = values.profile && path.resolve(values.profile);
const POLL_INTERVAL_S = 10; // twc run's default
const GOALS = { cpuSecondsPerMinute: 0.1, peakMiB: 128, oneMiB: 100 };
// Measured earlier side by side on this local environment (issue 11): one worker deployment,
// 60 s windows, 10 s poll.
const GO = { cpuSecondsPerMinute: 0.05, peakMiB: 58 };

interface Figures {
  cpuSecondsPerMinute: number;
  peakMiB: number;
  endMiB: number;
  kubernetesWrites: Map<string, number>;
  kubernetesReads: Map<string, number>;
  temporalCalls: Map<string, number>;
}

const environment = await startEnvironment({
  crdDir: CRD_DIR,
  temporalDynamicConfig: BENCH_TEMPORAL_CONFIG,
  nodeAgent: false,
  log: (line) => console.error(line),
});
const results: { count: number; figures: Figures; withoutLeaderElection?: Figures }[] = [];
try {
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  for (const count of counts) {
    const namespace = `bench-footprint-${count}`;
    await createNamespace(environment, namespace);
    // Peak RSS covers the start, the creation of the worker deployments and their first reconciles.
    const figures = await withTwc(namespace, [], `twc-${count}`, async (twc) => {
      await idleWorkerDeployments(environment, namespace, count);
      return idle(twc);
    });
    // The Go figure is of a controller without leader election: its binary's --leader-elect is
    // off by default, and the issue counts 6 Kubernetes writes a minute for it where client-go's
    // 2 s retry period alone would renew the Lease 30 times. Its goal is judged on ours started
    // the same way; the default's figure is printed beside it.
    const withoutLeaderElection =
      count === 1 ? await withTwc(namespace, ['--no-leader-elect'], `twc-${count}-no-leader-elect`, idle) : undefined;
    results.push({ count, figures, ...(withoutLeaderElection ? { withoutLeaderElection } : {}) });
  }
} finally {
  await environment.stop();
}

const mib = (n: number) => `${n.toFixed(0)} MiB`;
const calls = (m: Map<string, number>, per: number) =>
  [...m].map(([key, n]) => `${key} ${(n / per).toFixed(1)}`).join(', ') || 'none';
console.log(
  `controller footprint: \`bin/twc run\` (leader election on, poll interval ${POLL_INTERVAL_S} s, compile cache warm), idle for ${windowSeconds} s${profileDir ? ' (PROFILED: figures perturbed)' : ''}:`,
);
for (const { count, figures: r, withoutLeaderElection } of results) {
  const polls = windowSeconds / POLL_INTERVAL_S;
  const writes = [...r.kubernetesWrites].filter(([key]) => !key.endsWith(' leases'));
  const leaseWrites = [...r.kubernetesWrites].filter(([key]) => key.endsWith(' leases'));
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
  const peakGoal =
    count === 1
      ? ` (goal: as far below ${GOALS.oneMiB} MiB as the profile allows, ${verdict(r.peakMiB < GOALS.oneMiB)})`
      : ` (goal ≤ ${GOALS.peakMiB} MiB, ${verdict(r.peakMiB <= GOALS.peakMiB)})`;
  const writesPerPoll = writes.reduce((sum, [, n]) => sum + n, 0) / polls;
  const readsPerPoll = [...r.temporalCalls].reduce((sum, [, n]) => sum + n, 0) / polls / count;
  console.log(`  ${count} worker deployment${count === 1 ? '' : 's'}:`);
  const renewals = leaseWrites.reduce((sum, [, n]) => sum + n, 0) * (60 / windowSeconds);
  console.log(
    `    idle CPU ${r.cpuSecondsPerMinute.toFixed(3)} s a minute, with leader election (${renewals.toFixed(0)} Lease renewals a minute)`,
  );
  console.log(`    peak RSS ${mib(r.peakMiB)}${peakGoal}; RSS after the window ${mib(r.endMiB)}`);
  console.log(
    `    per poll interval: Kubernetes writes ${writesPerPoll} (goal 0, ${verdict(writesPerPoll === 0)})${leaseWrites.length > 0 ? `, besides the Lease renewals of leader election (${calls(new Map(leaseWrites), polls)})` : ''}; Temporal calls ${calls(r.temporalCalls, polls)} (goal: one read a worker deployment, ${verdict(Math.abs(readsPerPoll - 1) <= 0.05)})`,
  );
  console.log(`    per poll interval: Kubernetes reads and watches ${calls(r.kubernetesReads, polls)}`);
  if (withoutLeaderElection) {
    const cpu = withoutLeaderElection.cpuSecondsPerMinute;
    const perRenewalMs = renewals > 0 ? ((r.cpuSecondsPerMinute - cpu) / renewals) * 1000 : 0;
    console.log(
      `    started again with --no-leader-elect, as the Go figure was measured: idle CPU ${cpu.toFixed(3)} s a minute (goal ≤ ${GOALS.cpuSecondsPerMinute}, ${verdict(cpu <= GOALS.cpuSecondsPerMinute)}), peak RSS ${mib(withoutLeaderElection.peakMiB)}; a Lease renewal costs about ${perRenewalMs.toFixed(1)} ms of CPU`,
    );
  }
}
console.log(
  `  Go controller, measured earlier (issue 11; one worker deployment, 60 s windows, 10 s poll): idle CPU ${GO.cpuSecondsPerMinute} s a minute, peak RSS ${GO.peakMiB} MiB`,
);

interface Twc extends TwcProcess {
  /** Under --profile: starts the CPU profile, or stops it and writes it with a heap snapshot. */
  profile?: () => Promise<void>;
}

/** Runs `twc run` on `namespace` while `use` runs, ready (caches synced) before. */
async function withTwc<T>(namespace: string, args: string[], name: string, use: (twc: Twc) => Promise<T>): Promise<T> {
  const dir = profileDir;
  const twc = await startTwc(
    environment,
    namespace,
    args,
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

/** The figures of an idle window, once the last status writes have landed (two poll intervals). */
async function idle(twc: Twc): Promise<Figures> {
  await new Promise((resolve) => setTimeout(resolve, 2 * POLL_INTERVAL_S * 1000));
  const before = await scrape(twc);
  const cpuBefore = cpuTicks(twc.pid);
  await twc.profile?.();
  await new Promise((resolve) => setTimeout(resolve, windowSeconds * 1000));
  const cpuAfter = cpuTicks(twc.pid);
  const memory = memoryOf(twc.pid);
  const after = await scrape(twc);
  await twc.profile?.();
  return {
    cpuSecondsPerMinute: ((cpuAfter - cpuBefore) / TICKS_PER_SECOND / windowSeconds) * 60,
    peakMiB: memory.peakMiB,
    endMiB: memory.rssMiB,
    kubernetesWrites: growth(before, after, KUBERNETES_WRITES, (l) => `${l.verb} ${l.resource}`),
    kubernetesReads: growth(before, after, KUBERNETES_READS, (l) => `${l.verb} ${l.resource}`),
    temporalCalls: growth(before, after, TEMPORAL_CALLS, (l) => l.method ?? ''),
  };
}
