// Runs the reconcile a queue key names (see watches.ts): a worker deployment's, a connection's
// check, or an owned resource's copies. Each runs with a logger of its own, which also says why it
// failed (the queue then retries it with backoff), and with dependencies that stop at its
// deadline (`signal`).
import { KINDS } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import { connectionKindOf } from '../domain/connection-ref.ts';
import { isBeingDeleted } from '../domain/finalizer.ts';
import { Backoff } from '../runtime/backoff.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Priority, ReconcileResult, WorkQueueOptions } from '../runtime/work-queue.ts';
import { CallTally } from '../temporal/call-tally.ts';
import { certificateSources, readCertificates } from '../temporal/certificates.ts';
import { lookupSecrets, missingSecret, workerSecrets } from '../temporal/credentials.ts';
import type { Caches } from './caches.ts';
import { checkConnection } from './connection-check.ts';
import { releaseConnection } from './connection-release.ts';
import type { ReconcilerDependencies, SharedDependencies } from './dependencies.ts';
import { reconcileOwnedResource } from './owned-resource-release.ts';
import { fencedBy } from './reconcile-deadline.ts';
import { reconcile } from './reconciler.ts';
import type { RolloutCosts } from './rollout-costs.ts';
import type { ReadCredit } from '../temporal/read-budget.ts';
import type { CallOptions, TemporalAccess } from './temporal-access.ts';
import { keyOf } from './watches.ts';

export interface DispatchOptions {
  caches: Caches;
  temporal: TemporalAccess;
  dependencies: SharedDependencies;
  log: Logger;
  /** Where each worker deployment's reconciles add up what its rollout costs; default: not counted. */
  rollouts?: RolloutCosts;
}

export function reconcileByKey({
  caches,
  temporal,
  dependencies,
  log,
  rollouts,
}: DispatchOptions): WorkQueueOptions<string>['reconcile'] {
  let reconciles = 0;
  const connectionBackoff = new Backoff<string>({ baseMs: 5_000, maxMs: 300_000, jitter: 0.2 });
  const logged = async <T extends ReconcileResult | void>(
    kind: string,
    namespace: string,
    name: string,
    signal: AbortSignal,
    run: (deps: ReconcilerDependencies) => Promise<T>,
    access: CallOptions = {},
  ): Promise<T> => {
    const child = log.child({ kind, object: `${namespace}/${name}`, reconcile: ++reconciles });
    try {
      const deps = fencedBy(
        {
          ...dependencies,
          log: child,
          temporal: (connection, address) => temporal.client(connection, address, signal, access),
        },
        signal,
      );
      const result = await run(deps);
      child.debug(result ? { requeueAfterMs: result.requeueAfterMs } : {}, 'reconciled');
      return result;
    } catch (error) {
      child.error({ error: errorMessage(error) }, 'reconcile failed');
      throw error;
    }
  };
  /**
   * How long a reconcile that only polls waits for its Temporal namespace's read budget, or the
   * token it takes now for its first read (none without a connection: it reads nothing).
   */
  const pollTurn = (namespace: string, name: string): number | ReadCredit => {
    const twd = caches.workerDeployments.get(namespace, name);
    const connection = twd && caches.connections.usedBy(twd);
    return connection
      ? temporal.reads.pollTurn(
          connection.spec.hostPort,
          twd.spec.workerOptions.temporalNamespace,
          dependencies.pollIntervalMs,
        )
      : 0;
  };
  const connect = async (connection: TemporalConnection) => {
    await temporal.connected(connection);
    // The workers' own Secrets: the controller connects without them, their Pods could not start.
    const uses = workerSecrets(connection);
    const found = await lookupSecrets(uses, (namespace, secret) => caches.secrets.get(namespace, secret));
    const missing = missingSecret(connection, uses, found);
    if (missing) throw missing;
  };
  const certificates = async (connection: TemporalConnection) => {
    const sources = certificateSources(connection);
    return readCertificates(
      sources,
      await lookupSecrets(sources, (namespace, secret) => caches.secrets.get(namespace, secret)),
    );
  };
  /** A worker deployment's reconcile, its Temporal calls and waits added to its rollout's. */
  const counted = async (
    namespace: string,
    name: string,
    signal: AbortSignal,
    waitedMs: number,
    priority: Priority,
    credit: ReadCredit | undefined,
  ) => {
    // A change's reconcile leaves the drainage records to routine looks: what it reads goes first.
    const access = { change: priority !== 'low', ...(credit ? { credit } : {}) };
    if (!rollouts)
      return logged(
        KINDS.TemporalWorkerDeployment.kind,
        namespace,
        name,
        signal,
        (deps) => reconcile(deps, namespace, name),
        access,
      );
    const tally = new CallTally();
    let again = true;
    try {
      const result = await logged(
        KINDS.TemporalWorkerDeployment.kind,
        namespace,
        name,
        signal,
        (deps) => reconcile(deps, namespace, name),
        { ...access, tally },
      );
      again = result?.requeueAfterMs === 0;
      return result;
    } finally {
      const { calls, tokenWaitMs, slotWaitMs, callMs } = tally;
      rollouts.reconciled(
        `${namespace}/${name}`,
        dependencies.workerDeployment(namespace, name)?.status,
        { calls, queueMs: waitedMs, tokenWaitMs, slotWaitMs, callMs },
        again,
      );
    }
  };
  return async (key, priority, signal, waitedMs) => {
    const { kind, namespace, name } = keyOf(key);
    if (kind === 'ownedResource') {
      const twor = caches.ownedResources.get(namespace, name);
      if (!twor) return undefined;
      const exists = caches.workerDeployments.get(namespace, twor.spec.workerRef.name) !== undefined;
      await logged(KINDS.TemporalWorkerOwnedResource.kind, namespace, name, signal, (deps) =>
        reconcileOwnedResource(deps, twor, exists),
      );
      return undefined;
    }
    if (kind === 'workerDeployment') {
      // A change, or what falls due, reads first; a routine look waits for a free read, and takes it.
      const turn = priority !== 'low' ? 0 : pollTurn(namespace, name);
      if (typeof turn === 'number' && turn > 0) return { requeueAfterMs: turn };
      return counted(namespace, name, signal, waitedMs, priority, typeof turn === 'number' ? undefined : turn);
    }
    const object = caches.connections.get(namespace, name);
    if (!object) return undefined;
    return logged(connectionKindOf(namespace), namespace, name, signal, async (deps) => {
      await releaseConnection(deps, object);
      if (isBeingDeleted(object)) return undefined;
      return checkConnection({ ...deps, connect, certificates, backoff: connectionBackoff }, object);
    });
  };
}
