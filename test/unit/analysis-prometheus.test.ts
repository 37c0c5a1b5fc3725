// Metric analysis: which endpoint a spec may query and with what, the queries' variables, and
// how the reader counts each query.
import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promDuration, renderQuery, unknownPlaceholders } from '../../src/api/metric-query.ts';
import { analysisMetricsReader } from '../../src/controller/analysis-metrics.ts';
import { endpointFor } from '../../src/domain/analysis-prometheus.ts';

const main = { name: 'main', url: 'http://prometheus:9090', tenantAuth: false };
const mimir = { name: 'mimir', url: 'https://mimir/prometheus', tenantAuth: true };
const token = { name: 'prom', key: 'token' };

test('a spec queries only an endpoint the administrator allows, by its name; a tenant-auth endpoint only with a token', () => {
  assert.deepEqual(endpointFor({ name: 'main' }, [main, mimir]), { endpoint: main });
  assert.deepEqual(endpointFor({ name: 'main', bearerTokenSecretRef: token }, [main]), { endpoint: main, token });
  assert.deepEqual(endpointFor({ name: 'mimir', bearerTokenSecretRef: token }, [main, mimir]), {
    endpoint: mimir,
    token,
  });
  assert.deepEqual(endpointFor({ name: 'mimir' }, [main, mimir]), {
    refused:
      "spec.rollout.analysis.prometheus.bearerTokenSecretRef: endpoint mimir takes queries only with the worker deployment's own token (--analysis-prometheus-tenant-auth)",
  });
  assert.deepEqual(endpointFor({ name: 'thanos' }, [main, mimir]), {
    refused:
      'spec.rollout.analysis.prometheus.name: "thanos" is not a Prometheus endpoint this controller allows (--analysis-prometheus: main, mimir)',
  });
  assert.deepEqual(endpointFor({ name: 'main' }, []), {
    refused:
      'spec.rollout.analysis.prometheus.name: metric analysis is off in this controller: its administrator allows no Prometheus endpoint (--analysis-prometheus, chart value controller.analysisPrometheus)',
  });
});

test("a query's variables: each filled in wherever written, spaces or none; anything else is named as unknown", () => {
  const values = { BuildID: 'v2', DeploymentName: 'shop/orders', Namespace: 'shop', Window: '90s' };
  assert.equal(
    renderQuery(
      'a{b="{{ .BuildID }}",c="{{.BuildID}}",d="{{ .DeploymentName }}",n="{{ .Namespace}}"}[{{ .Window }}]',
      values,
    ),
    'a{b="v2",c="v2",d="shop/orders",n="shop"}[90s]',
  );
  assert.deepEqual(unknownPlaceholders('x{a="{{ .BuildID }}"} {{ .Pod }} {{ BuildID }} {{}}'), [
    '{{ .Pod }}',
    '{{ BuildID }}',
    '{{}}',
  ]);
  assert.deepEqual(unknownPlaceholders('sum(rate(x[{{ .Window }}]))'), []);
});

test('the window as a Prometheus duration: whole seconds, at least one', () => {
  assert.equal(promDuration(95.7), '95s');
  assert.equal(promDuration(0.2), '1s');
  assert.equal(promDuration(-5), '1s');
});

test('the reader counts each query: a Secret or key missing refuses them all, as an endpoint not allowed does; answers and no samples as they come', async () => {
  const counted: string[] = [];
  const reads = {
    prometheus: { name: 'mimir', bearerTokenSecretRef: token },
    queries: [
      { name: 'a', query: 'up' },
      { name: 'b', query: 'absent' },
    ],
    at: new Date(0),
  };
  const secrets: Record<string, V1Secret> = {};
  const read = analysisMetricsReader({
    endpoints: [mimir],
    secret: (_namespace, name) => Promise.resolve(secrets[name]),
    query: ({ query }) => Promise.resolve(query === 'up' ? { value: 1 } : { noSample: 'no series' }),
    count: (_namespace, result) => void counted.push(result),
  });
  assert.deepEqual(await read('shop', reads), {
    failure: 'spec.rollout.analysis.prometheus.bearerTokenSecretRef: Secret shop/prom does not exist',
  });
  secrets.prom = { metadata: { name: 'prom' }, data: {} };
  assert.deepEqual(await read('shop', reads), {
    failure: 'spec.rollout.analysis.prometheus.bearerTokenSecretRef: Secret shop/prom has no key token',
  });
  secrets.prom = { metadata: { name: 'prom' }, data: { token: Buffer.from('t').toString('base64') } };
  assert.deepEqual(await read('shop', reads), { answers: { a: { value: 1 }, b: { noSample: 'no series' } } });
  assert.deepEqual(counted, ['refused', 'refused', 'refused', 'refused', 'answered', 'no_sample']);
});
