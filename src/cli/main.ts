// `twc`: the controller's command line. `twc run` runs the controller against the cluster of a
// kubeconfig, or the one it runs in: with leader election among its replicas, probes and metrics.
// `twc status` shows the worker deployments (also as `kubectl twc status`, bin/kubectl-twc);
// `twc pause|resume|promote|abort` change a rollout through its spec; `twc dashboard` serves a page.
import { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { collectDefaultMetrics } from 'prom-client';
import { Controller } from '../controller/controller.ts';
import type { ExternalMetricsOptions } from '../external-metrics/api-server.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { type ClusterAccess, defaultClusterAccess, kubeconfigAccess } from '../runtime/kube/cluster-access.ts';
import { createLogger } from '../runtime/logger.ts';
import { Metrics } from '../runtime/metrics.ts';
import { commandOptions, type Config, HELP_CONFIGURATION } from './config.ts';
import type { DashboardOptions } from './dashboard-command.ts';
import type { ControlOptions, MoveOptions } from './rollout-control-command.ts';
import { type Control, CONTROLS } from './rollout-controls.ts';
import { startDashboard } from './run/dashboard.ts';
import { serveEndpoints } from './run/endpoints.ts';
import { advertiseExternalMetrics } from './run/external-metrics-endpoint.ts';
import { leadership } from './run/leadership.ts';
import { controllerOptions, settingsConflict } from './run/settings.ts';
import { type ServedWebhook, serveWebhook } from './run/webhook.ts';
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
  const conflict = settingsConflict(options);
  if (conflict) program.error(`error: ${conflict}`);
  const metrics = new Metrics();
  // prom-client samples the event loop every 10 ms by default, and every wake of an idle process
  // costs about 0.3 ms of CPU: once a default poll interval keeps the lag percentiles for 6 wakes
  // a minute (0.3 s a minute at 10 ms, 0.02 s at 1 s).
  collectDefaultMetrics({ register: metrics.registry, eventLoopMonitoringPrecision: 10_000 });
  const context = { options, access, metrics, log };
  const controller = new Controller(controllerOptions(context));
  let running = false;
  let stopping = false;
  let webhook: ServedWebhook | undefined;
  const run = async (): Promise<void> => {
    await controller.start();
    running = true;
    log.info({ identity: options.identity }, 'controller running');
    process.send?.({ type: 'ready' });
    const served = await webhook?.running;
    if (options.backlogMetrics && served) await advertiseExternalMetrics(context, served.port, () => stopping);
  };
  const leader = options.leaderElect ? leadership(context, () => void run()) : undefined;

  // A standby replica is ready: a rollout must be able to replace the leader with it.
  // Nor is a replica that cannot answer the webhook: the Service would send the API server to it.
  const notReadyBecause = (): string | undefined =>
    options.webhookBindAddress && !webhook?.serving()
      ? 'the webhook has no serving certificate yet'
      : running || (leader && !leader.isLeader)
        ? undefined
        : 'caches not synced yet';
  const servers = await serveEndpoints(context, notReadyBecause);
  const figures: ExternalMetricsOptions['figures'] = (asked) =>
    running ? controller.backlogFigures(asked) : undefined;
  if (options.webhookBindAddress) webhook = serveWebhook(context, options.webhookBindAddress, figures, () => stopping);
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
    await leader?.stop();
    await webhook?.certificates.stop(); // a webhook still waiting for its first certificate gives up
    const webhookServer = await webhook?.running;
    await Promise.all([...servers, ...(webhookServer ? [webhookServer] : [])].map((server) => server.close()));
    await (await dashboard)?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('disconnect', () => void stop());
  if (!leader) return run();
  leader.start();
});

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

program
  .command('move')
  .argument('<name>', 'the worker deployment')
  .description(
    "move the pinned workflows of a build that the current build's code replays onto the current build, and name the rest (spec.sunset.pinnedWorkflows.moveFrom): for an old build, or the target of an aborted rollout",
  )
  .requiredOption('--from <id>', 'the build whose pinned workflows move')
  .option('--to <id>', 'the build they move onto: refused unless it is the current build')
  .option('-n, --namespace <name>', "the namespace (default: the kubeconfig context's, else default)")
  .option('--kubeconfig <file>', 'the cluster (default: as kubectl finds it)')
  .action(async (name: string, options: MoveOptions) => {
    const { runMove } = await import('./rollout-control-command.ts');
    try {
      process.stdout.write(`${await runMove(name, options)}\n`);
    } catch (error) {
      program.error(`twc move: ${errorMessage(error)}`);
    }
  });

await program.parseAsync();
