import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { exposition, readSeriesLines, seriesLines } from '../../src/runtime/exposition.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { statusFigures } from '../../src/status/figures.ts';
import { CAPTURED_OBJECTS, type CapturedObjects } from '../bench/captured-objects.ts';

async function parts(registry: Registry, names = registry.getMetricsAsArray().map((m) => m.name)): Promise<string[]> {
  const written: string[] = [];
  for await (const part of exposition(registry, names)) written.push(part);
  return written;
}

test("the controller's metrics, written in parts, are the text prom-client writes whole", async () => {
  const metrics = new Metrics();
  const [captured] = (JSON.parse(readFileSync(CAPTURED_OBJECTS, 'utf8')) as CapturedObjects)
    .TemporalWorkerDeployment as TemporalWorkerDeployment[];
  const figures = statusFigures(captured?.status ?? {}, { maxVersionsInDeployment: 100, maxIneligibleVersions: 75 });
  for (let i = 0; i < 1_200; i++) {
    const name = `wd-${i}`;
    metrics.setStatusFigures('team-a', name, figures);
    metrics.setBuildsWithoutPollers('team-a', name, i % 3);
  }
  metrics.observeBacklog(() =>
    Array.from({ length: 700 }, (_, i) => ({
      namespace: 'team-a',
      workerDeployment: `wd-${i}`,
      buildId: `b-${i}`,
      pools: {},
      readAt: new Date(0),
      queues: [
        {
          taskQueue: 'orders',
          type: 'workflow',
          backlogCount: i,
          backlogAgeSeconds: 0.5,
          addRate: NaN,
          dispatchRate: Infinity,
        },
      ],
    })),
  );
  metrics.countTemporalRequest('DescribeWorkerDeployment', 'OK');
  metrics.observeCallSlotWait('default', 12);
  const written = await parts(metrics.registry);
  assert.equal(written.join(''), await metrics.registry.metrics());
  assert.ok(written.length > 10, `in parts: ${written.length}`);
  assert.ok(
    Math.max(...written.map((part) => part.length)) <= 56 * 1024,
    'a part is some 48 KiB of text, not a metric of thousands of series',
  );
});

test('labels and help are escaped, and odd values written, as prom-client writes them', async () => {
  const registry = new Registry();
  const gauge = new Gauge({
    name: 'twc_odd',
    help: 'a help\nwith \\ a newline',
    labelNames: ['a'],
    registers: [registry],
  });
  gauge.set({ a: 'quote " backslash \\ newline \n' }, NaN);
  gauge.set({ a: 'minus' }, -Infinity);
  gauge.set({ a: 'plus' }, Infinity);
  new Gauge({ name: 'twc_empty', help: 'no series', registers: [registry] });
  new Counter({ name: 'twc_plain_total', help: 'no labels', registers: [registry] }).inc(1.5);
  new Histogram({
    name: 'twc_seconds',
    help: 'buckets',
    labelNames: ['k'],
    buckets: [1],
    registers: [registry],
  }).observe({ k: 'x' }, 2);
  assert.equal((await parts(registry)).join(''), await registry.metrics());
  assert.equal(
    (await parts(registry, ['twc_none', 'twc_plain_total', 'twc_odd'])).join(''),
    [
      '# HELP twc_plain_total no labels\n# TYPE twc_plain_total counter\ntwc_plain_total 1.5\n',
      '\n# HELP twc_odd a help\\nwith \\\\ a newline\n# TYPE twc_odd gauge\n',
      'twc_odd{a="quote \\" backslash \\\\ newline \\n"} Nan\ntwc_odd{a="minus"} -Inf\ntwc_odd{a="plus"} +Inf\n',
    ].join(''),
  );
});

test('series kept as their lines are read back as they were set', () => {
  const series = [
    { labels: { a: 'quote " backslash \\ newline \n', b: 'braces} {x="1"} ' }, value: NaN },
    { labels: { a: 'minus' }, value: -Infinity },
    { labels: {}, value: 1.5e21 },
    { labels: { n: 3 }, value: -0.25 },
  ];
  const text = seriesLines('twc_odd', series);
  assert.equal(
    text,
    [
      'twc_odd{a="quote \\" backslash \\\\ newline \\n",b="braces} {x=\\"1\\"} "} Nan',
      'twc_odd{a="minus"} -Inf',
      'twc_odd 1.5e+21',
      'twc_odd{n="3"} -0.25',
      '',
    ].join('\n'),
  );
  assert.deepEqual(readSeriesLines(text), [...series.slice(0, 3), { labels: { n: '3' }, value: -0.25 }]);
});
