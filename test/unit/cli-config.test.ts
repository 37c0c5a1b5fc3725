import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Command } from 'commander';
import { REFERENCE } from '../../scripts/generate.ts';
import {
  commandOptions,
  HELP_CONFIGURATION,
  type Config,
  flagOf,
  SETTINGS,
  TABLE_BEGIN,
  TABLE_END,
  withSettingsTable,
} from '../../src/cli/config.ts';
import { settingsConflict } from '../../src/cli/run/settings.ts';

/** `twc run`'s options parsed from these arguments, with only these TWC_ variables set. */
function parse(args: string[], env: Record<string, string> = {}): Config {
  const saved = Object.entries(process.env).filter(([key]) => key.startsWith('TWC_'));
  for (const [key] of saved) delete process.env[key];
  Object.assign(process.env, env);
  try {
    const command = new Command('run').exitOverride().configureOutput({ writeErr: () => {} });
    for (const option of commandOptions()) command.addOption(option);
    return command.parse(args, { from: 'user' }).opts<Config>();
  } finally {
    for (const key of Object.keys(env)) delete process.env[key];
    Object.assign(process.env, Object.fromEntries(saved));
  }
}

test("docs/reference.md's table of settings lists every setting with its env and default, as `npm run generate` writes it", () => {
  const reference = readFileSync(REFERENCE, 'utf8');
  assert.equal(reference, withSettingsTable(reference), 'the table of settings is stale: run `npm run generate`');
  const rows = reference
    .slice(reference.indexOf(TABLE_BEGIN), reference.indexOf(TABLE_END))
    .split('\n')
    .filter((line) => line.startsWith('| `--'))
    .map((line) => line.split(/(?<!\\) \| /).map((cell) => cell.replace(/^\| |`/g, '')));
  assert.deepEqual(
    rows.map(([flags = '', env]) => [flags.split(' ')[0], env]),
    Object.entries(SETTINGS).map(([key, s]) => [flagOf(key), 'env' in s ? s.env : '—']),
    'the same flags in the same order, with the same variables',
  );
  for (const [key, s] of Object.entries(SETTINGS)) {
    const row = rows.find(([flags = '']) => flags.split(' ')[0] === flagOf(key));
    assert.equal(row?.[2], 'default' in s ? s.default : s.defaultText.replaceAll('`', ''), `the default of ${key}`);
  }
});

test('without flags or variables every setting has its default', () => {
  const config = parse([]);
  assert.deepEqual(
    { ...config, identity: undefined, leaderElectionNamespace: undefined, webhookNamespace: undefined },
    {
      identity: undefined,
      pollInterval: 10_000,
      pollerHistory: 300_000,
      concurrency: 32,
      maxIneligibleVersions: 75,
      temporalMaxVersionsInDeployment: 100,
      rollbackWindow: 3_600_000,
      certificateExpiryWarning: 7 * 86_400_000,
      temporalReadBudget: 20,
      temporalConcurrency: 16,
      temporalReadTimeout: 10_000,
      temporalWriteTimeout: 30_000,
      reconcileTimeout: 120_000,
      backlogMetrics: true,
      externalMetricsService: 'temporal-worker-controller-external-metrics',
      externalMetricsAdvertiseAddress: '',
      externalMetricsApiService: '',
      metricsBindAddress: { port: 8080 },
      metricsSecure: false,
      dashboardBindAddress: false,
      dashboardRequireToken: false,
      healthProbeBindAddress: { port: 8081 },
      webhookBindAddress: { port: 9443 },
      webhookCerts: 'self-managed',
      webhookNamespace: undefined,
      webhookService: 'temporal-worker-controller-webhook',
      webhookConfiguration: 'temporal-worker-controller',
      webhookCertSecret: 'temporal-worker-controller-webhook-tls',
      webhookCertLifetime: 90 * 24 * 3_600_000,
      webhookCertDir: '/tmp/k8s-webhook-server/serving-certs',
      ownTokenAudiences: [],
      notificationDestinations: [],
      analysisPrometheus: [],
      analysisPrometheusTenantAuth: [],
      ownedResourceBannedKinds: ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Pod', 'Job', 'CronJob'],
      leaderElect: true,
      leaderElectionNamespace: undefined,
      leaderElectionId: 'temporal-worker-controller',
      leaderElectLeaseDuration: 15_000,
      leaderElectRenewDeadline: 10_000,
      leaderElectRenewPeriod: 5_000,
      leaderElectRetryPeriod: 2_000,
      kubeApiQps: 20,
      kubeApiBurst: 30,
      logLevel: 'info',
      logFormat: 'auto',
    },
  );
  assert.match(config.identity, /^temporal-worker-controller\/./);
  assert.ok(config.leaderElectionNamespace);
});

test('a flag wins over its variable, which wins over the default; both go through the same parser', () => {
  assert.equal(parse([], { TWC_POLL_INTERVAL: '1m' }).pollInterval, 60_000);
  assert.equal(parse(['--poll-interval=2s'], { TWC_POLL_INTERVAL: '1m' }).pollInterval, 2_000);
  assert.equal(parse([], { TWC_LOG_LEVEL: 'debug' }).logLevel, 'debug');
  assert.equal(parse(['--log-level', 'error'], { TWC_LOG_LEVEL: 'debug' }).logLevel, 'error');
  assert.equal(parse([], { TWC_METRICS_BIND_ADDRESS: '0' }).metricsBindAddress, false, '0 disables');
  assert.throws(
    () => parse([], { TWC_CONCURRENCY: '0' }),
    /from env 'TWC_CONCURRENCY' is invalid\. "0" is not a positive whole number/,
  );
  assert.throws(() => parse(['--log-format=xml']), /"xml" is not one of auto, json, pretty/);
  assert.equal(parse([], { TWC_TEMPORAL_WRITE_TIMEOUT: '45s' }).temporalWriteTimeout, 45_000);
  assert.throws(() => parse(['--temporal-read-timeout=0s']), /"0s" is not a duration longer than 0 and at most 24h/);
  assert.throws(() => parse(['--reconcile-timeout=1000h']), /"1000h" is not a duration longer than 0 and at most 24h/);
});

test('leader election is a switch that also takes true or false, from a flag or its variable', () => {
  const cases: [string[], Record<string, string>, boolean][] = [
    [[], {}, true],
    [['--leader-elect'], { TWC_LEADER_ELECT: 'false' }, true],
    [['--leader-elect=false'], {}, false],
    [['--no-leader-elect'], {}, false],
    [[], { TWC_LEADER_ELECT: 'false' }, false],
    [[], { TWC_LEADER_ELECT: 'true' }, true],
  ];
  for (const [args, env, expected] of cases)
    assert.equal(parse(args, env).leaderElect, expected, `${args.join(' ')} ${JSON.stringify(env)}`);
  assert.throws(() => parse([], { TWC_LEADER_ELECT: 'yes' }), /"yes" is not true or false/);
});

test('the help shows each default as it is written and its variable, in one bracket', () => {
  const run = new Command('run').configureHelp(HELP_CONFIGURATION);
  for (const option of commandOptions()) run.addOption(option);
  const help = run.helpInformation();
  const line = (flag: string) => help.split('\n').find((l) => l.trimStart().startsWith(`${flag} `)) ?? '';
  assert.match(line('--namespace'), /needs rights in them alone \(default: all, env: TWC_NAMESPACE\)$/);
  assert.match(line('--poll-interval'), /\(default: 10s, env: TWC_POLL_INTERVAL\)$/);
  assert.match(line('--rollback-window'), /\(default: 1h, env: TWC_ROLLBACK_WINDOW\)$/);
  assert.match(line('--reconcile-timeout'), /\(default: 2m, env: TWC_RECONCILE_TIMEOUT\)$/);
  assert.match(line('--metrics-bind-address'), /\(default: :8080, env: TWC_METRICS_BIND_ADDRESS\)$/);
  assert.match(line('--leader-elect'), /\(default: true, env: TWC_LEADER_ELECT\)$/);
  assert.match(
    line('--kubeconfig'),
    /\(default: the first file of \$KUBECONFIG, else ~\/\.kube\/config, else the in-cluster service account\)$/,
  );
  assert.equal(help.match(/\(default: /g)?.length, Object.keys(SETTINGS).length, 'one default per setting');
});

test('lease timings and the Kubernetes request rate are settings, durations as written', () => {
  const config = parse(
    [
      '--leader-elect-lease-duration=1m',
      '--leader-elect-renew-deadline=40s',
      '--leader-elect-renew-period=15s',
      '--kube-api-qps=5.5',
    ],
    { TWC_LEADER_ELECT_RETRY_PERIOD: '5s', TWC_KUBE_API_BURST: '8' },
  );
  assert.deepEqual(
    [
      config.leaderElectLeaseDuration,
      config.leaderElectRenewDeadline,
      config.leaderElectRenewPeriod,
      config.leaderElectRetryPeriod,
    ],
    [60_000, 40_000, 15_000, 5_000],
  );
  assert.deepEqual([config.kubeApiQps, config.kubeApiBurst], [5.5, 8]);
  assert.throws(() => parse(['--kube-api-burst=0']), /"0" is not a positive whole number/);
});

test('--temporal-connect-to maps host:port to host:port, several joined by commas, and refuses anything else', () => {
  assert.deepEqual(
    parse(['--temporal-connect-to=temporal-frontend.temporal.svc:7233=127.0.0.1:7233, [::1]:7000=[::1]:7001'])
      .temporalConnectTo,
    new Map([
      ['temporal-frontend.temporal.svc:7233', '127.0.0.1:7233'],
      ['[::1]:7000', '[::1]:7001'],
    ]),
  );
  assert.deepEqual(parse([], { TWC_TEMPORAL_CONNECT_TO: 'a:1=b:2' }).temporalConnectTo, new Map([['a:1', 'b:2']]));
  for (const bad of ['a:1', 'a=b:2', 'a:1=b:2=c:3', 'a:x=b:2'])
    assert.throws(() => parse([`--temporal-connect-to=${bad}`]), /is not host:port=host:port/, bad);
});

test('--notification-destinations takes URL prefixes joined by commas, and refuses what is no http(s) URL at startup', () => {
  assert.deepEqual(
    parse(['--notification-destinations=https://hooks.slack.com/services/, http://receiver.ops.svc:8080/'])
      .notificationDestinations,
    ['https://hooks.slack.com/services/', 'http://receiver.ops.svc:8080/'],
  );
  for (const bad of ['hooks.slack.com', 'file:///etc/passwd'])
    assert.throws(() => parse([`--notification-destinations=${bad}`]), /is not an http or https URL/, bad);
});

test('--analysis-prometheus takes name=url pairs joined by commas, and refuses at startup what is not one', () => {
  assert.deepEqual(
    parse(['--analysis-prometheus=main=http://prometheus.monitoring:9090/, mimir=https://mimir.example/prometheus'])
      .analysisPrometheus,
    [
      { name: 'main', url: 'http://prometheus.monitoring:9090', tenantAuth: false },
      { name: 'mimir', url: 'https://mimir.example/prometheus', tenantAuth: false },
    ],
  );
  assert.deepEqual(parse(['--analysis-prometheus-tenant-auth=mimir']).analysisPrometheusTenantAuth, ['mimir']);
  const refusals: [string, RegExp][] = [
    ['http://prometheus:9090', /is not name=url/],
    ['Main=http://prometheus:9090', /is not name=url/],
    ['main=prometheus:9090', /is not http or https/],
    ['main=file:///etc/passwd', /is not http or https/],
    ['main=http://user:secret@prometheus:9090', /no credentials, query or fragment/],
    ['main=http://a:9090,main=http://b:9090', /endpoint main is named twice/],
  ];
  for (const [bad, says] of refusals) assert.throws(() => parse([`--analysis-prometheus=${bad}`]), says, bad);
});

test('--namespace takes one namespace or several, joined by commas, and refuses what is not a name', () => {
  assert.deepEqual(parse(['--namespace=orders']).namespace, ['orders']);
  assert.deepEqual(parse(['--namespace=orders, billing']).namespace, ['orders', 'billing']);
  assert.throws(() => parse(['--namespace=orders,Billing']), /"Billing" is not a namespace name/);
});

test('twc run refuses settings that cannot work together, naming both flags', () => {
  assert.equal(settingsConflict(parse([])), undefined, 'the defaults');
  const refusals: [string[], RegExp][] = [
    [
      ['--leader-elect-lease-duration=10s'],
      /--leader-elect-renew-deadline \(10s\) must be shorter than --leader-elect-lease-duration \(10s\)/,
    ],
    [
      ['--leader-elect-renew-period=10s'],
      /--leader-elect-renew-period \(10s\) must be shorter than --leader-elect-renew-deadline \(10s\)/,
    ],
    [['--reconcile-timeout=10s'], /--reconcile-timeout \(10s\) must be longer than --temporal-read-timeout/],
    [
      ['--analysis-prometheus=main=http://p:9090', '--analysis-prometheus-tenant-auth=mimir'],
      /--analysis-prometheus-tenant-auth names mimir, which --analysis-prometheus does not/,
    ],
  ];
  for (const [args, refusal] of refusals) assert.match(settingsConflict(parse(args)) ?? '', refusal, args.join(' '));
});
