// `twc run` as users run it, as a child process of a bench, and what /proc and its /metrics say of
// it: CPU ticks, resident memory, each metric series.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Environment } from '../../dev/localenv/environment.ts';
import { freePort } from '../../dev/localenv/ports.ts';
import { bundleCli } from '../../scripts/bundle.ts';
import { bundleCommand, IMAGE_ENV } from '../../scripts/image/build.ts';
import { parse } from 'yaml';
import { until } from './poll.ts';

export const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
/** The Node.js the image copies in (the npm `node` package). */
export const PINNED_NODE = path.join(import.meta.dirname, '../../node_modules/node/bin/node');
/** The image's environment but its PATH (its programs are not this machine's). */
export const IMAGE_VARIABLES = Object.fromEntries(
  IMAGE_ENV.map((entry) => entry.split('=', 2)).filter(([name]) => name !== 'PATH'),
) as Record<string, string>;
let bundled: Promise<string[]> | undefined;

/**
 * The heap limit the chart gives V8 by default: half the container's default memory limit, as its
 * Deployment template sets NODE_OPTIONS, so a bench's figures are those of the default install.
 */
export function chartNodeOptions(): string {
  const values = parse(
    readFileSync(path.join(import.meta.dirname, '../../charts/temporal-worker-controller/values.yaml'), 'utf8'),
  ) as { resources: { limits: { memory: string } } };
  const limit = /^(\d+)(Mi|Gi)$/.exec(values.resources.limits.memory);
  if (!limit)
    throw new Error(`the chart's resources.limits.memory is not in Mi or Gi: ${values.resources.limits.memory}`);
  const mebibytes = Number(limit[1]) * (limit[2] === 'Gi' ? 1024 : 1);
  return `--max-old-space-size=${mebibytes / 2}`;
}

/** The image's command, on a bundle of the sources checked out made once a process. */
function twcCommand(): Promise<string[]> {
  bundled ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'twc-bench-bundle-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    await bundleCli(dir);
    return bundleCommand(PINNED_NODE, dir);
  })();
  return bundled;
}

export interface TwcProcess {
  pid: number;
  metricsPort: number;
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, and resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts `twc run` as the image runs it (its entrypoint and environment, on a bundle of the sources
 * checked out, with the chart's default heap limit) on `namespace` with its defaults but for its ports (the webhook on, with its
 * self-managed certificate) and `args`, and resolves once it is ready (caches synced).
 */
export async function startTwc(
  environment: Environment,
  namespace: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  /** A file to write its log to (JSON lines, on its stderr); otherwise only the last of it is kept, for an error. */
  logFile?: string,
): Promise<TwcProcess> {
  const [node = '', ...nodeArgs] = await twcCommand();
  const snapshots = env.TWC_HEAP_SNAPSHOTS && path.resolve(env.TWC_HEAP_SNAPSHOTS);
  const [metricsPort, probePort, webhookPort] = [await freePort(), await freePort(), await freePort()];
  const log = logFile === undefined ? undefined : openSync(logFile, 'w');
  const child = spawn(
    node,
    [
      ...nodeArgs,
      'run',
      `--kubeconfig=${environment.kubeconfigPath}`,
      `--namespace=${namespace}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      `--health-probe-bind-address=127.0.0.1:${probePort}`,
      `--webhook-bind-address=127.0.0.1:${webhookPort}`,
      `--webhook-namespace=${namespace}`,
      `--leader-election-namespace=${namespace}`,
      ...args,
    ],
    {
      stdio: ['ignore', 'ignore', log ?? 'pipe'],
      env: {
        ...env,
        ...IMAGE_VARIABLES,
        NODE_OPTIONS: [
          chartNodeOptions(),
          ...(env.NODE_OPTIONS ? [env.NODE_OPTIONS] : []),
          ...(snapshots ? [`--heapsnapshot-signal=SIGUSR2`, `--diagnostic-dir=${snapshots}`] : []),
        ].join(' '),
      },
    },
  );
  if (log !== undefined) closeSync(log);
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-10_000)));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let snapshotting: NodeJS.Timeout | undefined;
  const stop = async () => {
    if (snapshotting) clearInterval(snapshotting);
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await until(async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.ok ?? false, {
      timeoutMs: 60_000,
    });
  } catch (error) {
    await stop();
    throw new Error(
      `twc run did not become ready\n${logFile === undefined ? errors : readFileSync(logFile, 'utf8').slice(-10_000)}`,
      { cause: error },
    );
  }
  // Signalled only once ready: a SIGUSR2 before Node has set its handler would end the process.
  if (snapshots) snapshotting = snapshotOnGrowth(child.pid ?? 0, snapshots);
  return { pid: child.pid ?? 0, metricsPort, signal: (signal) => child.kill(signal), stop };
}

/**
 * TWC_HEAP_SNAPSHOTS=<dir> (opt-in, for finding what grows): the process writes a heap snapshot
 * into <dir> (Node's --heapsnapshot-signal) each time its RSS has grown by 16 MiB since the last
 * one, so the last snapshot is of its largest state. Writing one takes seconds and memory of its
 * own: figures of such a run are not the product's.
 */
function snapshotOnGrowth(pid: number, dir: string): NodeJS.Timeout {
  mkdirSync(dir, { recursive: true });
  const written = () => readdirSync(dir).filter((file) => file.endsWith('.heapsnapshot')).length;
  let next = 0;
  let waiting: number | undefined;
  return setInterval(() => {
    try {
      if (waiting !== undefined && written() === waiting) return;
      const rss = memoryOf(pid).rssMiB;
      if (waiting !== undefined) {
        // The snapshot is written: the next one once the process has grown past what it took.
        waiting = undefined;
        next = rss + 16;
      } else if (rss >= next) {
        waiting = written();
        process.kill(pid, 'SIGUSR2');
      }
    } catch {
      // The process has ended.
    }
  }, 2000);
}

/** utime + stime of a process, in clock ticks. */
export function cpuTicks(pid: number): number {
  const { user, kernel } = ticksOf(`/proc/${pid}/stat`);
  return user + kernel;
}

export interface ThreadTicks {
  /** Node's JavaScript thread, in user space and in the kernel (its syscalls: sockets, TLS writes). */
  main: { user: number; kernel: number };
  /** V8's helper threads: concurrent marking, sweeping, compilation. */
  v8: number;
  /** Every other thread: libuv's pool, the inspector's, Node's platform. */
  other: number;
}

/** How often a process's JavaScript thread has gone to sleep (and woken) since it started: its voluntary context switches. */
export function mainThreadWakes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  const switches = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status);
  if (!switches) throw new Error(`/proc/${pid}/task/${pid}/status has no voluntary_ctxt_switches`);
  return Number(switches[1]);
}

/** utime and stime of each thread of a process, in clock ticks, by what the thread does. */
export function threadTicks(pid: number): ThreadTicks {
  const totals: ThreadTicks = { main: { user: 0, kernel: 0 }, v8: 0, other: 0 };
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let ticks: { name: string; user: number; kernel: number };
    try {
      ticks = ticksOf(`/proc/${pid}/task/${task}/stat`);
    } catch {
      continue; // the thread ended
    }
    if (task === String(pid)) totals.main = { user: ticks.user, kernel: ticks.kernel };
    else if (ticks.name.startsWith('V8')) totals.v8 += ticks.user + ticks.kernel;
    else totals.other += ticks.user + ticks.kernel;
  }
  return totals;
}

function ticksOf(statFile: string): { name: string; user: number; kernel: number } {
  const stat = readFileSync(statFile, 'utf8');
  // The command name, in parentheses, may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(') ')),
    user: Number(fields[11]),
    kernel: Number(fields[12]),
  };
}

export function memoryOf(pid: number): { peakMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { peakMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
}

/**
 * Its /metrics, or the metrics `names` names only: each series (name and labels) to its value. A
 * scrape that includes the backlog gauges asks for every build's backlog, and has them read.
 */
export async function scrape(twc: TwcProcess, names: readonly string[] = []): Promise<Map<string, number>> {
  const query = names.map((name) => `name[]=${encodeURIComponent(name)}`).join('&');
  const text = await (await fetch(`http://127.0.0.1:${twc.metricsPort}/metrics${query ? `?${query}` : ''}`)).text();
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

/** What each series matching `pattern` grew by from `before` to `after`, summed by `label` of its groups. */
export function growth(
  before: Map<string, number>,
  after: Map<string, number>,
  pattern: RegExp,
  label: (labels: Record<string, string>) => string,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const [series, value] of after) {
    const labels = pattern.exec(series)?.groups;
    if (!labels) continue;
    const key = label(labels);
    sums.set(key, (sums.get(key) ?? 0) + value - (before.get(series) ?? 0));
  }
  return new Map([...sums].filter(([, n]) => n > 0));
}

export const KUBERNETES_WRITES =
  /^twc_kubernetes_requests_total\{verb="(?<verb>create|update|patch|delete|deletecollection)",resource="(?<resource>[^"]*)"/;
export const KUBERNETES_READS =
  /^twc_kubernetes_requests_total\{verb="(?<verb>get|list|watch)",resource="(?<resource>[^"]*)"/;
export const TEMPORAL_CALLS = /^twc_temporal_requests_total\{method="(?<method>[^"]*)"/;
