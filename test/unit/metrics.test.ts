import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { Metrics } from '../../src/runtime/metrics.ts';

/** Value of one sample in the registry's exposition, e.g. value(registry, 'workqueue_depth{name="c"}'). */
async function value(registry: Registry, sample: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

test('the work queue observer feeds the reconcile and workqueue metrics', async () => {
  const registry = new Registry();
  const observer = new Metrics(registry).workQueueObserver('c', 4);
  assert.equal(
    await value(registry, 'controller_runtime_reconcile_total{controller="c",result="error"}'),
    0,
    'every result is there from the start',
  );
  observer.added(1);
  observer.added(2);
  observer.started(1, 1, 250, 'high');
  observer.finished(0, 'success', 1500);
  observer.started(0, 1, 0, 'low');
  observer.retried();
  observer.timedOut();
  observer.finished(0, 'error', 20);
  const expected: [string, number][] = [
    ['controller_runtime_reconcile_total{controller="c",result="success"}', 1],
    ['controller_runtime_reconcile_total{controller="c",result="error"}', 1],
    ['controller_runtime_reconcile_total{controller="c",result="requeue_after"}', 0],
    ['controller_runtime_reconcile_errors_total{controller="c"}', 1],
    ['twc_reconcile_timeouts_total{controller="c"}', 1],
    ['controller_runtime_reconcile_time_seconds_count{controller="c"}', 2],
    ['controller_runtime_reconcile_time_seconds_sum{controller="c"}', 1.52],
    ['controller_runtime_active_workers{controller="c"}', 0],
    ['controller_runtime_max_concurrent_reconciles{controller="c"}', 4],
    ['workqueue_adds_total{name="c"}', 2],
    ['workqueue_depth{name="c"}', 0],
    ['workqueue_retries_total{name="c"}', 1],
    ['workqueue_queue_duration_seconds_sum{name="c",priority="high"}', 0.25],
    ['workqueue_queue_duration_seconds_count{name="c",priority="low"}', 1],
    ['workqueue_work_duration_seconds_count{name="c"}', 2],
  ];
  for (const [sample, count] of expected) assert.equal(await value(registry, sample), count, sample);
});

test('Temporal calls cut off are counted by method and by what cut them off', async () => {
  const registry = new Registry();
  const metrics = new Metrics(registry);
  metrics.countTemporalTimeout('DescribeWorkerDeployment', 'read');
  metrics.countTemporalTimeout('DescribeWorkerDeployment', 'read');
  metrics.countTemporalTimeout('SetWorkerDeploymentCurrentVersion', 'reconcile');
  assert.equal(await value(registry, 'twc_temporal_timeouts_total{method="DescribeWorkerDeployment",by="read"}'), 2);
  assert.equal(
    await value(registry, 'twc_temporal_timeouts_total{method="SetWorkerDeploymentCurrentVersion",by="reconcile"}'),
    1,
  );
});

test('Kubernetes API calls are counted by verb, resource and status', async () => {
  const registry = new Registry();
  const metrics = new Metrics(registry);
  metrics.countKubernetesRequest('get', 'secrets', '200');
  metrics.countKubernetesRequest('get', 'secrets', '200');
  metrics.countKubernetesRequest('delete', 'secrets', 'error');
  assert.equal(await value(registry, 'twc_kubernetes_requests_total{verb="get",resource="secrets",code="200"}'), 2);
  assert.equal(
    await value(registry, 'twc_kubernetes_requests_total{verb="delete",resource="secrets",code="error"}'),
    1,
  );
});

test('workflows left on old builds: each worker deployment’s last counts, a build no longer counted losing its series', async () => {
  const registry = new Registry();
  const metrics = new Metrics(registry);
  const sample = (name: string, build: string) =>
    `twc_pinned_workflows_running{namespace="shop",worker_deployment="${name}",build_id="${build}"}`;
  metrics.setPinnedWorkflows('shop', 'orders', { v1: 3, v2: 1 });
  metrics.setPinnedWorkflows('shop', 'billing', { v7: 5 });
  metrics.setPinnedWorkflows('shop', 'orders', { v2: 0 });
  assert.equal(await value(registry, sample('orders', 'v1')), undefined, 'v1 no longer counted');
  assert.equal(await value(registry, sample('orders', 'v2')), 0);
  assert.equal(await value(registry, sample('billing', 'v7')), 5, 'another worker deployment keeps its own');
  metrics.setPinnedWorkflows('shop', 'orders', {});
  assert.equal(await value(registry, sample('orders', 'v2')), undefined, 'deleted: no series left');
});

test('analysis verdicts and drainage corrections are counted by their labels', async () => {
  const registry = new Registry();
  const metrics = new Metrics(registry);
  metrics.countAnalysisVerdict('shop', 'orders', 'Passed');
  metrics.countAnalysisVerdict('shop', 'orders', 'Passed');
  metrics.countAnalysisVerdict('shop', 'orders', 'Failed');
  metrics.countDrainageCorrection('shop/orders');
  const verdicts = (v: string) =>
    `twc_analysis_verdicts_total{namespace="shop",worker_deployment="orders",verdict="${v}"}`;
  assert.equal(await value(registry, verdicts('Passed')), 2);
  assert.equal(await value(registry, verdicts('Failed')), 1);
  assert.equal(await value(registry, 'twc_temporal_drainage_corrections_total{temporal_deployment="shop/orders"}'), 1);
});

test("a cluster connection's copies revoked, and revocations that failed, are counted by namespace and connection", async () => {
  const registry = new Registry();
  const metrics = new Metrics(registry);
  metrics.countSecretCopyRevocation('shop', 'shared', 'deleted');
  metrics.countSecretCopyRevocation('shop', 'shared', 'deleted');
  metrics.countSecretCopyRevocation('shop', 'shared', 'failed');
  const revocations = (result: string) =>
    `twc_secret_copy_revocations_total{namespace="shop",connection="shared",result="${result}"}`;
  assert.equal(await value(registry, revocations('deleted')), 2);
  assert.equal(await value(registry, revocations('failed')), 1);
});

test("each certificate of a connection's Secrets has its expiry time, replaced as they change and gone with the connection", async () => {
  const registry = new Registry();
  const metrics = new Metrics(registry);
  const certificate = (serialNumber: string, notAfter: string) => ({
    secret: 'shop/temporal-ca',
    key: 'ca.crt',
    field: 'tls.caCertSecretRef',
    authority: true,
    subject: 'CN=shop-ca',
    serialNumber,
    notAfter: new Date(notAfter),
  });
  const series = (serial: string) =>
    `twc_connection_certificate_expiry_timestamp_seconds{namespace="shop",connection="temporal",secret="shop/temporal-ca",key="ca.crt",subject="CN=shop-ca",serial_number="${serial}"}`;
  metrics.setConnectionCertificates('shop', 'temporal', [
    certificate('0a', '2026-12-04T12:00:00.500Z'),
    certificate('0b', '2027-12-04T12:00:00Z'),
  ]);
  assert.equal(await value(registry, series('0a')), Date.parse('2026-12-04T12:00:00Z') / 1000, 'each of a bundle');
  assert.equal(await value(registry, series('0b')), Date.parse('2027-12-04T12:00:00Z') / 1000);
  metrics.setConnectionCertificates('shop', 'temporal', [certificate('0b', '2027-12-04T12:00:00Z')]);
  assert.equal(await value(registry, series('0a')), undefined, 'the old CA taken out of the bundle');
  metrics.setConnectionCertificates('shop', 'temporal', []);
  assert.equal(await value(registry, series('0b')), undefined, 'the connection gone');
});

test("the ConfigMaps and Secrets a target build's Pods read that are missing: a series while any is, none after", async () => {
  const registry = new Registry();
  const metrics = new Metrics(registry);
  const sample = 'twc_configuration_missing{namespace="shop",worker_deployment="orders"}';
  metrics.setMissingConfiguration('shop', 'orders', 2);
  assert.equal(await value(registry, sample), 2);
  metrics.setMissingConfiguration('shop', 'orders', 0);
  assert.equal(await value(registry, sample), undefined);
});
