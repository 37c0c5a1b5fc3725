// The chart's alerts and dashboard, rendered by helm: the PrometheusRule and the dashboard's
// ConfigMap only when enabled; the rules pass `promtool check rules` (Debian's prometheus package,
// installed when missing) and the unit tests of test/fixtures/charts/alerts.promtool.yaml, and
// each of those fails once its alert is taken out of the rules, so none passes without its alert.
// Needs helm from the binaries cache, not a cluster.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { chartRules, type RenderedObject, renderChart as render } from '../support/prometheus.ts';
import { ensureCommand } from '../support/system-packages.ts';

const run = promisify(execFile);
const PROMTOOL_TESTS = path.join(import.meta.dirname, '../fixtures/charts/alerts.promtool.yaml');

/** Runs promtool in `dir`: whether it passed, and what it said. */
async function promtool(dir: string, ...args: string[]): Promise<{ passed: boolean; said: string }> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    return { passed: true, said: stdout + stderr };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { passed: false, said: stdout + stderr };
  }
}

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'twc-alerts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(PROMTOOL_TESTS, path.join(dir, 'alerts.promtool.yaml'));
  return dir;
}

ensureCommand('promtool', ['--version'], 'prometheus');

test('the PrometheusRule and the dashboard are rendered only when enabled, where and as labelled', async () => {
  const kinds = (objects: RenderedObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`);
  const plain = kinds(await render());
  assert.ok(!plain.includes('PrometheusRule/twc-temporal-worker-controller'), 'off by default');
  assert.ok(!plain.includes('ConfigMap/twc-temporal-worker-controller-dashboard'), 'off by default');
  const objects = await render(
    'prometheusRule.enabled=true',
    'prometheusRule.namespace=monitoring',
    'prometheusRule.labels.release=prometheus',
    'grafanaDashboard.enabled=true',
    'controller.temporalReadBudget=35',
  );
  const rule = objects.find((o) => o.kind === 'PrometheusRule');
  assert.equal(rule?.metadata.namespace, 'monitoring');
  assert.equal(rule.metadata.labels?.release, 'prometheus');
  const dashboard = objects.find((o) => o.metadata.name === 'twc-temporal-worker-controller-dashboard');
  assert.equal(dashboard?.metadata.labels?.grafana_dashboard, '1', "what Grafana's sidecar looks for");
  const json = dashboard.data?.['temporal-worker-controller.json'] ?? '';
  const parsed = JSON.parse(json) as { panels: { targets?: { expr: string }[] }[] };
  const exprs = parsed.panels.flatMap((p) => p.targets ?? []).map((target) => target.expr);
  assert.ok(exprs.includes('vector(35)'), 'the read budget beside the reads');
});

test('additionalRuleLabels join every alert, beside its own severity', async () => {
  const { groups } = await chartRules('prometheusRule.additionalRuleLabels.team=platform');
  for (const rule of groups.flatMap((g) => g.rules)) {
    assert.equal(rule.labels?.team, 'platform', rule.alert);
    assert.match(rule.labels?.severity ?? '', /^(warning|critical)$/, rule.alert);
  }
});

test('the rendered rules pass promtool check rules', async (t) => {
  const dir = scratch(t);
  writeFileSync(path.join(dir, 'rules.yaml'), stringify(await chartRules()));
  const checked = await promtool(dir, 'check', 'rules', 'rules.yaml');
  assert.ok(checked.passed, checked.said);
  assert.match(checked.said, /SUCCESS: \d+ rules found/);
});

test("each alert fires as promtool's unit tests say, and they fail without it", async (t) => {
  const dir = scratch(t);
  const rules = await chartRules();
  writeFileSync(path.join(dir, 'rules.yaml'), stringify(rules));
  const tested = await promtool(dir, 'test', 'rules', 'alerts.promtool.yaml');
  assert.ok(tested.passed, tested.said);
  const alerts = rules.groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));
  assert.ok(alerts.length >= 15, `the alerts: ${alerts.join(', ')}`);
  for (const alert of alerts) {
    const without = {
      groups: rules.groups.map((g) => ({ ...g, rules: g.rules.filter((r) => r.alert !== alert) })),
    };
    writeFileSync(path.join(dir, 'rules.yaml'), stringify(without));
    const failed = await promtool(dir, 'test', 'rules', 'alerts.promtool.yaml');
    assert.ok(!failed.passed, `the tests pass without ${alert}`);
    assert.match(failed.said, new RegExp(`alertname: ${alert},`), `promtool names ${alert}`);
  }
});
