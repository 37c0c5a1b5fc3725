// The chart's alert rules as helm renders them, and a real Prometheus (Debian's prometheus
// package, installed when missing) that scrapes a test's controller and evaluates them, or scrapes
// the sample workers' SDK metrics for a metric analysis to query.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { Registry } from 'prom-client';
import { parseAllDocuments, stringify } from 'yaml';
import { freePort } from '../../dev/localenv/ports.ts';
import { CONTROLLER_CHART, helm } from './helm.ts';
import { ensureCommand } from './system-packages.ts';

export interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A Prometheus rule file's content. */
export interface RuleGroups {
  groups: { name: string; rules: Rule[] }[];
}

export interface RenderedObject {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: RuleGroups;
  data?: Record<string, string>;
}

/** The objects `helm template twc` renders in temporal-system with these `--set` values. */
export async function renderChart(...values: string[]): Promise<RenderedObject[]> {
  const sets = values.flatMap((value) => ['--set', value]);
  return parseAllDocuments(await helm('template', 'twc', CONTROLLER_CHART, '--namespace', 'temporal-system', ...sets))
    .map((document) => document.toJS() as RenderedObject | null)
    .filter((object) => object !== null);
}

/** The rules of the chart's PrometheusRule, as a Prometheus rule file has them. */
export async function chartRules(...values: string[]): Promise<RuleGroups> {
  const rule = (await renderChart('prometheusRule.enabled=true', ...values)).find((o) => o.kind === 'PrometheusRule');
  assert.ok(rule?.spec, 'a PrometheusRule');
  return rule.spec;
}

export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
}

export interface Prometheus {
  /** Its HTTP API's base URL. */
  url: string;
  /** The alerts pending or firing, as its API lists them. */
  alerts(): Promise<PrometheusAlert[]>;
  /** An instant query's answer, as its API gives it (for a test's diagnostics). */
  query(text: string): Promise<unknown>;
}

/**
 * Serves `registry` on a loopback port and starts a Prometheus that scrapes it and evaluates
 * `rules` every second; both stop after the test.
 */
export async function scrapingPrometheus(t: TestContext, registry: Registry, rules: RuleGroups): Promise<Prometheus> {
  const metrics = createServer((_request, response) => {
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => metrics.close(() => resolve())));
  return startPrometheus(t, `127.0.0.1:${(metrics.address() as AddressInfo).port}`, rules);
}

/** A Prometheus that scrapes `target` (`host:port`, path /metrics) every second, and evaluates `rules` if given; stopped after the test. */
export async function startPrometheus(t: TestContext, target: string, rules?: RuleGroups): Promise<Prometheus> {
  ensureCommand('prometheus', ['--version'], 'prometheus');
  const dir = mkdtempSync(path.join(tmpdir(), 'twc-prometheus-'));
  if (rules) writeFileSync(path.join(dir, 'rules.yaml'), stringify(rules));
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      ...(rules ? { rule_files: ['rules.yaml'] } : {}),
      // As the chart's ServiceMonitor: the worker deployments' own namespace label is kept.
      scrape_configs: [{ job_name: 'twc', honor_labels: true, static_configs: [{ targets: [target] }] }],
    }),
  );
  const address = `127.0.0.1:${await freePort()}`;
  let log = '';
  const server: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=${address}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  server.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-8000)));
  t.after(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const api = async (request: string): Promise<unknown> => {
    if (server.exitCode !== null) throw new Error(`prometheus exited (${server.exitCode}): ${log}`);
    const response = await fetch(`http://${address}/api/v1/${request}`);
    return ((await response.json()) as { data: unknown }).data;
  };
  return {
    url: `http://${address}`,
    alerts: async () => ((await api('alerts')) as { alerts: PrometheusAlert[] }).alerts,
    query: (text) => api(`query?query=${encodeURIComponent(text)}`),
  };
}
