// The controller chart against `twc run`'s settings (src/cli/config.ts): every setting is a value
// of the chart, under `controller` with the controller's own default and parser, or set by the
// chart from its other values; the schema refuses what the parser would.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { SETTINGS } from '../../src/cli/config.ts';

const CHART = path.join(import.meta.dirname, '../../charts/temporal-worker-controller');
const values = parse(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')) as { controller: Record<string, unknown> };
const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8')) as {
  properties: { controller: { properties: Record<string, { enum?: string[]; pattern?: string }> } };
};

/** Settings the chart derives from its other values, and from which. */
const SET_BY_THE_CHART: Record<string, string> = {
  kubeconfig: 'never: the controller uses its service account',
  namespace: 'rbac.watchNamespaces',
  metricsBindAddress: 'metrics.enabled, metrics.port',
  metricsSecure: 'metrics.secure',
  dashboardRequireToken: 'dashboard.enabled',
  healthProbeBindAddress: 'healthProbePort',
  dashboardBindAddress: 'dashboard.enabled, dashboard.port',
  webhookBindAddress: 'webhook.enabled, webhook.port',
  webhookCerts: 'webhook.certificates',
  webhookNamespace: 'the release namespace',
  webhookService: 'the release name',
  webhookConfiguration: 'the release name',
  webhookCertSecret: 'the release name, or webhook.secret.name',
  webhookCertLifetime: 'webhook.certLifetime',
  webhookCertDir: 'where the chart mounts the certificate',
  externalMetricsService: 'the release name, with externalMetrics.enabled',
  externalMetricsAdvertiseAddress: "the Pod's IP (POD_IP), with externalMetrics.enabled",
  externalMetricsApiService: 'externalMetrics.enabled, with self-managed certificates',
  serviceAccount: 'the release namespace and the service account the chart runs it as',
  leaderElect: 'always on',
  leaderElectionNamespace: 'the release namespace',
  leaderElectionId: 'the release name',
  leaderElectLeaseDuration: 'leaderElection.leaseDuration',
  leaderElectRenewDeadline: 'leaderElection.renewDeadline',
  leaderElectRenewPeriod: 'leaderElection.renewPeriod',
  leaderElectRetryPeriod: 'leaderElection.retryPeriod',
};
/** Where the chart's default differs from the controller's, and why. */
const CHART_DEFAULTS: Record<string, unknown> = {
  logFormat: 'json', // `auto` picks pretty output on a terminal; a Pod's log is for collectors
  identity: '', // the chart's default, temporal-worker-controller/<release namespace>, is the controller's in a Pod
  // The controller has none (each twor then names its own); the chart names one a namespace may make.
  ownedResourcesServiceAccount: 'temporal-worker-owned-resources',
};

test('every setting of `twc run` is a value of the chart, or set by the chart from its other values', () => {
  const chartValues = Object.keys(values.controller).sort();
  const controllerSettings = Object.keys(SETTINGS)
    .filter((key) => !(key in SET_BY_THE_CHART))
    .sort();
  assert.deepEqual(chartValues, controllerSettings, 'values.yaml: controller');
  assert.deepEqual(
    Object.keys(schema.properties.controller.properties).sort(),
    controllerSettings,
    'values.schema.json',
  );
});

test("each `controller` value defaults to the controller's own default, parsed the same", () => {
  for (const [key, value] of Object.entries(values.controller)) {
    const setting = SETTINGS[key as keyof typeof SETTINGS];
    if (key in CHART_DEFAULTS) {
      assert.deepEqual(value, CHART_DEFAULTS[key], key);
      continue;
    }
    const written = Array.isArray(value) ? value.join(',') : String(value);
    const expected = 'default' in setting && setting.default !== undefined ? setting.default : '';
    if (written === '' && expected === '') continue; // not passed: the controller's default applies
    assert.deepEqual(
      setting.parse(written),
      setting.parse(expected),
      `controller.${key}: ${written} in values.yaml, ${expected} in src/cli/config.ts`,
    );
  }
});

test("the schema's choices and patterns are the parser's", () => {
  const properties = schema.properties.controller.properties;
  for (const [key, property] of Object.entries(properties)) {
    const setting = SETTINGS[key as keyof typeof SETTINGS];
    for (const choice of property.enum ?? []) assert.doesNotThrow(() => setting.parse(choice), `${key}: ${choice}`);
    if (property.enum) assert.throws(() => setting.parse('surely-not'), `${key} refuses what the schema refuses`);
    if (property.pattern) {
      assert.doesNotThrow(() => setting.parse('90s'), key);
      assert.equal(new RegExp(property.pattern).test('ninety'), false, key);
      assert.throws(() => setting.parse('ninety'), key);
    }
  }
});
