// spec.rollout.analysis.metrics on the real environment: a real Prometheus (Debian's package)
// scrapes the sample workers' SDK metrics every second (the node agent serves them; each order
// counts itself by build and outcome through the SDK's metric meter), and the controller queries
// it as an endpoint its administrator allowed. A build whose orders fail past the query's max is
// aborted at its first step; a healthy one passes its window and is promoted.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { condition } from '../support/controller.ts';
import { kubeConfig, sharedEnvironment } from '../support/environment.ts';
import { rolledOutTo } from '../support/orders.ts';
import { type Prometheus, startPrometheus } from '../support/prometheus.ts';

/** This build's orders in the window, of one outcome or all, as the sample worker counts them. */
const orders = (outcome?: string) =>
  `sum(increase(sample_orders_total{build_id="{{ .BuildID }}",deployment="{{ .DeploymentName }}"${outcome ? `,outcome="${outcome}"` : ''}}[{{ .Window }}]))`;
// No failed order yet is no series of them: `or vector(0)` makes it a ratio of 0 rather than no sample.
const FAILURE_RATIO = `(${orders('failed')} or vector(0)) / ${orders()}`;

/** `waiting`, or its failure with what Prometheus holds of the sample workers' orders. */
async function explained<T>(prometheus: Prometheus, waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (error) {
    const held = JSON.stringify(await prometheus.query('sample_orders_total').catch(String)).slice(0, 4000);
    throw new Error(`${(error as Error).message}\nPrometheus holds: ${held}`, { cause: error });
  }
}

const analysedRollout = (analysis: object) => ({
  strategy: 'Progressive',
  steps: [{ rampPercentage: 50, pauseDuration: '30s' }],
  analysis: { prometheus: { name: 'main' }, ...analysis },
});

test('a build failing half its orders is aborted at its first step by a query over max: the answer and the metric in its status', async (t) => {
  const prometheus = await startPrometheus(t, sharedEnvironment().workerMetricsAddress);
  const {
    ns,
    v1,
    orders: started,
  } = await rolledOutTo(
    t,
    'analysis-metrics-fail',
    {
      first: 'blue',
      next: 'fail-50',
      rollout: analysedRollout({ metrics: [{ name: 'order-failures', query: FAILURE_RATIO, max: 0.1 }] }),
    },
    { analysisPrometheus: [{ name: 'main', url: prometheus.url, tenantAuth: false }] },
  );
  const failed = await explained(
    prometheus,
    ns.until(
      'orders',
      'the metric analysis of step 1 to fail',
      (twd) => condition(twd, 'Stalled')?.reason === 'AnalysisFailed',
      150_000,
    ),
  );
  await started.stop();
  const v2 = failed.status?.targetVersion?.buildID ?? '';
  const analysis = failed.status?.targetVersion?.analysis;
  const answer = analysis?.metrics?.find((m) => m.name === 'order-failures')?.value;
  assert.ok(answer !== undefined && answer > 0.1, `the answer over max: ${JSON.stringify(analysis)}`);
  assert.equal(analysis?.closed, undefined, 'no workflows counted without a failure-rate limit');
  assert.match(
    condition(failed, 'Stalled')?.message ?? '',
    new RegExp(`analysis of step 1 of build ${v2}: metric order-failures is [0-9.]+, above max 0\\.1`),
  );
  const aborted = await ns.until(
    'orders',
    'the ramp to be removed',
    (twd) => twd.status?.targetVersion?.rampPercentage === undefined,
  );
  assert.equal(aborted.status?.currentVersion?.buildID, v1, 'the current build keeps the traffic');
  assert.ok(
    (await ns.metrics.registry.getSingleMetricAsString('twc_analysis_queries_total')).includes('result="answered"'),
    'the queries are counted',
  );
});

test('a healthy build passes its window on two queries, one with a min, and is promoted; the pass names each answer', async (t) => {
  const prometheus = await startPrometheus(t, sharedEnvironment().workerMetricsAddress);
  const {
    namespace,
    ns,
    v1,
    orders: started,
  } = await rolledOutTo(
    t,
    'analysis-metrics-pass',
    {
      first: 'blue',
      next: 'green',
      rollout: analysedRollout({
        metrics: [
          { name: 'order-failures', query: FAILURE_RATIO, max: 0.1 },
          { name: 'orders-seen', query: orders(), min: 1 },
        ],
        // Prometheus that says nothing of the build fails it rather than waiting.
        tooFewSamples: 'Fail',
      }),
    },
    { analysisPrometheus: [{ name: 'main', url: prometheus.url, tenantAuth: false }] },
  );
  const promoted = await explained(
    prometheus,
    ns.until(
      'orders',
      'the build to pass its analysis and be promoted',
      (twd) => twd.status?.currentVersion?.buildID !== v1 || condition(twd, 'Stalled')?.reason === 'AnalysisFailed',
      150_000,
    ),
  );
  await started.stop();
  assert.notEqual(condition(promoted, 'Stalled')?.reason, 'AnalysisFailed', condition(promoted, 'Stalled')?.message);
  const v2 = promoted.status?.currentVersion?.buildID ?? '';
  const passes = (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace })).items
    .filter((e) => e.reason === 'AnalysisPassed')
    .map((e) => e.message ?? '');
  assert.equal(passes.length, 1, passes.join('\n'));
  assert.match(
    passes[0] ?? '',
    new RegExp(
      `^analysis of step 1 of build ${v2}: metric order-failures is 0; metric orders-seen is [0-9.]+, within the limits$`,
    ),
  );
});
