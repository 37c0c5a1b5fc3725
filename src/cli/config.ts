// Every setting of `twc run` in one table: its flag (named after its key), environment variable,
// default, meaning and parser. The command line with its help, the reading of the environment
// (a flag wins over its variable, which wins over the default) and the table of docs/reference.md
// (`npm run generate`) are all made from it, so none can drift from the others.
import { InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import {
  DEFAULT_CALL_TIMEOUTS,
  DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_INELIGIBLE_VERSIONS,
  DEFAULT_MAX_VERSIONS_IN_DEPLOYMENT,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLLER_HISTORY_MS,
  DEFAULT_READS_PER_SECOND,
  DEFAULT_TEMPORAL_CONCURRENCY,
  DEFAULT_RECONCILE_TIMEOUT_MS,
  DEFAULT_ROLLBACK_WINDOW_MS,
  LEADER_ELECTION_DEFAULTS,
} from '../api/defaults.ts';
import { durationSeconds, durationText, DURATION } from '../api/schema.ts';
import { invalidDestinations } from '../domain/notification-destinations.ts';
import { parseEndpoints } from '../domain/analysis-prometheus.ts';
import { parseBindAddress } from '../runtime/http-server.ts';
import { LOG_FORMATS, LOG_LEVELS } from '../runtime/logger.ts';
import { DEFAULT_BANNED_KINDS } from '../webhook/owned-resource-admission.ts';

export interface Setting<T> {
  /** What its value is, as the help and docs/reference.md show it (`<duration>`). */
  value: string;
  env?: string;
  /** As it would be written on the command line; absent when it depends on where the controller runs. */
  default?: string;
  /** How the default is found when it is not one value; the default's value, if any, comes from `computeDefault`. */
  defaultText?: string;
  computeDefault?: () => string;
  /** On or off: `--leader-elect` alone means true, and `--no-leader-elect` false. */
  switch?: true;
  description: string;
  parse: (value: string) => T;
}

function text(value: string): string {
  return value;
}

function duration(value: string): number {
  if (!new RegExp(DURATION).test(value))
    throw new InvalidArgumentError(`"${value}" is not a duration such as 10s or 1m`);
  return durationSeconds(value) * 1000;
}

/**
 * A duration longer than 0 (a timeout of nothing would end everything at once) and at most a day
 * (a timer of Node.js longer than 24.8 days fires at once, and gRPC's grpc-timeout has 8 digits).
 */
function timeout(value: string): number {
  const ms = duration(value);
  if (ms <= 0 || ms > 86_400_000)
    throw new InvalidArgumentError(`"${value}" is not a duration longer than 0 and at most 24h`);
  return ms;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive whole number`);
  return n;
}

function rate(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`"${value}" is not a positive number`);
  return n;
}

export type BindAddress = NonNullable<ReturnType<typeof parseBindAddress>>;

/** False for `0`, disabled: commander would take undefined for a missing value. */
function bindAddress(value: string): BindAddress | false {
  try {
    return parseBindAddress(value) ?? false;
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:=,[\]]+):\d{1,5}$/;

/** `a:1=b:2,c:3=d:4` as a map from a to b; each side a host:port. */
function connectTo(value: string): ReadonlyMap<string, string> {
  const pairs = value.split(',').map((pair) => {
    const [from = '', to = '', ...more] = pair.trim().split('=');
    if (more.length > 0 || !HOST_PORT.test(from) || !HOST_PORT.test(to))
      throw new InvalidArgumentError(`"${pair}" is not host:port=host:port`);
    return [from, to] as const;
  });
  return new Map(pairs);
}

/** A comma-separated list, blanks left out. */
function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function boolean(value: string): boolean {
  if (value !== 'true' && value !== 'false') throw new InvalidArgumentError(`"${value}" is not true or false`);
  return value === 'true';
}

function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    const found = values.find((v) => v === value);
    if (found === undefined) throw new InvalidArgumentError(`"${value}" is not one of ${values.join(', ')}`);
    return found;
  };
}

/** The controller's own namespace when it runs in a cluster. */
function ownNamespace(): string {
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim();
  } catch {
    return 'default';
  }
}

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** `namespace/name` of the service account the controller's in-cluster token belongs to, '' elsewhere. */
function ownServiceAccount(): string {
  try {
    const payload = readFileSync(IN_CLUSTER_TOKEN, 'utf8').split('.')[1] ?? '';
    const subject = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown }).sub;
    const match = typeof subject === 'string' ? /^system:serviceaccount:([^:]+):([^:]+)$/.exec(subject) : null;
    return match ? `${match[1]}/${match[2]}` : '';
  } catch {
    return '';
  }
}

/** `namespace/name`, or '' for none. */
function serviceAccount(value: string): { namespace: string; name: string } | undefined {
  if (value === '') return undefined;
  const [namespace = '', name = '', ...more] = value.split('/');
  const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  if (more.length > 0 || !label.test(namespace) || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name))
    throw new InvalidArgumentError(`"${value}" is not namespace/name of a service account`);
  return { namespace, name };
}

/** Keyed by the name commander gives each option: the flag is the key in kebab case. */
export const SETTINGS = {
  kubeconfig: {
    value: '<file>',
    defaultText: 'the first file of `$KUBECONFIG`, else `~/.kube/config`, else the in-cluster service account',
    description:
      'the cluster to run against, as its current context says: token, token file, client certificate, user and password, or exec plugin; files are read again each minute, so rotation needs no restart',
    parse: text,
  },
  identity: {
    value: '<name>',
    env: 'TWC_IDENTITY',
    defaultText: '`temporal-worker-controller/<POD_NAMESPACE or hostname>`',
    computeDefault: () => `temporal-worker-controller/${process.env.POD_NAMESPACE ?? hostname()}`,
    description: 'manager identity claimed in Temporal when no one holds it; unique per installation',
    parse: text,
  },
  namespace: {
    value: '<name,...>',
    env: 'TWC_NAMESPACE',
    defaultText: 'all',
    description:
      'watch only these namespaces: the controller then lists and watches nothing outside them, so it needs rights in them alone',
    parse: (value: string) => {
      const names = value.split(',').map((name) => name.trim());
      const wrong = names.find((name) => !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 63);
      if (wrong !== undefined) throw new InvalidArgumentError(`"${wrong}" is not a namespace name`);
      return names;
    },
  },
  pollInterval: {
    value: '<duration>',
    env: 'TWC_POLL_INTERVAL',
    default: durationText(DEFAULT_POLL_INTERVAL_MS),
    description: 'how often Temporal is asked what events cannot tell (drainage)',
    parse: duration,
  },
  concurrency: {
    value: '<n>',
    env: 'TWC_CONCURRENCY',
    default: String(DEFAULT_CONCURRENCY),
    description: 'worker deployments reconciled at once',
    parse: positive,
  },
  maxIneligibleVersions: {
    value: '<n>',
    env: 'TWC_MAX_INELIGIBLE_VERSIONS',
    default: String(DEFAULT_MAX_INELIGIBLE_VERSIONS),
    description: `no new build is created while this many older builds that took traffic are not drained and scaled down (the server holds at most ${DEFAULT_MAX_VERSIONS_IN_DEPLOYMENT})`,
    parse: positive,
  },
  temporalMaxVersionsInDeployment: {
    value: '<n>',
    env: 'TWC_TEMPORAL_MAX_VERSIONS_IN_DEPLOYMENT',
    default: String(DEFAULT_MAX_VERSIONS_IN_DEPLOYMENT),
    description:
      "the Temporal server's cap of versions per deployment (its `matching.maxVersionsInDeployment`): only when Temporal records this many does the controller delete a drained build's record to make room for a new build",
    parse: positive,
  },
  rollbackWindow: {
    value: '<duration>',
    env: 'TWC_ROLLBACK_WINDOW',
    default: durationText(DEFAULT_ROLLBACK_WINDOW_MS),
    description:
      'a build that was current this recently is promoted at once when the spec asks for it again, without steps or gates',
    parse: duration,
  },
  certificateExpiryWarning: {
    value: '<duration>',
    env: 'TWC_CERTIFICATE_EXPIRY_WARNING',
    default: durationText(DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS),
    description:
      "how long before a certificate the controller or the workers read from a connection's Secrets (a client certificate, a CA) expires the connection and the worker deployments using it say so: `CertificateExpiring` (a condition and a Warning event; rollouts go on), then `Stalled` (`CertificateExpired`) once it has expired",
    parse: duration,
  },
  pollerHistory: {
    value: '<duration>',
    env: 'TWC_POLLER_HISTORY',
    default: durationText(DEFAULT_POLLER_HISTORY_MS),
    description:
      "how long Temporal remembers a poller (the server's `matching.PollerHistoryTTL`): a current or ramping build whose Deployments have been available this long, and on one of whose task queues Temporal then remembers no poller of it, says `Degraded=True`, reason `NoPollers` (judged on the pollers the leader reads with --backlog-metrics; not judged without)",
    parse: timeout,
  },
  temporalReadBudget: {
    value: '<reads per second>',
    env: 'TWC_TEMPORAL_READ_BUDGET',
    default: String(DEFAULT_READS_PER_SECOND),
    description:
      "reads per second of one Temporal namespace through one frontend, shared by every worker deployment using it; keep it under the server's limit (see Operations)",
    parse: rate,
  },
  temporalConcurrency: {
    value: '<n>',
    env: 'TWC_TEMPORAL_CONCURRENCY',
    default: String(DEFAULT_TEMPORAL_CONCURRENCY),
    description:
      'calls to Temporal in flight at once per Temporal namespace through one frontend, reads and writes of every worker deployment together (a read first waits for its token of --temporal-read-budget): reconciles of different worker deployments make their calls side by side up to this, apart from --concurrency',
    parse: positive,
  },
  temporalReadTimeout: {
    value: '<duration>',
    env: 'TWC_TEMPORAL_READ_TIMEOUT',
    default: durationText(DEFAULT_CALL_TIMEOUTS.readMs),
    description:
      'how long a read of Temporal (a describe, a count, the connection check) may take, its retries included: past it, the call is given up, the worker deployment says which call and timeout (Progressing=False, `TemporalUnreachable`) and is looked at again after a growing delay, as after a rate limit',
    parse: timeout,
  },
  temporalWriteTimeout: {
    value: '<duration>',
    env: 'TWC_TEMPORAL_WRITE_TIMEOUT',
    default: durationText(DEFAULT_CALL_TIMEOUTS.writeMs),
    description:
      "the same for a change in Temporal (routing, a gate or batch started, a version record deleted): longer, as such an update of the Worker Deployment's own workflow takes seconds while it is busy, and one given up may still take effect",
    parse: timeout,
  },
  reconcileTimeout: {
    value: '<duration>',
    env: 'TWC_RECONCILE_TIMEOUT',
    default: durationText(DEFAULT_RECONCILE_TIMEOUT_MS),
    description:
      'how long one reconcile may take: past it, its Temporal calls are cut off, it writes nothing more, its slot goes to the next key and it is retried with backoff; longer than --temporal-read-timeout and --temporal-write-timeout, so that a call past its own timeout is said in the status first',
    parse: timeout,
  },
  backlogMetrics: {
    value: '[true|false]',
    switch: true,
    env: 'TWC_BACKLOG_METRICS',
    default: 'true',
    description:
      "the leader reads the task-queue backlog of each build something asks for (an external metrics query that may pick it, an owned autoscaler of it that names a backlog metric, a scrape of the `twc_temporal_backlog_*` gauges, within the last five intervals and at least two minutes) from Temporal, at most once per --poll-interval and within --temporal-read-budget, for those gauges and, where the webhook is served, the external.metrics.k8s.io API on its port; and, in the same share, each build's task queues (once Temporal lists it, then every 30 minutes) and each worker deployment's pollers on its builds' workflow and activity task queues (every third interval while a rollout waits, twice per --poller-history when idle), for the status (`pollers` and `taskQueues` of each build) and the `NoPollers` judgement (see --poller-history)",
    parse: boolean,
  },
  externalMetricsService: {
    value: '<name>',
    env: 'TWC_EXTERNAL_METRICS_SERVICE',
    default: 'temporal-worker-controller-external-metrics',
    description:
      'the selector-less Service (in --webhook-namespace) that the external metrics APIService names: only the leader holds the backlog figures, so it writes itself in as its one endpoint (an EndpointSlice of the same name); a self-managed certificate names it too',
    parse: text,
  },
  externalMetricsAdvertiseAddress: {
    value: '<ip>',
    env: 'TWC_EXTERNAL_METRICS_ADVERTISE_ADDRESS',
    defaultText: '`POD_IP`; unset, no endpoint is written (the Service is yours to route)',
    computeDefault: () => process.env.POD_IP ?? '',
    description: "the leader's address in the external metrics Service's EndpointSlice",
    parse: text,
  },
  externalMetricsApiService: {
    value: '<name>',
    env: 'TWC_EXTERNAL_METRICS_API_SERVICE',
    default: '',
    description:
      'the APIService whose caBundle a self-managed certificate keeps as well (`v1beta1.external.metrics.k8s.io` when the chart registers it); empty: none',
    parse: text,
  },
  serviceAccount: {
    value: '<namespace/name>',
    env: 'TWC_SERVICE_ACCOUNT',
    defaultText: 'the one whose in-cluster token the controller runs with; none outside a cluster',
    computeDefault: ownServiceAccount,
    description:
      "the controller's service account: TemporalClusterConnections with serviceAccountToken send its tokens, for --own-token-audiences only (TokenRequest, so it needs `create` on its own `serviceaccounts/token`)",
    parse: serviceAccount,
  },
  ownTokenAudiences: {
    value: '<audience,...>',
    env: 'TWC_OWN_TOKEN_AUDIENCES',
    default: '',
    description:
      "the audiences a TemporalClusterConnection's serviceAccountToken may have the controller's own token issued for; a TemporalConnection never may (it names a ServiceAccount of its namespace), and no token the cluster's API server accepts is ever sent (TokenReview)",
    parse: commaList,
  },
  notificationDestinations: {
    value: '<url prefix,...>',
    env: 'TWC_NOTIFICATION_DESTINATIONS',
    default: '',
    description:
      "the URL prefixes a TemporalWorkerDeployment's spec.notifications may send to (same scheme, host and port, path under the prefix's; redirects are not followed), such as `https://hooks.slack.com/services/`; empty: notifications are off, and a worker deployment that asks for them says `NotificationsRefused`. The controller's network position may reach what the namespaces' Pods cannot: allow only receivers meant for it",
    parse: (value: string) => {
      const prefixes = commaList(value);
      const wrong = invalidDestinations(prefixes)[0];
      if (wrong !== undefined) throw new InvalidArgumentError(`"${wrong}" is not an http or https URL`);
      return prefixes;
    },
  },
  analysisPrometheus: {
    value: '<name=url,...>',
    env: 'TWC_ANALYSIS_PROMETHEUS',
    default: '',
    description:
      "the Prometheus-compatible endpoints spec.rollout.analysis.metrics may query, each by a name a worker deployment's spec.rollout.analysis.prometheus.name gives (the spec never gives an address), such as `main=http://prometheus.monitoring:9090`; queries go to `<url>/api/v1/query`, redirects are not followed, and the controller sends no credential of its own; empty: metric analysis is off, and a rollout that asks for it waits, saying so",
    parse: (value: string) => {
      try {
        return parseEndpoints(commaList(value));
      } catch (error) {
        throw new InvalidArgumentError((error as Error).message);
      }
    },
  },
  analysisPrometheusTenantAuth: {
    value: '<name,...>',
    env: 'TWC_ANALYSIS_PROMETHEUS_TENANT_AUTH',
    default: '',
    description:
      "the endpoints of --analysis-prometheus that take a query only with the worker deployment's own bearer token (spec.rollout.analysis.prometheus.bearerTokenSecretRef, a Secret of its namespace): a multi-tenant front such as prom-label-proxy, Mimir or Thanos then answers each namespace what its own token may read",
    parse: commaList,
  },
  temporalConnectTo: {
    value: '<host:port=host:port,...>',
    env: 'TWC_TEMPORAL_CONNECT_TO',
    defaultText: 'none',
    description:
      "reach a connection's `hostPort` (left) at another address (right), as curl's `--connect-to`: for a controller run outside the cluster, through `kubectl port-forward` for instance; the certificate is still checked against the left host",
    parse: connectTo,
  },
  metricsBindAddress: {
    value: '<address>',
    env: 'TWC_METRICS_BIND_ADDRESS',
    default: ':8080',
    description: 'where `/metrics` is served (`host:port`, `:port` for every interface); `0` disables',
    parse: bindAddress,
  },
  metricsSecure: {
    value: '[true|false]',
    switch: true,
    env: 'TWC_METRICS_SECURE',
    default: 'false',
    description:
      "serve `/metrics` over HTTPS (a self-signed certificate made at start) to bearer tokens the API server authenticates (TokenReview) and allows `get` on the non-resource URL `/metrics` (SubjectAccessReview), as controller-runtime's secure metrics; needs an address of its own, not the probes'",
    parse: boolean,
  },
  healthProbeBindAddress: {
    value: '<address>',
    env: 'TWC_HEALTH_PROBE_BIND_ADDRESS',
    default: ':8081',
    description: 'where `/healthz` and `/readyz` are served; `0` disables',
    parse: bindAddress,
  },
  dashboardBindAddress: {
    value: '<address>',
    env: 'TWC_DASHBOARD_BIND_ADDRESS',
    default: '0',
    description:
      'where the read-only dashboard of the worker deployments it watches is served, as `twc dashboard` serves it; every replica serves it; `0` disables',
    parse: bindAddress,
  },
  dashboardRequireToken: {
    value: '[true|false]',
    switch: true,
    env: 'TWC_DASHBOARD_REQUIRE_TOKEN',
    default: 'false',
    description:
      "the dashboard's data only for a bearer token the API server authenticates (TokenReview) and allows `list` on TemporalWorkerDeployments in every namespace it watches (SubjectAccessReview); the page asks for the token",
    parse: boolean,
  },
  webhookBindAddress: {
    value: '<address>',
    env: 'TWC_WEBHOOK_BIND_ADDRESS',
    default: ':9443',
    description:
      'where the validating webhook of TemporalWorkerOwnedResources is served over HTTPS, by every replica; `0` disables it',
    parse: bindAddress,
  },
  webhookCerts: {
    value: '<source>',
    env: 'TWC_WEBHOOK_CERTS',
    default: 'self-managed',
    description:
      "`self-managed`: the controller keeps a CA and serving certificate in --webhook-cert-secret, shared by its replicas, puts its CAs into the caBundle of --webhook-configuration and renews both before they expire; `cert-dir`: tls.crt and tls.key of --webhook-cert-dir, from cert-manager or a Secret of yours (the caBundle is then yours, or cert-manager's CA injector's)",
    parse: oneOf(['self-managed', 'cert-dir'] as const),
  },
  webhookNamespace: {
    value: '<name>',
    env: 'TWC_WEBHOOK_NAMESPACE',
    defaultText: "`POD_NAMESPACE`, else the in-cluster service account's namespace, else `default`",
    computeDefault: ownNamespace,
    description: "namespace of the webhook's Service and of its certificate Secret",
    parse: text,
  },
  webhookService: {
    value: '<name>',
    env: 'TWC_WEBHOOK_SERVICE',
    default: 'temporal-worker-controller-webhook',
    description:
      'the Service the API server calls the webhook through: a self-managed certificate names `<service>.<namespace>.svc` and `<service>.<namespace>.svc.cluster.local`',
    parse: text,
  },
  webhookConfiguration: {
    value: '<name>',
    env: 'TWC_WEBHOOK_CONFIGURATION',
    default: 'temporal-worker-controller',
    description: 'the ValidatingWebhookConfiguration whose caBundle a self-managed certificate keeps',
    parse: text,
  },
  webhookCertSecret: {
    value: '<name>',
    env: 'TWC_WEBHOOK_CERT_SECRET',
    default: 'temporal-worker-controller-webhook-tls',
    description: 'the Secret that holds the self-managed CA and serving certificate (made when missing)',
    parse: text,
  },
  webhookCertLifetime: {
    value: '<duration>',
    env: 'TWC_WEBHOOK_CERT_LIFETIME',
    default: '2160h',
    description:
      'how long a self-managed serving certificate is valid (its CA four times as long); each is renewed at two thirds of its life',
    parse: duration,
  },
  webhookCertDir: {
    value: '<dir>',
    env: 'TWC_WEBHOOK_CERT_DIR',
    default: '/tmp/k8s-webhook-server/serving-certs',
    description:
      'with `--webhook-certs=cert-dir`, holds tls.crt and tls.key (read again when they change: a renewal needs no restart)',
    parse: text,
  },
  ownedResourcesServiceAccount: {
    value: '<name>',
    env: 'TWC_OWNED_RESOURCES_SERVICE_ACCOUNT',
    defaultText: 'none',
    description:
      "the ServiceAccount, of each TemporalWorkerOwnedResource's own namespace, that its copies are applied, listed and deleted as (impersonated) when its spec.serviceAccountName names none; empty: each must name one. Never the controller's own rights (it needs `impersonate` on `serviceaccounts`)",
    parse: text,
  },
  ownedResourceBannedKinds: {
    value: '<kind,...>',
    env: 'TWC_OWNED_RESOURCE_BANNED_KINDS',
    default: DEFAULT_BANNED_KINDS.join(','),
    description: 'kinds the webhook refuses in a TemporalWorkerOwnedResource',
    parse: (value: string) =>
      value
        .split(',')
        .map((kind) => kind.trim())
        .filter(Boolean),
  },
  leaderElect: {
    value: '[true|false]',
    switch: true,
    env: 'TWC_LEADER_ELECT',
    default: 'true',
    description:
      'reconcile only while holding the Lease, so replicas can stand by; without it, only one replica may run',
    parse: boolean,
  },
  leaderElectionNamespace: {
    value: '<name>',
    env: 'TWC_LEADER_ELECTION_NAMESPACE',
    defaultText: "`POD_NAMESPACE`, else the in-cluster service account's namespace, else `default`",
    computeDefault: ownNamespace,
    description: 'namespace of the Lease',
    parse: text,
  },
  leaderElectionId: {
    value: '<name>',
    env: 'TWC_LEADER_ELECTION_ID',
    default: 'temporal-worker-controller',
    description: 'name of the Lease',
    parse: text,
  },
  leaderElectLeaseDuration: {
    value: '<duration>',
    env: 'TWC_LEADER_ELECT_LEASE_DURATION',
    default: durationText(LEADER_ELECTION_DEFAULTS.leaseDurationMs),
    description: 'how long a standby waits after the last renewal before it takes the Lease',
    parse: duration,
  },
  leaderElectRenewDeadline: {
    value: '<duration>',
    env: 'TWC_LEADER_ELECT_RENEW_DEADLINE',
    default: durationText(LEADER_ELECTION_DEFAULTS.renewDeadlineMs),
    description:
      'how long the leader keeps trying to renew before it stops reconciling and exits; shorter than the lease duration',
    parse: duration,
  },
  leaderElectRenewPeriod: {
    value: '<duration>',
    env: 'TWC_LEADER_ELECT_RENEW_PERIOD',
    default: durationText(LEADER_ELECTION_DEFAULTS.renewPeriodMs),
    description: 'how often the leader renews the Lease; shorter than the renew deadline',
    parse: duration,
  },
  leaderElectRetryPeriod: {
    value: '<duration>',
    env: 'TWC_LEADER_ELECT_RETRY_PERIOD',
    default: durationText(LEADER_ELECTION_DEFAULTS.retryPeriodMs),
    description: 'how often a standby tries to take the Lease, and the leader tries again a failed renewal',
    parse: duration,
  },
  kubeApiQps: {
    value: '<requests per second>',
    env: 'TWC_KUBE_API_QPS',
    default: '20',
    description: 'requests per second to the Kubernetes API, watches aside, beyond the burst',
    parse: rate,
  },
  kubeApiBurst: {
    value: '<n>',
    env: 'TWC_KUBE_API_BURST',
    default: '30',
    description: 'requests to the Kubernetes API that may go at once before --kube-api-qps applies',
    parse: positive,
  },
  logLevel: {
    value: `<${LOG_LEVELS.join('|')}>`,
    env: 'TWC_LOG_LEVEL',
    default: 'info',
    description: 'the least severe entries logged; `debug` adds a line per reconcile',
    parse: oneOf(LOG_LEVELS),
  },
  logFormat: {
    value: `<${LOG_FORMATS.join('|')}>`,
    env: 'TWC_LOG_FORMAT',
    default: 'auto',
    description: 'JSON lines, or one line for people; `auto` is `pretty` when stderr is a terminal, else `json`',
    parse: oneOf(LOG_FORMATS),
  },
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;

/** What `twc run` runs with: a setting without a default may be absent. */
export type Config = {
  [K in keyof Settings]: Settings[K] extends { parse: (value: string) => infer T }
    ? Settings[K] extends { default: string } | { computeDefault: () => string }
      ? T
      : T | undefined
    : never;
};

const settings: [string, Setting<unknown>][] = Object.entries(SETTINGS);

/** `--poll-interval` for `pollInterval`. */
export function flagOf(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** The flags of a setting: a switch also has its negation. */
function flagsOf(key: string, s: Setting<unknown>): string[] {
  const flag = flagOf(key);
  return s.switch ? [`${flag} ${s.value}`, `--no-${flag.slice(2)}`] : [`${flag} ${s.value}`];
}

/** Commander's own help adds defaults and variables; ours are in each description already. */
export const HELP_CONFIGURATION = { optionDescription: (option: Option): string => option.description };

/** The options of `twc run`, defaults computed now. */
export function commandOptions(): Option[] {
  return settings.flatMap(([key, s]) => {
    const [flags = '', negation] = flagsOf(key, s);
    // The help shows each default as it is written (`10s`, `:8080`), or how it is found, and the
    // variable, in one bracket: commander would show only defaults it holds, as JSON.
    const shown = [`default: ${s.default ?? plain(s.defaultText ?? '')}`, ...(s.env ? [`env: ${s.env}`] : [])];
    const option = new Option(flags, `${s.description} (${shown.join(', ')})`).argParser(s.parse);
    if (s.env) option.env(s.env);
    if (s.default !== undefined) option.default(s.parse(s.default));
    else if (s.computeDefault) option.default(s.parse(s.computeDefault()));
    if (!negation) return [option];
    option.preset('true');
    return [option, new Option(negation, `the same as ${flagOf(key)}=false`)];
  });
}

function plain(markdown: string): string {
  return markdown.replaceAll('`', '');
}

export const TABLE_BEGIN = '<!-- settings: generated by `npm run generate` from src/cli/config.ts -->';
export const TABLE_END = '<!-- end of settings -->';

/** The table of settings of docs/reference.md. */
export function settingsTable(): string {
  const cell = (value: string): string => value.replace(/\|/g, '\\|');
  const rows = settings.map(([key, s]) => {
    const flags = flagsOf(key, s).map((flag) => `\`${flag}\``);
    const fallback = s.default === undefined ? (s.defaultText ?? '') : `\`${s.default}\``;
    return `| ${cell(flags.join(', '))} | ${s.env ? `\`${s.env}\`` : '—'} | ${cell(fallback)} | ${cell(s.description)} |`;
  });
  return [TABLE_BEGIN, '', '| flag | env | default | meaning |', '|---|---|---|---|', ...rows, '', TABLE_END].join(
    '\n',
  );
}

/** The page with its table of settings replaced. */
export function withSettingsTable(readme: string): string {
  const start = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < 0) throw new Error(`the page lacks the settings markers:\n${TABLE_BEGIN}\n${TABLE_END}`);
  return `${readme.slice(0, start)}${settingsTable()}${readme.slice(end + TABLE_END.length)}`;
}
