// `twc`: the controller's command line. `twc run` runs the controller against the cluster of a
// kubeconfig, or the one it runs in: with leader election among its replicas, probes and metrics.
// `twc status` shows the worker deployments (also as `kubectl twc status`, bin/kubectl-twc);
// `twc pause|resume|promote|abort` change a rollout through its spec; `twc dashboard` serves a page.
import { Command, Option } from 'commander';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { collectDefaultMetrics } from 'prom-client';
import { GROUP, KINDS } from '../api/kinds.ts';
import { Controller } from '../controller/controller.ts';
import { externalMetricsHandler } from '../external-metrics/api-server.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { publishLeaderEndpoint } from '../k8s/leader-endpoint.ts';
import { Backoff } from '../runtime/backoff.ts';
import { bearerAccess } from '../runtime/bearer-access.ts';
import {
  healthz,
  metrics as metricsRoute,
  readyz,
  type Route,
  type RunningServer,
  serve,
} from '../runtime/http-server.ts';
import { KubernetesApi } from '../runtime/kube/api-client.ts';
import { type ClusterAccess, defaultClusterAccess, kubeconfigAccess } from '../runtime/kube/cluster-access.ts';
import { LeaderElector, leaseApi } from '../runtime/leader-election.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { Metrics } from '../runtime/metrics.ts';
import { issueAuthority, issueServing } from '../webhook/certificate-issuer.ts';
import { SelfManagedCertificates } from '../webhook/self-managed-certificates.ts';
import {
  OWNED_RESOURCE_WEBHOOK_PATH,
  type RunningWebhook,
  startWebhook,
  WEBHOOK_KUBERNETES_RATE,
} from '../webhook/server.ts';
import { directoryCertificates, type ServingCertificates } from '../webhook/serving-certificates.ts';
import { type BindAddress, commandOptions, type Config, HELP_CONFIGURATION } from './config.ts';
import type { DashboardOptions } from './dashboard-command.ts';
import type { ControlOptions } from './rollout-control-command.ts';
import { type Control, CONTROLS } from './rollout-controls.ts';
import type { StatusOptions } from './status/command.ts';
import { OUTPUTS } from './status/view.ts';

const { version } = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  version: string;
};
const program = new Command('twc')
  .description('Temporal Worker Controller: runs Temporal workers on Kubernetes with Worker Versioning')
  .version(version);

const run = program.command('run').description('run the controller').configureHelp(HELP_CONFIGURATION);
for (const option of commandOptions()) run.addOption(option);
run.action(async (options: Config) => {
  const log = await createLogger({ level: options.logLevel, format: options.logFormat });
  // An error that ends the process is logged like any other line (unhandled rejections become these).
  process.on('uncaughtException', (error) => {
    log.error({ error: error.message, stack: error.stack }, 'exiting on an uncaught error');
    process.exit(1);
  });
  const access = ((): ClusterAccess => {
    try {
      return options.kubeconfig ? kubeconfigAccess({ file: options.kubeconfig }) : defaultClusterAccess();
    } catch (error) {
      return program.error(`error: ${(error as Error).message}`);
    }
  })();
  if (options.leaderElectRenewDeadline >= options.leaderElectLeaseDuration)
    program.error(
      `error: --leader-elect-renew-deadline (${options.leaderElectRenewDeadline / 1000}s) must be shorter than --leader-elect-lease-duration (${options.leaderElectLeaseDuration / 1000}s)`,
    );
  const sameAddress = (a: BindAddress | false, b: BindAddress | false) =>
    a && b && a.port === b.port && (a.host ?? '') === (b.host ?? '');
  if (options.metricsSecure && sameAddress(options.metricsBindAddress, options.healthProbeBindAddress))
    program.error(
      'error: --metrics-secure serves /metrics over HTTPS, which the probes on the same --health-probe-bind-address cannot share: give --metrics-bind-address an address of its own',
    );
  const longestCall = Math.max(options.temporalReadTimeout, options.temporalWriteTimeout);
  if (options.reconcileTimeout <= longestCall)
    program.error(
      `error: --reconcile-timeout (${options.reconcileTimeout / 1000}s) must be longer than --temporal-read-timeout and --temporal-write-timeout (${longestCall / 1000}s)`,
    );
  const metrics = new Metrics();
  // prom-client samples the event loop every 10 ms by default, and every wake of an idle process
  // costs about 0.3 ms of CPU: once a default poll interval keeps the lag percentiles for 6 wakes
  // a minute (0.3 s a minute at 10 ms, 0.02 s at 1 s).
  collectDefaultMetrics({ register: metrics.registry, eventLoopMonitoringPrecision: 10_000 });
  const controller = new Controller({
    access,
    identity: options.identity,
    ...(options.namespace ? { namespaces: options.namespace } : {}),
    pollIntervalMs: options.pollInterval,
    concurrency: options.concurrency,
    maxIneligibleVersions: options.maxIneligibleVersions,
    maxVersionsInDeployment: options.temporalMaxVersionsInDeployment,
    rollbackWindowMs: options.rollbackWindow,
    temporalReadBudget: options.temporalReadBudget,
    temporalTimeouts: { readMs: options.temporalReadTimeout, writeMs: options.temporalWriteTimeout },
    reconcileTimeoutMs: options.reconcileTimeout,
    ...(options.temporalConnectTo ? { temporalConnectTo: options.temporalConnectTo } : {}),
    kubernetesRate: { perSecond: options.kubeApiQps, burst: options.kubeApiBurst },
    backlogMetrics: options.backlogMetrics,
    ...(options.serviceAccount ? { serviceAccount: options.serviceAccount } : {}),
    ownTokenAudiences: options.ownTokenAudiences,
    ...(options.ownedResourcesServiceAccount
      ? { ownedResourcesServiceAccount: options.ownedResourcesServiceAccount }
      : {}),
    metrics,
    log,
  });
  let running = false;
  const run = async (): Promise<void> => {
    await controller.start();
    running = true;
    log.info({ identity: options.identity }, 'controller running');
    process.send?.({ type: 'ready' });
    await advertiseExternalMetrics();
  };
  /** As the leader, the one endpoint of the external metrics Service; retried until written. */
  const advertiseExternalMetrics = async (): Promise<void> => {
    const served = await webhook;
    const address = options.externalMetricsAdvertiseAddress;
    if (!options.backlogMetrics || !served || !address) return;
    const endpoint = {
      namespace: options.webhookNamespace,
      service: options.externalMetricsService,
      address,
      port: served.port,
    };
    const endpointLog = log.child({ service: `${endpoint.namespace}/${endpoint.service}` });
    const api = new KubernetesApi({ access, count: metrics.countKubernetesRequest });
    const backoff = new Backoff<'write'>({ baseMs: 1000, maxMs: 60_000, jitter: 0.2 });
    while (!stopping) {
      try {
        await publishLeaderEndpoint(api, endpoint);
        endpointLog.info(
          { address, port: served.port },
          'this replica is the endpoint of the external metrics Service',
        );
        return;
      } catch (error) {
        const retryInMs = backoff.next('write');
        endpointLog.error(
          { error: errorMessage(error), retryInMs: Math.round(retryInMs) },
          'could not write this replica into the external metrics Service',
        );
        await new Promise((resolve) => setTimeout(resolve, retryInMs));
      }
    }
  };
  const lease = options.leaderElectionId;
  const leaseLog = log.child({ lease: `${options.leaderElectionNamespace}/${lease}` });
  const elector = options.leaderElect
    ? new LeaderElector({
        // Apart from the controller's client: a renewal never waits behind its rate limit.
        api: leaseApi(new KubernetesApi({ access, count: metrics.countKubernetesRequest })),
        namespace: options.leaderElectionNamespace,
        name: lease,
        // The pod name, made unique: a restarted container must not pass for its predecessor.
        identity: `${process.env.POD_NAME ?? hostname()}_${randomBytes(4).toString('hex')}`,
        leaseDurationMs: options.leaderElectLeaseDuration,
        renewDeadlineMs: options.leaderElectRenewDeadline,
        retryPeriodMs: options.leaderElectRetryPeriod,
        onStartedLeading: () => {
          metrics.setLeader(lease, true);
          void run();
        },
        onStoppedLeading: (reason) => {
          metrics.setLeader(lease, false);
          // Another replica may be reconciling already: stop now, and let Kubernetes restart us.
          leaseLog.error(`lost leadership (${reason}); exiting`);
          process.exit(1);
        },
        log: leaseLog,
      })
    : undefined;

  // A standby replica is ready: a rollout must be able to replace the leader with it.
  // Nor is a replica that cannot answer the webhook: the Service would send the API server to it.
  const notReadyBecause = (): string | undefined =>
    options.webhookBindAddress && !webhookServing
      ? 'the webhook has no serving certificate yet'
      : running || (elector && !elector.isLeader)
        ? undefined
        : 'caches not synced yet';
  // Endpoints given the same address share one server.
  const endpoints = new Map<string, { address: BindAddress; routes: Record<string, Route> }>();
  const expose = (address: BindAddress | false, routes: Record<string, Route>): void => {
    if (!address) return;
    const key = `${address.host ?? ''}:${address.port}`;
    endpoints.set(key, { address, routes: { ...endpoints.get(key)?.routes, ...routes } });
  };
  if (!options.metricsSecure) expose(options.metricsBindAddress, { '/metrics': metricsRoute(metrics.registry) });
  expose(options.healthProbeBindAddress, { '/healthz': healthz, '/readyz': readyz(notReadyBecause) });
  const servers = await Promise.all(
    [...endpoints.values()].map(async ({ address, routes }) => {
      const server = await serve(address, routes);
      log.info({ routes: Object.keys(routes), address: `${address.host ?? '*'}:${server.port}` }, 'serving');
      return server;
    }),
  );
  if (options.metricsSecure && options.metricsBindAddress) {
    const address = options.metricsBindAddress;
    const api = new KubernetesApi({ access, count: metrics.countKubernetesRequest, rate: ACCESS_REVIEW_RATE });
    const server = await serveSecureMetrics(address, api, metrics);
    log.info({ routes: ['/metrics'], address: `${address.host ?? '*'}:${server.port}` }, 'serving over HTTPS');
    servers.push(server);
  }
  // Served by every replica, leader or not: the API server calls whichever the Service picks.
  // Not awaited: a certificate that cannot be had yet is retried, and the replica is not ready.
  let stopping = false;
  let webhookServing = false;
  let webhook: Promise<RunningWebhook | undefined> = Promise.resolve(undefined);
  let certificates: ServingCertificates | undefined;
  if (options.webhookBindAddress) {
    const address = options.webhookBindAddress;
    const webhookLog = log.child({ webhook: OWNED_RESOURCE_WEBHOOK_PATH });
    const api = new KubernetesApi({ access, count: metrics.countKubernetesRequest, rate: WEBHOOK_KUBERNETES_RATE });
    certificates = servingCertificates(options, api, metrics, webhookLog);
    webhook = startWebhook({
      bindAddress: address,
      certificates,
      api,
      bannedKinds: options.ownedResourceBannedKinds,
      ...(options.ownedResourcesServiceAccount
        ? { ownedResourcesServiceAccount: options.ownedResourcesServiceAccount }
        : {}),
      log: webhookLog,
      // Answered by the leader only, which holds the figures; a standby says so.
      ...(options.backlogMetrics
        ? {
            alsoServe: externalMetricsHandler({
              api,
              figures: () => (running ? controller.backlogFigures() : undefined),
              log: log.child({ api: 'external.metrics.k8s.io' }),
            }),
          }
        : {}),
    }).then(
      (running) => {
        webhookServing = true;
        webhookLog.info({ address: `${address.host ?? '*'}:${running.port}` }, 'serving the webhook');
        return running;
      },
      (error: unknown) => {
        if (stopping) return undefined;
        webhookLog.error({ error: errorMessage(error) }, 'could not serve the webhook; exiting');
        process.exit(1);
      },
    );
  }

  // Every replica, leader or not: it reads the cluster, not the controller.
  const dashboard = options.dashboardBindAddress
    ? startDashboard(access, options.namespace, options.dashboardBindAddress, log, options.dashboardRequireToken)
    : undefined;

  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    // In-flight reconciles may wait on a cluster or a Temporal that is gone: bound the wait.
    setTimeout(() => process.exit(1), 10_000).unref();
    await controller.stop();
    // Only once reconciling has stopped: the successor takes over at its next try.
    await elector?.stop();
    await certificates?.stop(); // a webhook still waiting for its first certificate gives up
    const webhookServer = await webhook;
    await Promise.all([...servers, ...(webhookServer ? [webhookServer] : [])].map((server) => server.close()));
    await (await dashboard)?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('disconnect', () => void stop());
  if (!elector) return run();
  metrics.setLeader(lease, false);
  leaseLog.info('waiting to lead');
  elector.start();
});

/** The access reviews of scrapes and dashboard readers: each token is reviewed once a minute (see bearer-access.ts), so a few a second is plenty. */
const ACCESS_REVIEW_RATE = { perSecond: 5, burst: 10 };
/** The metrics certificate is made anew at each start; scrapers do not verify it (as with controller-runtime's own). */
const METRICS_CERTIFICATE_LIFETIME_MS = 365 * 24 * 3600_000;

/** /metrics over HTTPS for the bearer tokens the API server allows `get` on it (--metrics-secure). */
async function serveSecureMetrics(address: BindAddress, api: KubernetesApi, metrics: Metrics): Promise<RunningServer> {
  const now = Date.now();
  const authority = await issueAuthority(now, METRICS_CERTIFICATE_LIFETIME_MS);
  const tls = await issueServing(authority, ['localhost', hostname()], now, METRICS_CERTIFICATE_LIFETIME_MS);
  const access = bearerAccess(api, [{ nonResourceAttributes: { path: '/metrics', verb: 'get' } }]);
  return serve(address, { '/metrics': metricsRoute(metrics.registry) }, { tls, access });
}

/** The dashboard's watch and page; a failure to start is logged, and the controller runs on without it. */
async function startDashboard(
  access: ClusterAccess,
  namespaces: readonly string[] | undefined,
  address: BindAddress,
  log: Logger,
  requireToken: boolean,
): Promise<{ close(): Promise<void> } | undefined> {
  // Loaded only when asked for: the watch's module brings the Kubernetes client library.
  const [{ WorkerDeploymentWatch }, { serveDashboard }] = await Promise.all([
    import('./status/watch.ts'),
    import('./dashboard/server.ts'),
  ]);
  const dashboardLog = log.child({ server: 'dashboard' });
  const api = new KubernetesApi({ access });
  const watch = new WorkerDeploymentWatch(api, { namespaces, name: undefined });
  try {
    await watch.start();
    // Whoever may list the worker deployments the dashboard shows may see them there.
    const list = (namespace?: string) => ({
      resourceAttributes: {
        group: GROUP,
        resource: KINDS.TemporalWorkerDeployment.plural,
        verb: 'list',
        ...(namespace ? { namespace } : {}),
      },
    });
    const protection = requireToken
      ? {
          access: bearerAccess(
            new KubernetesApi({ access, rate: ACCESS_REVIEW_RATE }),
            namespaces?.map(list) ?? [list()],
          ),
        }
      : {};
    const served = await serveDashboard(
      watch,
      { ...(address.host ? { address: address.host } : {}), port: address.port },
      protection,
    );
    dashboardLog.info({ url: served.url }, 'serving the dashboard');
    return {
      close: async () => {
        await served.close();
        await watch.stop();
        api.close();
      },
    };
  } catch (error) {
    dashboardLog.error({ error: errorMessage(error) }, 'cannot serve the dashboard');
    await watch.stop();
    api.close();
    return undefined;
  }
}

function servingCertificates(options: Config, api: KubernetesApi, metrics: Metrics, log: Logger): ServingCertificates {
  if (options.webhookCerts === 'cert-dir') return directoryCertificates(options.webhookCertDir, log);
  const services = [options.webhookService, ...(options.backlogMetrics ? [options.externalMetricsService] : [])].map(
    (name) => `${name}.${options.webhookNamespace}.svc`,
  );
  return new SelfManagedCertificates({
    api,
    secret: { namespace: options.webhookNamespace, name: options.webhookCertSecret },
    configuration: options.webhookConfiguration,
    ...(options.backlogMetrics && options.externalMetricsApiService
      ? { apiService: options.externalMetricsApiService }
      : {}),
    hosts: services.flatMap((service) => [service, `${service}.cluster.local`]),
    lifetimeMs: options.webhookCertLifetime,
    log,
    report: metrics.webhookCertificates,
  });
}

program
  .command('status')
  .argument('[name]', 'one worker deployment (default: every one of the namespace)')
  .description(
    "show worker deployments: each build's state, ramp, replicas, gates, analysis and owned resources, the conditions and the newest events",
  )
  .option('-n, --namespace <name>', "the namespace (default: the kubeconfig context's, else default)")
  .option('-A, --all-namespaces', 'every namespace')
  .option('-w, --watch', 'show again at every change, from watches')
  .addOption(new Option('-o, --output <format>', 'for scripts: the same as data').choices(OUTPUTS))
  .option('--kubeconfig <file>', 'the cluster to read (default: as kubectl finds it)')
  .action(async (name: string | undefined, options: StatusOptions) => {
    // Loaded here: `twc run` does without the Kubernetes client library it uses.
    const { showStatus } = await import('./status/command.ts');
    const stop = new AbortController();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
    try {
      await showStatus(
        name,
        options,
        { write: (text) => process.stdout.write(text), isTTY: process.stdout.isTTY },
        stop.signal,
      );
    } catch (error) {
      program.error(`twc status: ${errorMessage(error)}`);
    }
    // Informers and their timers are stopped; the kept-alive sockets need not be waited for.
    process.exit(0);
  });

program
  .command('dashboard')
  .description('serve a read-only web page of the worker deployments, live from the watches')
  .option('-n, --namespace <name>', "the namespace (default: the kubeconfig context's, else default)")
  .option('-A, --all-namespaces', 'every namespace')
  .option('--address <ip>', 'the address to listen on', '127.0.0.1')
  .option('--port <n>', 'the port (0: any free one)', (value) => Number(value), 8090)
  .option('--kubeconfig <file>', 'the cluster to read (default: as kubectl finds it)')
  .action(async (options: DashboardOptions) => {
    const { runDashboard } = await import('./dashboard-command.ts');
    const stop = new AbortController();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
    try {
      await runDashboard(options, (url) => process.stdout.write(`dashboard: ${url}\n`), stop.signal);
    } catch (error) {
      program.error(`twc dashboard: ${errorMessage(error)}`);
    }
    process.exit(0);
  });

const CONTROL_HELP: Record<Control, string> = {
  pause: 'hold a rollout where it is: no change moves new workflows toward the target (spec.rollout.paused)',
  resume: 'go on with a paused rollout',
  promote:
    'promote the target now: the remaining steps go without their pauses, each gate still runs; under Manual, make it current (spec.rollout.promote)',
  abort: "abort the target's rollout: its ramp is cleared until the template names another build (spec.rollout.abort)",
};
for (const control of CONTROLS) {
  const command = program
    .command(control)
    .argument('<name>', 'the worker deployment')
    .description(CONTROL_HELP[control])
    .option('-n, --namespace <name>', "the namespace (default: the kubeconfig context's, else default)")
    .option('--kubeconfig <file>', 'the cluster (default: as kubectl finds it)');
  if (control === 'promote' || control === 'abort')
    command.option('--build <id>', 'the build meant: refused unless it is the target');
  command.action(async (name: string, options: ControlOptions) => {
    const { runRolloutControl } = await import('./rollout-control-command.ts');
    try {
      process.stdout.write(`${await runRolloutControl(control, name, options)}\n`);
    } catch (error) {
      program.error(`twc ${control}: ${errorMessage(error)}`);
    }
  });
}

await program.parseAsync();
