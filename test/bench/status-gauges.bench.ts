// `node --expose-gc test/bench/status-gauges.bench.ts`: what the gauges of the worker deployments'
// status (runtime/status-gauges.ts) hold and cost to scrape, without the real environment. N
// worker deployments each have the status of the worker deployment captured in a real run
// (test/support/captured-objects.json: three conditions, a current build and older ones); the
// heap they add is measured after a full GC, and a scrape of /metrics (as served) by its CPU. Prints figures;
// asserts nothing.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { exposition } from '../../src/runtime/exposition.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { statusFigures } from '../../src/status/figures.ts';
import { CAPTURED_OBJECTS, type CapturedObjects } from './captured-objects.ts';

const { values } = parseArgs({ options: { 'worker-deployments': { type: 'string', default: '1000' } } });
const count = Number(values['worker-deployments']);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc: the heap is measured after a full GC');

const [captured] = (JSON.parse(readFileSync(CAPTURED_OBJECTS, 'utf8')) as CapturedObjects)
  .TemporalWorkerDeployment as TemporalWorkerDeployment[];
const figures = statusFigures(captured?.status ?? {}, { maxVersionsInDeployment: 100, maxIneligibleVersions: 75 });

const metrics = new Metrics();
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < count; i++)
  // Figures of their own, as each status gives its own.
  metrics.setStatusFigures('bench', `wd-${String(i).padStart(4, '0')}`, structuredClone(figures));
gc();
const heap = process.memoryUsage().heapUsed - before;

const scrapes = 20;
/** The text /metrics serves (runtime/http-server.ts), joined. */
async function scrape(): Promise<string> {
  const parts: string[] = [];
  const names = metrics.registry.getMetricsAsArray().map((metric) => metric.name);
  for await (const part of exposition(metrics.registry, names)) parts.push(part);
  return parts.join('');
}
const text = await scrape();
const started = process.cpuUsage();
for (let i = 0; i < scrapes; i++) await scrape();
const cpu = process.cpuUsage(started);
const series = text.split('\n').filter((line) => line.includes('worker_deployment="wd-')).length;

console.log(`status gauges of ${count} worker deployments (${series / count} series each):`);
console.log(`  heap ${(heap / count / 1024).toFixed(2)} KiB each, ${(heap / 2 ** 20).toFixed(1)} MiB in all`);
console.log(
  `  a scrape of /metrics: ${((cpu.user + cpu.system) / scrapes / 1000).toFixed(0)} ms of CPU, ${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MiB of text`,
);
