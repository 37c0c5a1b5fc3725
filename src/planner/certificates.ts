// What a worker deployment says of the certificates of its connection's Secrets: the connection's
// verdict (status/certificates.ts), its messages naming the connection, remembered in the worker
// deployment's own status. A warning stops nothing, and neither does an expired certificate: the
// planner decides as it would without them, as Temporal itself refuses what it no longer accepts
// (TemporalCredentialsRefused), and workers that cannot connect register nothing. Pure.
import { DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS } from '../api/defaults.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { ReadCertificate } from '../domain/certificates.ts';
import { connectionLabel } from '../domain/connection-ref.ts';
import { CERTIFICATE_EXPIRED, type CertificateVerdict, judgeCertificates } from '../status/certificates.ts';

export function workerDeploymentCertificates(
  workerDeployment: TemporalWorkerDeployment,
  connection: TemporalConnection,
  certificates: readonly ReadCertificate[],
  now: Date,
  /** --certificate-expiry-warning (default: DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS). */
  warningMs: number | undefined,
): CertificateVerdict {
  const { namespace, name } = connection.metadata;
  const verdict = judgeCertificates(
    certificates,
    workerDeployment.status?.certificates,
    now,
    warningMs ?? DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS,
    `${connectionLabel(namespace, name)}: `,
  );
  // A worker deployment's stall is a Warning event of its own already, in the same words.
  return { ...verdict, events: verdict.events.filter((e) => e.reason !== CERTIFICATE_EXPIRED) };
}
