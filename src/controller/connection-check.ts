// Whether the controller can reach Temporal through a TemporalConnection (and its workers find
// their Secrets), checked when the connection or its Secrets change and again with backoff while
// it cannot, and said in the connection's conditions (READY in `kubectl get tconn`) and in a
// Warning event; and when the certificates of its Secrets expire (CertificateExpiring, a Warning
// event when one's state changes, a gauge of each), looked at again when what is said of them next
// changes. Nothing else waits on it: a worker deployment reports the same in its own status.
import { DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS } from '../api/defaults.ts';
import { API_VERSION } from '../api/kinds.ts';
import type { ReadCertificate } from '../domain/certificates.ts';
import { connectionKindOf } from '../domain/connection-ref.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { ClusterClient } from '../k8s/cluster-client.ts';
import type { Backoff } from '../runtime/backoff.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import { judgeCertificates } from '../status/certificates.ts';
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
  /** The certificates the controller and the workers read from the connection's Secrets, as cached. */
  certificates(connection: TemporalConnection): Promise<ReadCertificate[]>;
  /** See Metrics.setConnectionCertificates; absent where nothing is measured. */
  setConnectionCertificates?(namespace: string, name: string, certificates: readonly ReadCertificate[]): void;
  /** Default: DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS. */
  certificateExpiryWarningMs?: number;
}

/** The longest wait for the next look at certificates: a timer of Node.js longer than 24.8 days fires at once. */
const MAX_CERTIFICATE_WAIT_MS = 86_400_000;

export async function checkConnection(
  deps: ConnectionCheckDependencies,
  connection: TemporalConnection,
): Promise<ReconcileResult> {
  const { namespace = '', name = '' } = connection.metadata;
  const key = `${namespace}/${name}`;
  const check = await attempt(deps, connection, key);
  const certificates = await deps.certificates(connection);
  deps.setConnectionCertificates?.(namespace, name, certificates);
  const now = deps.now();
  const verdict = judgeCertificates(
    certificates,
    connection.status?.certificates,
    now,
    deps.certificateExpiryWarningMs ?? DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS,
  );
  const said = [...connectionConditions(connection.spec.hostPort, check), ...verdict.conditions];
  const status = nextStatus(connection, said, now, verdict.records.length > 0 ? { certificates: verdict.records } : {});
  if (status) {
    const about = { apiVersion: API_VERSION, kind: connectionKindOf(namespace), metadata: connection.metadata };
    if (!check.reached)
      await deps.recordEvent(about, { type: 'Warning', reason: check.reason, message: check.message });
    // Each change of a certificate's state once: the status remembers the states said.
    for (const event of verdict.events) await deps.recordEvent(about, { type: 'Warning', ...event });
    // A conflict means the connection changed since the cache was read: its event brings this back.
    await deps.cluster.replaceConnectionStatus({ ...connection, status });
  }
  const certificatesChange = verdict.nextChangeAt
    ? Math.min(Math.max(verdict.nextChangeAt.getTime() - now.getTime(), 0), MAX_CERTIFICATE_WAIT_MS)
    : undefined;
  // Also after a refusal: a key or certificate may be accepted later without changing here.
  const retry = check.reached ? undefined : deps.backoff.next(key);
  const waits = [retry, certificatesChange].filter((ms) => ms !== undefined);
  return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
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
