// One versioned worker from the injected environment, for the life of its container: connected
// with the credentials the controller mounts, its API key followed as it is renewed, restarted on
// fresh TLS files when they are rotated, drained on SIGTERM, with the activities of the replay gate
// and of the replay check.
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  NativeConnection,
  Worker,
  type WorkerOptions,
  type WorkflowBundle,
} from '@temporalio/worker';
import { followApiKeyFile } from './api-key-file.ts';
import { clientConnectionOptions, nativeConnectionOptions } from './connection.ts';
import { readWorkerEnvironment, type WorkerEnvironment } from './environment.ts';
import { watchFiles } from './file-watch.ts';
import { replayCheckActivities } from './replay-check.ts';
import { replayGateActivities, type ReplayGateOptions } from './replay-gate.ts';

export type VersioningBehavior = 'PINNED' | 'AUTO_UPGRADE';

export interface RunWorkerOptions {
  /** This build's workflow code, for the SDK's bundler; or `workflowBundle`, bundled before. */
  workflowsPath?: string;
  workflowBundle?: WorkflowBundle;
  activities?: object;
  /** For workflows that do not say (default PINNED: a workflow finishes on the build it started on). */
  defaultVersioningBehavior?: VersioningBehavior;
  /**
   * How long in-flight tasks may finish after SIGTERM, in milliseconds (default 25 s: within
   * Kubernetes' default terminationGracePeriodSeconds of 30; raise both together).
   */
  shutdownGraceTimeMs?: number;
  /** Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Any other option of the SDK's Worker. */
  workerOptions?: Partial<WorkerOptions>;
  /** How often the API key and TLS files are read again (default 2 s). */
  filesCheckIntervalMs?: number;
  log?: (message: string) => void;
}

/** Where the worker belongs in Temporal, and its versioning, as the environment says. */
export function versionedWorkerOptions(
  environment: WorkerEnvironment,
  defaultVersioningBehavior: VersioningBehavior = 'PINNED',
): Pick<WorkerOptions, 'namespace' | 'taskQueue' | 'workerDeploymentOptions'> {
  return {
    namespace: environment.namespace,
    taskQueue: environment.taskQueue,
    workerDeploymentOptions: {
      version: { deploymentName: environment.deploymentName, buildId: environment.buildId },
      useWorkerVersioning: true,
      defaultVersioningBehavior,
    },
  };
}

/** Resolves when the worker has stopped for good (SIGTERM, SIGINT, or its shutdown). */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const log = options.log ?? ((message: string) => console.error(message));
  const workflowBundle =
    options.workflowBundle ??
    (await bundleWorkflowCode({
      workflowsPath: options.workflowsPath ?? failNoWorkflows(),
    }));
  for (;;) {
    // Read afresh each time: a restart is for files that changed.
    const environment = readWorkerEnvironment(options.env);
    const connection = await NativeConnection.connect(nativeConnectionOptions(environment));
    const unfollow = environment.apiKeyPath
      ? followApiKeyFile(
          connection,
          environment.apiKeyPath,
          environment.apiKey ?? '',
          (error) => log(`reading ${environment.apiKeyPath}: ${String(error)}`),
          options.filesCheckIntervalMs,
        )
      : () => {};
    const checks: ReplayGateOptions = {
      namespace: environment.namespace,
      deploymentName: environment.deploymentName,
      buildId: environment.buildId,
      client: async () =>
        new Client({
          connection: await Connection.connect(clientConnectionOptions(environment)),
          namespace: environment.namespace,
        }),
      workflowBundle: () => Promise.resolve(workflowBundle),
    };
    const worker = await Worker.create({
      connection,
      workflowBundle,
      activities: {
        ...replayGateActivities(checks),
        ...replayCheckActivities(checks),
        ...options.activities,
      },
      ...versionedWorkerOptions(environment, options.defaultVersioningBehavior),
      shutdownGraceTime: options.shutdownGraceTimeMs ?? 25_000,
      ...options.workerOptions,
    });
    let rotated = false;
    const unwatch = watchFiles(
      environment.tlsFiles,
      () => {
        rotated = true;
        log('TLS files changed: the worker drains and starts again with them');
        worker.shutdown();
      },
      options.filesCheckIntervalMs,
    );
    try {
      await worker.run();
    } finally {
      unwatch();
      unfollow();
      await connection.close();
    }
    if (!rotated) return;
  }
}

function failNoWorkflows(): never {
  throw new TypeError('runWorker needs workflowsPath or workflowBundle');
}
