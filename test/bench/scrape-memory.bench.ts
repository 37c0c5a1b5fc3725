// `node test/bench/scrape-memory.bench.ts`: what scrapes of /metrics add to the controller's peak
// RSS, without the real environment. A process with the image's V8 flags, malloc settings and the
// chart's heap limit holds the status gauges of N worker deployments (the status captured in a real
// run, test/support/captured-objects.json) and the backlog of M builds, serves /metrics, and is
// scraped K times by curl (a scraper of its own, as Prometheus is). Each way of serving runs in a
// process of its own, three times: the route as the controller serves it (runtime/exposition.ts,
// in parts) and the same registry's text made whole by prom-client's registry.metrics(), as the
// route served it before d26d2d0. Prints figures; asserts nothing.
import { execFile, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
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
    // Internal: one measuring process, serving its text in parts or whole.
    child: { type: 'string' },
  },
});
const workerDeployments = Number(values['worker-deployments']);
const builds = Number(values.builds);
const scrapes = Number(values.scrapes);
const SERVED = ['parts', 'whole'] as const;
type Served = (typeof SERVED)[number];

interface Figures {
  textBytes: number;
  /** Peak RSS before the first scrape and after the last, in bytes. */
  before: number;
  after: number;
}

if (values.child) process.send?.(await measure(values.child as Served));
else await compare();

async function compare(): Promise<void> {
  const env = { ...process.env, ...IMAGE_VARIABLES };
  const rises: Record<Served, number[]> = { parts: [], whole: [] };
  let textBytes = 0;
  for (let run = 0; run < 3; run++)
    for (const served of SERVED) {
      const child = fork(import.meta.filename, [...process.argv.slice(2), '--child', served], {
        execArgv: [...NODE_FLAGS, chartNodeOptions()],
        env,
      });
      const figures = await new Promise<Figures>((resolve, reject) => {
        child.once('message', (message) => resolve(message as Figures));
        child.once('exit', (code) => reject(new Error(`the measuring process exited with ${code}`)));
      });
      child.kill();
      textBytes = figures.textBytes;
      rises[served].push(figures.after - figures.before);
    }
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  console.log(
    `/metrics of ${workerDeployments} worker deployments' status and ${builds} builds' backlog (${(textBytes / 2 ** 20).toFixed(1)} MiB of text), scraped ${scrapes} times; peak RSS risen by, in MiB, three runs:`,
  );
  console.log(`  in parts, as the controller serves it: ${rises.parts.map(mib).join(', ')}`);
  console.log(
    `  made whole by prom-client's registry.metrics(), as before d26d2d0: ${rises.whole.map(mib).join(', ')}`,
  );
}

async function measure(served: Served): Promise<Figures> {
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
    queues: [
      {
        taskQueue: 'orders',
        type: 'workflow' as const,
        backlogCount: i,
        backlogAgeSeconds: 0,
        addRate: 0.5,
        dispatchRate: 0.5,
      },
    ],
  }));
  metrics.observeBacklog(() => backlog);
  const route =
    served === 'parts'
      ? metricsRoute(metrics.registry)
      : async () => ({ status: 200, body: await metrics.registry.metrics() });
  const server = await serve({ host: '127.0.0.1', port: 0 }, { '/metrics': route });
  const before = peakRss();
  let textBytes = 0;
  for (let i = 0; i < scrapes; i++) {
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
  await server.close();
  return { textBytes, before, after };
}

/** VmHWM, in bytes. */
function peakRss(): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
}
