// Hosts many sample workers in one process: one workflow bundle for all of them (one per variant
// of the workflow code, for the builds that change it) and one
// connection per Temporal address, so a Pod costs a worker, not a process and a bundle.
import { NativeConnection, type Worker, type WorkflowBundle } from '@temporalio/worker';
import { followApiKeyFile, nativeConnectionOptions } from '../../packages/worker/src/index.ts';
import type { SampleWorkerConfig } from '../sample-worker/config.ts';
import { bundleSampleWorkflows, createSampleWorker, workflowsPathOf } from '../sample-worker/worker.ts';

export interface HostedWorker {
  /** Settles when the worker stops: resolves on a requested stop, rejects when it dies. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

interface PooledConnection {
  connection: Promise<NativeConnection>;
  /** Stops following the file of a renewed token. */
  unfollow?: () => void;
  /** Core refuses two workers of one namespace, task queue and build on one connection. */
  workers: Set<string>;
}

export class WorkerHost {
  private readonly connections = new Map<string, PooledConnection[]>();
  private readonly bundles = new Map<string, Promise<WorkflowBundle>>();

  /** Bundles the workflow code now rather than on the first Pod. */
  async prepare(): Promise<void> {
    await this.workflowBundle();
  }

  /** Resolves once the worker is polling. */
  async start(config: SampleWorkerConfig, identity: string): Promise<HostedWorker> {
    const slot = `${config.namespace}|${config.taskQueue}|${config.deploymentName}|${config.buildId}`;
    const pooled = this.connectionFor(config, slot);
    pooled.workers.add(slot);
    try {
      const worker = await createSampleWorker(
        config,
        {
          connection: await pooled.connection,
          workflowBundle: await this.workflowBundle(workflowsPathOf(config.behaviour)),
        },
        identity,
        {
          inMainThread: true,
        },
      );
      const done = worker.run().finally(() => pooled.workers.delete(slot));
      await waitForState(worker, 'RUNNING', done);
      return {
        done,
        stop: async () => {
          if (worker.getState() === 'RUNNING') worker.shutdown();
          await done.catch(() => {});
        },
      };
    } catch (error) {
      pooled.workers.delete(slot);
      throw error;
    }
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()].flat();
    this.connections.clear();
    await Promise.all(
      all.map(async (c) => {
        c.unfollow?.();
        await (await c.connection.catch(() => undefined))?.close();
      }),
    );
  }

  private workflowBundle(path = workflowsPathOf('')): Promise<WorkflowBundle> {
    const bundle = this.bundles.get(path) ?? bundleSampleWorkflows(path);
    this.bundles.set(path, bundle);
    return bundle;
  }

  private connectionFor(config: SampleWorkerConfig, slot: string): PooledConnection {
    const options = nativeConnectionOptions(config);
    const key = JSON.stringify(options);
    const pool = this.connections.get(key) ?? [];
    this.connections.set(key, pool);
    const free = pool.find((c) => !c.workers.has(slot));
    if (free) return free;
    const pooled: PooledConnection = {
      connection: NativeConnection.connect(options),
      workers: new Set(),
    };
    // A Pod's projected token is its own (bound to the Pod): its key is unique, and so its connection.
    const keyPath = config.apiKeyPath;
    if (keyPath)
      void pooled.connection.then((connection) => {
        pooled.unfollow = followApiKeyFile(connection, keyPath, config.apiKey ?? '', (error) =>
          console.error(`reading ${keyPath}: ${String(error)}`),
        );
      });
    // A failed connect must not stay in the pool: the next worker tries again.
    void pooled.connection.catch(() => pool.splice(pool.indexOf(pooled), 1));
    pool.push(pooled);
    return pooled;
  }
}

async function waitForState(worker: Worker, state: 'RUNNING', done: Promise<void>): Promise<void> {
  let ended: { error: unknown } | undefined;
  void done.then(
    () => (ended = { error: undefined }),
    (error: unknown) => (ended = { error }),
  );
  while (worker.getState() !== state) {
    if (ended) throw new Error(`worker stopped before it was ${state}`, { cause: ended.error });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
