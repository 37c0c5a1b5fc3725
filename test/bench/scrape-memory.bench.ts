// `node test/bench/scrape-memory.bench.ts`: what scrapes of /metrics add to the controller's peak
// RSS, and the garbage each makes, without the real environment. A process with the image's V8
// flags, malloc settings and the chart's heap limit holds the status gauges of N worker deployments
// (the status captured in a real run, test/support/captured-objects.json) and the backlog of M
// builds, serves /metrics as the controller does (runtime/exposition.ts), and is scraped K times by
// curl (a scraper of its own, as Prometheus is), with some builds' backlog read again between two
// scrapes; three such processes, one after the other. Prints figures; asserts nothing.
import { execFile, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { GCProfiler } from 'node:v8';
import { DEFAULT_READS_PER_SECOND } from '../../src/api/defaults.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { metrics as metricsRoute, serve } from '../../src/runtime/http-server.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { statusFigures } from '../../src/status/figures.ts';
import { NODE_FLAGS } from '../../scripts/image/build.ts';
import { CAPTURED_OBJECTS, type CapturedObjects } from './captured-objects.ts';
import { chartNodeOptions, IMAGE_VARIABLES } from './twc-process.ts';

const { values } = parseArgs({
  options: {
    'worker-deployments': { type: 'string', default: '3000' },
    builds: { type: 'string', default: '6300' },
    scrapes: { type: 'string', default: '20' },
    // Builds whose backlog is read again between two scrapes: by default, as many as the default
    // read budget's backlog half allows in 10 s (a scrape interval), in turn.
    'read-between': { type: 'string', default: String((DEFAULT_READS_PER_SECOND / 2) * 10) },
    // Internal: one measuring process.
    child: { type: 'boolean', default: false },
  },
});
const workerDeployments = Number(values['worker-deployments']);
const builds = Number(values.builds);
const scrapes = Number(values.scrapes);
const readBetween = Number(values['read-between']);
const RUNS = 3;

interface Figures {
  textBytes: number;
  /** Peak RSS before the first scrape and after the last, in bytes. */
  before: number;
  after: number;
  /** What the heap took in from the first scrape to the end of the last: its garbage and what it still holds. */
  allocated: number;
}

if (values.child) process.send?.(await measure());
else await compare();

async function compare(): Promise<void> {
  const env = { ...process.env, ...IMAGE_VARIABLES };
  const runs: Figures[] = [];
  for (let run = 0; run < RUNS; run++) {
    const child = fork(import.meta.filename, [...process.argv.slice(2), '--child'], {
      execArgv: [...NODE_FLAGS, chartNodeOptions()],
      env,
    });
    runs.push(
      await new Promise<Figures>((resolve, reject) => {
        child.once('message', (message) => resolve(message as Figures));
        child.once('exit', (code) => reject(new Error(`the measuring process exited with ${code}`)));
      }),
    );
    child.kill();
  }
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  console.log(
    `/metrics of ${workerDeployments} worker deployments' status and ${builds} builds' backlog (${mib(runs[0]?.textBytes ?? 0)} MiB of text), scraped ${scrapes} times, ${readBetween} builds' backlog read again between two, ${RUNS} processes:`,
  );
  console.log(`  peak RSS risen by ${runs.map((r) => mib(r.after - r.before)).join(', ')} MiB`);
  console.log(`  the heap took in ${runs.map((r) => mib(r.allocated / scrapes)).join(', ')} MiB a scrape`);
}

async function measure(): Promise<Figures> {
  const [captured] = (JSON.parse(readFileSync(CAPTURED_OBJECTS, 'utf8')) as CapturedObjects)
    .TemporalWorkerDeployment as TemporalWorkerDeployment[];
  const figures = statusFigures(captured?.status ?? {}, { maxVersionsInDeployment: 100, maxIneligibleVersions: 75 });
  const metrics = new Metrics();
  for (let i = 0; i < workerDeployments; i++)
    // Figures of their own, as each status gives its own.
    metrics.setStatusFigures('bench', `wd-${String(i).padStart(4, '0')}`, structuredClone(figures));
  const backlog = Array.from({ length: builds }, (_, i) => ({
    namespace: 'bench',
    workerDeployment: `wd-${String(i % workerDeployments).padStart(4, '0')}`,
    buildId: `build-${i}`,
    pools: {},
    readAt: new Date(),
    queues: [queue(i)],
  }));
  metrics.observeBacklog(() => backlog);
  const server = await serve({ host: '127.0.0.1', port: 0 }, { '/metrics': metricsRoute(metrics.registry) });
  const before = peakRss();
  const profiler = new GCProfiler();
  profiler.start();
  const usedAtStart = process.memoryUsage().heapUsed;
  let textBytes = 0;
  for (let i = 0; i < scrapes; i++) {
    for (let n = 0; n < readBetween; n++) {
      const build = backlog[(i * readBetween + n) % backlog.length];
      if (build) build.queues = [queue(i)];
    }
    const { stdout } = await promisify(execFile)('curl', [
      '-sf',
      '-o',
      '/dev/null',
      '-w',
      '%{size_download}',
      `http://127.0.0.1:${server.port}/metrics`,
    ]);
    textBytes = Number(stdout);
  }
  const after = peakRss();
  const usedAtEnd = process.memoryUsage().heapUsed;
  const collections = profiler.stop().statistics;
  await server.close();
  // What the heap held before each collection, less what it held after the one before.
  let [allocated, used] = [0, usedAtStart];
  for (const { beforeGC, afterGC } of collections) {
    allocated += beforeGC.heapStatistics.usedHeapSize - used;
    used = afterGC.heapStatistics.usedHeapSize;
  }
  return { textBytes, before, after, allocated: allocated + usedAtEnd - used };
}

function queue(backlogCount: number) {
  return {
    taskQueue: 'orders',
    type: 'workflow' as const,
    backlogCount,
    backlogAgeSeconds: 0,
    addRate: 0.5,
    dispatchRate: 0.5,
  };
}

/** VmHWM, in bytes. */
function peakRss(): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
}
