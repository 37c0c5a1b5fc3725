// `twc`: the controller's command line. `twc run` runs the controller against the cluster of a
// kubeconfig, or the one it runs in: with leader election among its replicas, probes and metrics.
import { CoordinationV1Api, KubeConfig } from '@kubernetes/client-node';
import { Command, InvalidArgumentError } from 'commander';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { collectDefaultMetrics } from 'prom-client';
import { durationSeconds, DURATION } from '../api/schema.ts';
import { Controller } from '../controller/controller.ts';
import {
  healthz,
  metrics as metricsRoute,
  parseBindAddress,
  readyz,
  type Route,
  serve,
} from '../runtime/http-server.ts';
import { LeaderElector } from '../runtime/leader-election.ts';
import { Metrics } from '../runtime/metrics.ts';
import { DEFAULT_READS_PER_SECOND } from '../temporal/read-budget.ts';

function duration(value: string): number {
  if (!new RegExp(DURATION).test(value))
    throw new InvalidArgumentError(`"${value}" is not a duration such as 10s or 1m`);
  return durationSeconds(value) * 1000;
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

type BindAddress = ReturnType<typeof parseBindAddress>;

function bindAddress(value: string): BindAddress {
  try {
    return parseBindAddress(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function boolean(value: string): boolean {
  if (value !== 'true' && value !== 'false') throw new InvalidArgumentError(`"${value}" is not true or false`);
  return value === 'true';
}

/** Where the Lease goes by default: the controller's own namespace when it runs in a cluster. */
function ownNamespace(): string {
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim();
  } catch {
    return 'default';
  }
}

const program = new Command('twc').description(
  'Temporal Worker Controller: runs Temporal workers on Kubernetes with Worker Versioning',
);

program
  .command('run')
  .description('run the controller')
  .option(
    '--kubeconfig <file>',
    'kubeconfig to use; default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account',
  )
  .option(
    '--identity <name>',
    'manager identity claimed in Temporal; unique per installation (env TWC_IDENTITY)',
    process.env.TWC_IDENTITY ?? `temporal-worker-controller/${process.env.POD_NAMESPACE ?? hostname()}`,
  )
  .option(
    '--namespace <name>',
    'watch only this namespace (env TWC_NAMESPACE); default: all',
    process.env.TWC_NAMESPACE,
  )
  .option(
    '--poll-interval <duration>',
    'how often Temporal is asked about what events cannot tell, such as drainage (env TWC_POLL_INTERVAL)',
    duration,
    duration(process.env.TWC_POLL_INTERVAL ?? '10s'),
  )
  .option(
    '--concurrency <n>',
    'worker deployments reconciled at once (env TWC_CONCURRENCY)',
    positive,
    positive(process.env.TWC_CONCURRENCY ?? '4'),
  )
  .option(
    '--max-ineligible-versions <n>',
    'stop creating builds while this many are not yet drained and scaled down (env TWC_MAX_INELIGIBLE_VERSIONS)',
    positive,
    positive(process.env.TWC_MAX_INELIGIBLE_VERSIONS ?? '75'),
  )
  .option(
    '--temporal-max-versions-in-deployment <n>',
    "the Temporal server's cap of versions per deployment (its matching.maxVersionsInDeployment): only at this count does the controller delete a drained build's record to make room for a new build (env TWC_TEMPORAL_MAX_VERSIONS_IN_DEPLOYMENT)",
    positive,
    positive(process.env.TWC_TEMPORAL_MAX_VERSIONS_IN_DEPLOYMENT ?? '100'),
  )
  .option(
    '--rollback-window <duration>',
    'a build current this recently is promoted at once when it is the target again, without steps or gates (env TWC_ROLLBACK_WINDOW)',
    duration,
    duration(process.env.TWC_ROLLBACK_WINDOW ?? '1h'),
  )
  .option(
    '--temporal-read-budget <reads per second>',
    "reads of each Temporal namespace per second, shared by all worker deployments; keep it under the server's limit (env TWC_TEMPORAL_READ_BUDGET)",
    rate,
    rate(process.env.TWC_TEMPORAL_READ_BUDGET ?? String(DEFAULT_READS_PER_SECOND)),
  )
  .option(
    '--metrics-bind-address <address>',
    'where /metrics is served, e.g. :8080 or 127.0.0.1:8080; 0 disables (env TWC_METRICS_BIND_ADDRESS)',
    bindAddress,
    bindAddress(process.env.TWC_METRICS_BIND_ADDRESS ?? ':8080'),
  )
  .option(
    '--health-probe-bind-address <address>',
    'where /healthz and /readyz are served; 0 disables (env TWC_HEALTH_PROBE_BIND_ADDRESS)',
    bindAddress,
    bindAddress(process.env.TWC_HEALTH_PROBE_BIND_ADDRESS ?? ':8081'),
  )
  .option(
    '--leader-elect',
    'reconcile only while holding the Lease, so that one replica of several works (env TWC_LEADER_ELECT)',
    boolean(process.env.TWC_LEADER_ELECT ?? 'true'),
  )
  .option('--no-leader-elect', 'reconcile without leader election: only one replica may run')
  .option(
    '--leader-election-namespace <name>',
    "namespace of the Lease (env TWC_LEADER_ELECTION_NAMESPACE); default: POD_NAMESPACE, the in-cluster service account's namespace, or default",
    process.env.TWC_LEADER_ELECTION_NAMESPACE ?? ownNamespace(),
  )
  .option(
    '--leader-election-id <name>',
    'name of the Lease (env TWC_LEADER_ELECTION_ID)',
    process.env.TWC_LEADER_ELECTION_ID ?? 'temporal-worker-controller',
  )
  .action(
    async (options: {
      kubeconfig?: string;
      identity: string;
      namespace?: string;
      pollInterval: number;
      concurrency: number;
      maxIneligibleVersions: number;
      temporalMaxVersionsInDeployment: number;
      rollbackWindow: number;
      temporalReadBudget: number;
      metricsBindAddress: BindAddress;
      healthProbeBindAddress: BindAddress;
      leaderElect: boolean;
      leaderElectionNamespace: string;
      leaderElectionId: string;
    }) => {
      const log = (message: string): void => console.error(JSON.stringify({ time: new Date().toISOString(), message }));
      const kubeconfig = new KubeConfig();
      if (options.kubeconfig) kubeconfig.loadFromFile(options.kubeconfig);
      else kubeconfig.loadFromDefault();
      const metrics = new Metrics();
      // prom-client samples the event loop every 10 ms by default: most of an idle controller's CPU.
      collectDefaultMetrics({ register: metrics.registry, eventLoopMonitoringPrecision: 1000 });
      const controller = new Controller({
        kubeconfig,
        identity: options.identity,
        ...(options.namespace ? { namespace: options.namespace } : {}),
        pollIntervalMs: options.pollInterval,
        concurrency: options.concurrency,
        maxIneligibleVersions: options.maxIneligibleVersions,
        maxVersionsInDeployment: options.temporalMaxVersionsInDeployment,
        rollbackWindowMs: options.rollbackWindow,
        temporalReadBudget: options.temporalReadBudget,
        metrics,
        log,
      });
      let running = false;
      const run = async (): Promise<void> => {
        await controller.start();
        running = true;
        log(`controller running as ${options.identity}`);
        process.send?.({ type: 'ready' });
      };
      const lease = options.leaderElectionId;
      const elector = options.leaderElect
        ? new LeaderElector({
            api: metrics.kubeconfig(kubeconfig).makeApiClient(CoordinationV1Api),
            namespace: options.leaderElectionNamespace,
            name: lease,
            // The pod name, made unique: a restarted container must not pass for its predecessor.
            identity: `${process.env.POD_NAME ?? hostname()}_${randomBytes(4).toString('hex')}`,
            onStartedLeading: () => {
              metrics.setLeader(lease, true);
              void run();
            },
            onStoppedLeading: (reason) => {
              metrics.setLeader(lease, false);
              // Another replica may be reconciling already: stop now, and let Kubernetes restart us.
              log(`lost leadership (${reason}); exiting`);
              process.exit(1);
            },
            log,
          })
        : undefined;

      // A standby replica is ready: a rollout must be able to replace the leader with it.
      const notReadyBecause = (): string | undefined =>
        running || (elector && !elector.isLeader) ? undefined : 'caches not synced yet';
      // Endpoints given the same address share one server.
      const endpoints = new Map<string, { address: NonNullable<BindAddress>; routes: Record<string, Route> }>();
      const expose = (address: BindAddress, routes: Record<string, Route>): void => {
        if (!address) return;
        const key = `${address.host ?? ''}:${address.port}`;
        endpoints.set(key, { address, routes: { ...endpoints.get(key)?.routes, ...routes } });
      };
      expose(options.metricsBindAddress, { '/metrics': metricsRoute(metrics.registry) });
      expose(options.healthProbeBindAddress, { '/healthz': healthz, '/readyz': readyz(notReadyBecause) });
      const servers = await Promise.all(
        [...endpoints.values()].map(async ({ address, routes }) => {
          const server = await serve(address, routes);
          log(`serving ${Object.keys(routes).join(', ')} on ${address.host ?? '*'}:${server.port}`);
          return server;
        }),
      );

      let stopping = false;
      const stop = async (): Promise<void> => {
        if (stopping) return;
        stopping = true;
        // In-flight reconciles may wait on a cluster or a Temporal that is gone: bound the wait.
        setTimeout(() => process.exit(1), 10_000).unref();
        await controller.stop();
        // Only once reconciling has stopped: the successor takes over at its next try.
        await elector?.stop();
        await Promise.all(servers.map((server) => server.close()));
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop());
      process.on('SIGINT', () => void stop());
      process.on('disconnect', () => void stop());
      if (!elector) return run();
      metrics.setLeader(lease, false);
      log(`waiting to lead: lease ${options.leaderElectionNamespace}/${lease}`);
      elector.start();
    },
  );

await program.parseAsync();
