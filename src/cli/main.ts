// `twc`: the controller's command line. `twc run` runs the controller against the cluster of a
// kubeconfig, or the one it runs in.
import { KubeConfig } from '@kubernetes/client-node';
import { Command, InvalidArgumentError } from 'commander';
import { hostname } from 'node:os';
import { durationSeconds, DURATION } from '../api/schema.ts';
import { Controller } from '../controller/controller.ts';

function duration(value: string): number {
  if (!new RegExp(DURATION).test(value)) throw new InvalidArgumentError(`"${value}" is not a duration such as 10s or 1m`);
  return durationSeconds(value) * 1000;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive whole number`);
  return n;
}

const program = new Command('twc').description('Temporal Worker Controller: runs Temporal workers on Kubernetes with Worker Versioning');

program
  .command('run')
  .description('run the controller')
  .option('--kubeconfig <file>', 'kubeconfig to use; default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account')
  .option('--identity <name>', 'manager identity claimed in Temporal; unique per installation (env TWC_IDENTITY)', process.env.TWC_IDENTITY ?? `temporal-worker-controller/${process.env.POD_NAMESPACE ?? hostname()}`)
  .option('--namespace <name>', 'watch only this namespace (env TWC_NAMESPACE); default: all', process.env.TWC_NAMESPACE)
  .option('--poll-interval <duration>', 'how often Temporal is asked about what events cannot tell, such as drainage (env TWC_POLL_INTERVAL)', duration, duration(process.env.TWC_POLL_INTERVAL ?? '10s'))
  .option('--concurrency <n>', 'worker deployments reconciled at once (env TWC_CONCURRENCY)', positive, positive(process.env.TWC_CONCURRENCY ?? '4'))
  .option('--max-ineligible-versions <n>', 'stop creating builds while this many are not yet drained and scaled down (env TWC_MAX_INELIGIBLE_VERSIONS)', positive, positive(process.env.TWC_MAX_INELIGIBLE_VERSIONS ?? '75'))
  .action(async (options: { kubeconfig?: string; identity: string; namespace?: string; pollInterval: number; concurrency: number; maxIneligibleVersions: number }) => {
    const kubeconfig = new KubeConfig();
    if (options.kubeconfig) kubeconfig.loadFromFile(options.kubeconfig);
    else kubeconfig.loadFromDefault();
    const controller = new Controller({
      kubeconfig,
      identity: options.identity,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      pollIntervalMs: options.pollInterval,
      concurrency: options.concurrency,
      maxIneligibleVersions: options.maxIneligibleVersions,
      log: (message) => console.error(JSON.stringify({ time: new Date().toISOString(), message })),
    });
    let stopping = false;
    const stop = async (): Promise<void> => {
      if (stopping) return;
      stopping = true;
      // In-flight reconciles may wait on a cluster or a Temporal that is gone: bound the wait.
      setTimeout(() => process.exit(1), 10_000).unref();
      await controller.stop();
      process.exit(0);
    };
    process.on('SIGTERM', () => void stop());
    process.on('SIGINT', () => void stop());
    process.on('disconnect', () => void stop());
    await controller.start();
    console.error(JSON.stringify({ time: new Date().toISOString(), message: `controller running as ${options.identity}` }));
    process.send?.({ type: 'ready' });
  });

await program.parseAsync();
