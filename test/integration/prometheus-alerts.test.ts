// A real Prometheus (Debian's package) scrapes a test's controller every second and evaluates the
// chart's rules as helm renders them, their `for` cut to 2 s (the expressions are the chart's): a
// worker deployment made Stalled by a connection that does not exist fires TWCRolloutStalled,
// naming it and the reason, and the alert goes once the connection exists.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlledNamespace, createTemporalConnection } from '../support/controller.ts';
import { eventually, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { chartRules, type PrometheusAlert, scrapingPrometheus } from '../support/prometheus.ts';

test('a real Prometheus fires the stalled-rollout alert for a worker deployment without its connection', async (t) => {
  const namespace = await testNamespace(t, 'alerts');
  const ns = await controlledNamespace(t, namespace);
  const rules = await chartRules();
  for (const group of rules.groups) for (const rule of group.rules) if (rule.for) rule.for = '2s';
  const prometheus = await scrapingPrometheus(t, ns.metrics.registry, rules);
  const stalledHere = (alerts: PrometheusAlert[]) =>
    alerts.filter((a) => a.labels.alertname === 'TWCRolloutStalled' && a.labels.namespace === namespace);

  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    template: ns.template('blue'),
    workerOptions: { connectionRef: { name: 'elsewhere' }, temporalNamespace: sharedEnvironment().temporalNamespace },
  });
  const [alert] = await eventually(
    'TWCRolloutStalled to fire',
    async () => {
      const firing = stalledHere(await prometheus.alerts()).filter((a) => a.state === 'firing');
      return firing.length > 0 ? firing : undefined;
    },
    60_000,
  );
  assert.equal(alert?.labels.worker_deployment, 'orders');
  assert.equal(alert.labels.reason, 'ConnectionNotFound');
  assert.equal(alert.labels.severity, 'warning');
  assert.match(
    alert.annotations.description ?? '',
    new RegExp(`TemporalWorkerDeployment ${namespace}/orders has been Stalled=True .* reason ConnectionNotFound`),
  );
  assert.equal(alert.annotations.runbook_url, 'docs/operations.md#twcrolloutstalled');

  await createTemporalConnection(namespace, { hostPort: sharedEnvironment().temporalAddress }, 'elsewhere');
  await eventually(
    'TWCRolloutStalled to go once the connection exists',
    async () => (stalledHere(await prometheus.alerts()).length === 0 ? true : undefined),
    60_000,
  );
});
