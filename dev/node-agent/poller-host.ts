// Hosts Pods whose worker only polls (SAMPLE_BEHAVIOUR=poll-only, or poll-only-for-<n>s for its
// first n seconds only): a loop of versioned workflow task polls per Pod, sharing a few gRPC
// connections, with no workflow code and no Core worker. Temporal sees such a Pod as a worker of its
// build (it registers the build, lists its task queue and counts it among the pollers), so a
// thousand worker deployments fit in one process. It answers no task: whatever it is given times
// out and goes to the next worker.
import { Connection, isGrpcServiceError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { clientConnectionOptions } from '../../packages/worker/src/index.ts';
import type { SampleWorkerConfig } from '../sample-worker/config.ts';
import { GrpcStatus } from '../../src/temporal/call-status.ts';
import type { HostedWorker } from './worker-host.ts';

/** SAMPLE_BEHAVIOUR of a Pod the poller host runs. */
export const POLL_ONLY = 'poll-only';

/**
 * SAMPLE_BEHAVIOUR of a Pod the poller host runs that polls for this many seconds after it starts,
 * then never again while it runs and stays Ready: a worker whose pollers stopped (or a process that
 * hangs), which Kubernetes cannot tell from a working one.
 */
export function pollOnlyFor(seconds: number): string {
  return `${POLL_ONLY}-for-${seconds}s`;
}

/** Whether the poller host runs a Pod of this SAMPLE_BEHAVIOUR, and for how long it polls (Infinity: as long as it runs). */
export function pollingWindowMs(behaviour: string): number | undefined {
  if (behaviour === POLL_ONLY) return Infinity;
  const seconds = /^poll-only-for-(\d+)s$/.exec(behaviour)?.[1];
  return seconds === undefined ? undefined : Number(seconds) * 1000;
}

/** Polls one connection carries: HTTP/2 servers may cap concurrent streams at 100. */
const POLLS_PER_CONNECTION = 100;
/** Temporal answers an idle long poll after about a minute; a call hung longer than this is retried. */
const POLL_DEADLINE_MS = 90_000;
const BACKOFF_MAX_MS = 10_000;

/** Answers that polling again cannot change: the worker dies, as a real one would. */
const FATAL = new Set<number>([
  GrpcStatus.INVALID_ARGUMENT,
  GrpcStatus.NOT_FOUND,
  GrpcStatus.PERMISSION_DENIED,
  GrpcStatus.UNAUTHENTICATED,
  GrpcStatus.UNIMPLEMENTED,
]);

interface PooledConnection {
  connection: Promise<Connection>;
  polls: number;
}

export class PollerHost {
  private readonly connections = new Map<string, PooledConnection[]>();

  /** Resolves once its connection is up, its first poll started. */
  async start(config: SampleWorkerConfig, identity: string): Promise<HostedWorker> {
    const pooled = this.connectionFor(config);
    pooled.polls++;
    const stopped = new AbortController();
    let connection: Connection;
    try {
      connection = await pooled.connection;
    } catch (error) {
      pooled.polls--;
      throw error;
    }
    const request = {
      namespace: config.namespace,
      taskQueue: { name: config.taskQueue, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      identity,
      deploymentOptions: {
        deploymentName: config.deploymentName,
        buildId: config.buildId,
        workerVersioningMode: proto.temporal.api.enums.v1.WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED,
      },
    };
    const window = pollingWindowMs(config.behaviour) ?? Infinity;
    const polling = Number.isFinite(window)
      ? AbortSignal.any([stopped.signal, AbortSignal.timeout(window)])
      : stopped.signal;
    const done = this.poll(connection, request, polling)
      .finally(() => pooled.polls--)
      // Past its window it polls no more, but runs (and stays Ready) until stopped.
      .then(() => untilAborted(stopped.signal));
    return {
      done,
      stop: async () => {
        stopped.abort();
        await done.catch(() => {});
      },
    };
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()].flat();
    this.connections.clear();
    await Promise.all(all.map(async (c) => (await c.connection.catch(() => undefined))?.close()));
  }

  private async poll(
    connection: Connection,
    request: proto.temporal.api.workflowservice.v1.IPollWorkflowTaskQueueRequest,
    signal: AbortSignal,
  ): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        // A task it is given is left unanswered: it times out and goes to another worker.
        await connection.withAbortSignal(signal, () =>
          connection.withDeadline(Date.now() + POLL_DEADLINE_MS, () =>
            connection.workflowService.pollWorkflowTaskQueue(request),
          ),
        );
        failures = 0;
      } catch (error) {
        if (signal.aborted) return;
        if (isGrpcServiceError(error) && FATAL.has(error.code)) throw error;
        await sleepFor(Math.min(500 * 2 ** failures++, BACKOFF_MAX_MS), undefined, { signal }).catch(() => {});
      }
    }
  }

  private connectionFor(config: SampleWorkerConfig): PooledConnection {
    const options = clientConnectionOptions(config);
    const key = JSON.stringify(options);
    const pool = this.connections.get(key) ?? [];
    this.connections.set(key, pool);
    const free = pool.find((c) => c.polls < POLLS_PER_CONNECTION);
    if (free) return free;
    const pooled: PooledConnection = { connection: Connection.connect(options), polls: 0 };
    // A failed connect must not stay in the pool: the next Pod tries again.
    void pooled.connection.catch(() => pool.splice(pool.indexOf(pooled), 1));
    pool.push(pooled);
    return pooled;
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return signal.aborted
    ? Promise.resolve()
    : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
