// The backlog figures as they are served: the external metrics a selector picks (one item per
// matching build and task queue, labelled so a copy's `matchLabels: {}` selects its own build and
// pool), and the same figures as Prometheus gauges whose series go with their build.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import type { BuildBacklog } from '../../src/domain/backlog.ts';
import { InvalidLabelSelectorError, parseLabelSelector } from '../../src/external-metrics/label-selector.ts';
import { metricValues, quantity } from '../../src/external-metrics/metric-values.ts';
import { Metrics } from '../../src/runtime/metrics.ts';

const readAt = new Date('2026-11-25T12:00:00Z');
const queue = (taskQueue: string, type: 'workflow' | 'activity', backlogCount: number) => ({
  taskQueue,
  type,
  backlogCount,
  backlogAgeSeconds: 1.5,
  addRate: 0.25,
  dispatchRate: 2,
});
const figures: BuildBacklog[] = [
  {
    namespace: 'shop',
    workerDeployment: 'orders',
    buildId: 'v1',
    pools: { 'orders-bulk': 'bulk' },
    readAt,
    queues: [queue('orders', 'workflow', 7), queue('orders', 'activity', 3), queue('orders-bulk', 'activity', 40)],
  },
  {
    namespace: 'shop',
    workerDeployment: 'orders',
    buildId: 'v2',
    pools: {},
    readAt,
    queues: [queue('orders', 'workflow', 5)],
  },
  {
    namespace: 'other',
    workerDeployment: 'orders',
    buildId: 'v1',
    pools: {},
    readAt,
    queues: [queue('orders', 'workflow', 99)],
  },
];

function values(metric: string, selector: string, namespace = 'shop'): [Record<string, string>, string][] | undefined {
  return metricValues(figures, { metric, namespace, selector: parseLabelSelector(selector) })?.map((item) => [
    item.metricLabels,
    item.value,
  ]);
}

test("a build's selector gets one item per task queue of that build in that namespace, labelled with its pool", () => {
  assert.deepEqual(values('temporal_backlog_count', 'temporal.io/deployment-name=orders,temporal.io/build-id=v1'), [
    [
      {
        'temporal.io/deployment-name': 'orders',
        'temporal.io/build-id': 'v1',
        'temporal.io/task-queue': 'orders',
        'temporal.io/task-queue-type': 'workflow',
      },
      '7',
    ],
    [
      {
        'temporal.io/deployment-name': 'orders',
        'temporal.io/build-id': 'v1',
        'temporal.io/task-queue': 'orders',
        'temporal.io/task-queue-type': 'activity',
      },
      '3',
    ],
    [
      {
        'temporal.io/deployment-name': 'orders',
        'temporal.io/build-id': 'v1',
        'temporal.io/pool': 'bulk',
        'temporal.io/task-queue': 'orders-bulk',
        'temporal.io/task-queue-type': 'activity',
      },
      '40',
    ],
  ]);
  assert.deepEqual(
    values('temporal_backlog_count', 'temporal.io/build-id=v1,temporal.io/pool=bulk')?.map(([, v]) => v),
    ['40'],
    "a pool's copy selects its pool's queue only",
  );
  assert.deepEqual(
    values(
      'temporal_backlog_count',
      'temporal.io/build-id in (v1,v2),temporal.io/task-queue-type=workflow,!temporal.io/pool',
    )?.map(([labels, v]) => `${labels['temporal.io/build-id']}:${v}`),
    ['v1:7', 'v2:5'],
  );
  assert.deepEqual(
    values('temporal_backlog_count', ''),
    values('temporal_backlog_count', 'temporal.io/build-id notin ()'),
  );
  assert.equal(values('temporal_backlog_count', '')?.length, 4, 'every queue of the namespace, none of another');
  assert.deepEqual(
    values('temporal_backlog_count', 'temporal.io/build-id!=v1')?.map(([, v]) => v),
    ['5'],
  );
});

test('each metric shows its own figure, fractions in thousandths; an unknown metric is told apart from an empty answer', () => {
  const selector = 'temporal.io/build-id=v2';
  assert.deepEqual(values('temporal_backlog_age_seconds', selector)?.[0]?.[1], '1500m');
  assert.deepEqual(values('temporal_tasks_add_rate', selector)?.[0]?.[1], '250m');
  assert.deepEqual(values('temporal_tasks_dispatch_rate', selector)?.[0]?.[1], '2');
  assert.deepEqual(values('temporal_backlog_count', 'temporal.io/build-id=v9'), []);
  assert.equal(values('temporal_backlog', selector), undefined);
  assert.equal(quantity(0), '0');
  assert.equal(quantity(0.0004), '0m');
  assert.equal(
    metricValues(figures, { metric: 'temporal_backlog_count', namespace: 'shop', selector: [] })?.[0]?.timestamp,
    '2026-11-25T12:00:00.000Z',
    'the time the figures were read',
  );
});

test('a selector that is not one is refused naming the part', () => {
  assert.throws(() => parseLabelSelector('a=b,c d'), InvalidLabelSelectorError);
  assert.throws(() => parseLabelSelector('a in x'), /labelSelector: "a in x" is not a label requirement/);
  assert.deepEqual(parseLabelSelector(' a == b , !c, d '), [
    { key: 'a', operator: 'in', values: ['b'] },
    { key: 'c', operator: 'absent' },
    { key: 'd', operator: 'exists' },
  ]);
});

test('the gauges show the figures given at each scrape, and a build left out loses its series', async () => {
  const registry = new Registry();
  let current = figures;
  const metrics = new Metrics(registry);
  metrics.observeBacklog(() => []);
  metrics.observeBacklog(() => current); // a controller started again on the same registry
  const text = await registry.metrics();
  assert.match(
    text,
    /^twc_temporal_backlog_count\{namespace="shop",worker_deployment="orders",build_id="v1",task_queue="orders-bulk",task_queue_type="activity"\} 40$/m,
  );
  assert.match(text, /^twc_temporal_backlog_age_seconds\{[^}]*build_id="v2"[^}]*\} 1\.5$/m);
  assert.match(text, /^twc_temporal_tasks_add_rate\{[^}]*build_id="v2"[^}]*\} 0\.25$/m);
  assert.match(text, /^twc_temporal_tasks_dispatch_rate\{[^}]*build_id="v2"[^}]*\} 2$/m);
  current = figures.filter((build) => build.buildId !== 'v1');
  const after = await registry.metrics();
  assert.doesNotMatch(after, /build_id="v1"/);
  assert.match(after, /build_id="v2"/);
});

test("a queue's figures given for another build are labelled with that build", async () => {
  const registry = new Registry();
  const shared = queue('orders', 'workflow', 4);
  let builds = [{ ...figures[1]!, queues: [shared] }];
  new Metrics(registry).observeBacklog(() => builds);
  assert.match(await registry.metrics(), /^twc_temporal_backlog_count\{[^}]*build_id="v2"[^}]*\} 4$/m);
  builds = [{ ...figures[1]!, buildId: 'v3', queues: [shared] }];
  const text = await registry.metrics();
  assert.match(text, /^twc_temporal_backlog_count\{[^}]*build_id="v3"[^}]*\} 4$/m);
  assert.doesNotMatch(text, /build_id="v2"/);
});
