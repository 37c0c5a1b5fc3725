// Whether the controller can reach Temporal through a TemporalConnection (and its workers find
// their Secrets), checked when the connection or its Secrets change and again with backoff while
// it cannot, and said in the connection's conditions (READY in `kubectl get tconn`) and in a
// Warning event. Nothing else waits on it: a worker deployment reports the same trouble in its own
// status.
import { API_VERSION } from '../api/kinds.ts';
import { connectionKindOf } from '../domain/connection-ref.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { ClusterClient } from '../k8s/cluster-client.ts';
import type { Backoff } from '../runtime/backoff.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import { type ConnectionCheck, connectionConditions } from '../status/connection.ts';
import { nextStatus } from '../status/conditions.ts';
import { credentialsRefusal } from '../temporal/call-failures.ts';
import { TemporalConnectError } from '../temporal/client-pool.ts';
import { CredentialsError } from '../temporal/credentials.ts';
import type { RecordEvent } from './events.ts';

export interface ConnectionCheckDependencies {
  cluster: ClusterClient;
  /**
   * Connects with the connection's address and Secrets; rejects with CredentialsError (also for a
   * Secret only the workers read) or TemporalConnectError.
   */
  connect(connection: TemporalConnection): Promise<void>;
  recordEvent: RecordEvent;
  now(): Date;
  /** Per `namespace/name` of the connection. */
  backoff: Backoff<string>;
}

export async function checkConnection(
  deps: ConnectionCheckDependencies,
  connection: TemporalConnection,
): Promise<ReconcileResult> {
  const key = `${connection.metadata.namespace ?? ''}/${connection.metadata.name ?? ''}`;
  const check = await attempt(deps, connection, key);
  const status = nextStatus(connection, connectionConditions(connection.spec.hostPort, check), deps.now(), {});
  if (status) {
    if (!check.reached)
      await deps.recordEvent(
        {
          apiVersion: API_VERSION,
          kind: connectionKindOf(connection.metadata.namespace),
          metadata: connection.metadata,
        },
        { type: 'Warning', reason: check.reason, message: check.message },
      );
    // A conflict means the connection changed since the cache was read: its event brings this back.
    await deps.cluster.replaceConnectionStatus({ ...connection, status });
  }
  if (check.reached) return undefined;
  // Also after a refusal: a key or certificate may be accepted later without changing here.
  return { requeueAfterMs: deps.backoff.next(key) };
}

async function attempt(
  deps: ConnectionCheckDependencies,
  connection: TemporalConnection,
  key: string,
): Promise<ConnectionCheck> {
  try {
    await deps.connect(connection);
    deps.backoff.reset(key);
    return { reached: true };
  } catch (error) {
    if (error instanceof CredentialsError) return { reached: false, reason: error.reason, message: error.message };
    const refusal = credentialsRefusal(error);
    const hostPort = connection.spec.hostPort;
    if (refusal !== undefined)
      return {
        reached: false,
        reason: 'TemporalCredentialsRefused',
        message: `Temporal at ${hostPort} refused the controller's credentials: ${refusal}`,
      };
    if (error instanceof TemporalConnectError)
      return { reached: false, reason: 'TemporalUnreachable', message: error.message };
    throw error;
  }
}
