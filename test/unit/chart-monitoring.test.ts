// The chart's alerts (files/prometheus-rules.yaml) and dashboard (files/grafana-dashboard.json)
// against the controller: every metric their expressions read is one the controller exports
// (src/runtime/metrics.ts, as registered), and every alert has a summary, a description, a
// severity and a runbook that is its own section of docs/operations.md.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { parse } from 'yaml';
import { Metrics } from '../../src/runtime/metrics.ts';
import { readDoc } from '../support/docs.ts';

const FILES = path.join(import.meta.dirname, '../../charts/temporal-worker-controller/files');

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules = (
  parse(readFileSync(path.join(FILES, 'prometheus-rules.yaml'), 'utf8')) as {
    groups: { rules: Rule[] }[];
  }
).groups.flatMap((g) => g.rules);

interface Panel {
  title: string;
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(path.join(FILES, 'grafana-dashboard.json'), 'utf8')) as {
  panels: Panel[];
  templating: { list: { name: string; definition?: string }[] };
};

/** The names of the metrics the controller exports, a histogram's series each. */
function exported(): Set<string> {
  const registry = new Registry();
  new Metrics(registry).observeBacklog(() => []);
  return new Set(
    registry
      .getMetricsAsArray()
      .flatMap((m) => (m instanceof Histogram ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name])),
  );
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads (Grafana's variables and the chart's placeholders aside). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\$\w+/g, '')
    .replace(/\b__[A-Z_]+__\b/g, '');
  // An identifier not called as a function, and not a number's exponent.
  const names = bare.match(/(?<![\w.])[a-zA-Z_:][\w:]*\b(?!\s*\()/g) ?? [];
  return [...new Set(names.filter((name) => !KEYWORDS.has(name.toLowerCase())))];
}

test('the names read from an expression: metrics only, not functions, labels, keywords nor variables', () => {
  assert.deepEqual(
    metricNames(
      'sum without (method, code) (rate(twc_temporal_requests_total{code=~"UNAVAILABLE|x y"}[5m])) / ignoring(step) group_left(step) up > 0.5 and on(a) absent(b_total) or vector(__READ_BUDGET__) * 7e3 offset 5m',
    ),
    ['twc_temporal_requests_total', 'up', 'b_total'],
  );
  assert.deepEqual(metricNames('histogram_quantile(0.99, sum by (le) (rate(x_bucket[$__rate_interval])))'), [
    'x_bucket',
  ]);
});

test('every metric the alerts and the dashboard read is one the controller exports', () => {
  const names = exported();
  const read = [
    ...rules.map((r) => ({ where: `alert ${r.alert ?? ''}`, expr: r.expr })),
    ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel ${p.title}`, expr: t.expr }))),
    ...dashboard.templating.list.flatMap((v) =>
      v.definition
        ? [{ where: `variable ${v.name}`, expr: v.definition.replace(/^label_values\(([^,]+),.*$/, '$1') }]
        : [],
    ),
  ];
  const unknown = read.flatMap(({ where, expr }) =>
    metricNames(expr)
      .filter((name) => !names.has(name))
      .map((name) => `${where}: ${name}`),
  );
  assert.deepEqual(unknown, []);
  // The check sees names at all, and would see one the controller does not export.
  assert.ok(read.flatMap((r) => metricNames(r.expr)).length > 40);
  assert.ok(!names.has(metricNames('rate(twc_reconcile_errors_total[5m])')[0] ?? ''));
});

test('every alert has a summary, a description, a severity, and its own section of docs/operations.md as runbook', () => {
  const anchors = readDoc('docs/operations.md').anchors;
  assert.ok(rules.length >= 15);
  for (const rule of rules) {
    const name = rule.alert ?? '';
    assert.match(name, /^TWC[A-Z]\w+$/);
    assert.match(rule.labels?.severity ?? '', /^(warning|critical)$/, name);
    assert.ok(rule.annotations?.summary, `${name}: a summary`);
    assert.ok(rule.annotations.description, `${name}: a description`);
    assert.equal(rule.annotations.runbook_url, `__RUNBOOK__#${name.toLowerCase()}`, name);
    assert.ok(anchors.has(name.toLowerCase()), `${name}: docs/operations.md has a section ### ${name}`);
  }
});
