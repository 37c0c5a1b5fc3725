import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, type NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import {
  clientConnectionOptions,
  replayCheckActivities,
  replayGateActivities,
  type ReplayGateOptions,
  versionedWorkerOptions,
} from '../../packages/worker/src/index.ts';
import { createActivities } from './activities.ts';
import { type SampleWorkerConfig, WORKFLOWS_ONLY } from './config.ts';

export const workflowsPath = new URL('./workflows.ts', import.meta.url).pathname;

/** Builds whose workflows changed incompatibly, of either versioning behaviour: the replay gate's cases. */
const VARIANTS: Record<string, string> = {
  'auto-upgrade-breaking': new URL('./workflow-variants/auto-upgrade-breaking.ts', import.meta.url).pathname,
  'pinned-breaking': new URL('./workflow-variants/pinned-breaking.ts', import.meta.url).pathname,
};

/** The workflow code a build of this behaviour runs. */
export function workflowsPathOf(behaviour: string): string {
  return VARIANTS[behaviour] ?? workflowsPath;
}

export async function bundleSampleWorkflows(path = workflowsPath): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath: path, logger: quietBundlerLogger });
}

export interface SharedResources {
  connection: NativeConnection;
  workflowBundle: WorkflowBundle;
}

export interface HostingOptions {
  /**
   * Run workflow code on the main thread instead of a worker thread of its own. The SDK calls
   * this debug mode and drops the workflow deadlock timer; a host of many workers gains a
   * V8 isolate less per worker (measured: 3.5x less memory, 3.7x faster start).
   */
  inMainThread: boolean;
}

/**
 * A versioned worker of the sample: one build of one Worker Deployment. Pollers are kept few,
 * because one process may host dozens of these against the same server.
 */
export function createSampleWorker(
  config: SampleWorkerConfig,
  shared: SharedResources,
  identity: string,
  hosting: HostingOptions,
): Promise<Worker> {
  const checks: ReplayGateOptions = {
    namespace: config.namespace,
    deploymentName: config.deploymentName,
    buildId: config.buildId,
    client: async () =>
      new Client({
        connection: await Connection.connect(clientConnectionOptions(config)),
        namespace: config.namespace,
      }),
    workflowBundle: () => Promise.resolve(shared.workflowBundle),
  };
  return Worker.create({
    connection: shared.connection,
    workflowBundle: shared.workflowBundle,
    identity,
    // A worker with no activities polls no activity task queue: what some real workers are.
    activities: config.behaviour.startsWith(WORKFLOWS_ONLY)
      ? {}
      : {
          ...createActivities({
            deploymentName: config.deploymentName,
            buildId: config.buildId,
            behaviour: config.behaviour,
            identity,
          }),
          ...replayGateActivities(checks),
          ...replayCheckActivities(checks),
        },
    ...versionedWorkerOptions(config),
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 },
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 1 },
    maxCachedWorkflows: 20,
    shutdownGraceTime: '1s',
    debugMode: hosting.inMainThread,
  });
}

const quietBundlerLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ''),
};
