// What a failed Temporal call says about Temporal itself rather than about the request: that it
// is over a rate limit, busy, out of reach, or refusing the controller's credentials. The first
// three pass with time; the last needs a human. In every case the reconcile reports it and comes back later,
// having deleted and scaled down nothing on the strength of it.
import type { TemporalTrouble } from '../domain/read-failure.ts';
import { GrpcStatus, statusName, TemporalCallError } from './call-status.ts';
import { TemporalConnectError } from './client-pool.ts';
import { enums, messages } from './protocol.ts';

const { ResourceExhaustedCause } = enums;

/** Undefined when the error is about the request (a refused change, a missing object...). */
export function troubleOf(error: unknown): TemporalTrouble | undefined {
  if (credentialsRefusal(error) !== undefined) return 'TemporalCredentialsRefused';
  if (isConcurrentBatchLimit(error)) return undefined;
  if (error instanceof TemporalConnectError) return 'TemporalUnreachable';
  if (!(error instanceof TemporalCallError)) return undefined;
  switch (error.code) {
    case GrpcStatus.RESOURCE_EXHAUSTED:
      switch (resourceExhaustedCause(error.statusDetails)) {
        // The cap of versions per deployment is refused with the same code: no wait lifts it.
        case ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_WORKER_DEPLOYMENT_LIMITS:
          return undefined;
        // One workflow (the Worker Deployment's own) cannot take a query now, as for a while after
        // a server restart: no limit of the namespace, so nothing to back off from.
        case ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_BUSY_WORKFLOW:
          return 'TemporalBusy';
        default:
          return 'TemporalRateLimited';
      }
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 'TemporalUnreachable';
    default:
      return undefined;
  }
}

/** The namespace already runs as many batch operations as the server allows: no backoff lifts that, a batch ending does. */
export function isConcurrentBatchLimit(error: unknown): boolean {
  return (
    error instanceof TemporalCallError &&
    error.code === GrpcStatus.RESOURCE_EXHAUSTED &&
    resourceExhaustedCause(error.statusDetails) === ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_CONCURRENT_LIMIT
  );
}

/**
 * How the server refused the controller's credentials, in words that do not change from one
 * attempt to the next; undefined when it did not. A refused API key (or one without the
 * permission) comes as UNAUTHENTICATED or PERMISSION_DENIED. A refused client certificate, or a
 * missing one, ends the TLS handshake with an alert, which gRPC reports as UNAVAILABLE with
 * OpenSSL's words. A server that closes the connection without an alert (Node.js's TLS server
 * does this for a certificate of an unknown CA) cannot be told from a network failure, and is
 * left to count as unreachable.
 */
export function credentialsRefusal(error: unknown): string | undefined {
  const status =
    error instanceof TemporalConnectError ? error.status : error instanceof TemporalCallError ? error : undefined;
  if (!status) return undefined;
  if (status.code === GrpcStatus.UNAUTHENTICATED || status.code === GrpcStatus.PERMISSION_DENIED)
    return `${statusName(status.code)}: ${status.details}`;
  const alert =
    status.code === GrpcStatus.UNAVAILABLE ? REFUSED_CERTIFICATE_ALERT.exec(status.details)?.[1] : undefined;
  return alert === undefined ? undefined : `the TLS handshake ended with the server's alert "${alert}"`;
}

/** The TLS alerts by which a server refuses the client's certificate, as OpenSSL words them ("sslv3 alert bad certificate"). */
const REFUSED_CERTIFICATE_ALERT =
  /alert (bad certificate|unsupported certificate|certificate revoked|certificate expired|certificate unknown|unknown ca|access denied|certificate required)/;

/** The cause Temporal puts in the status details of a RESOURCE_EXHAUSTED answer, if any. */
function resourceExhaustedCause(bytes: Buffer | undefined): number | undefined {
  const failure = detailOf(bytes, 'ResourceExhaustedFailure');
  try {
    return failure?.value ? messages.ResourceExhaustedFailure.decode(failure.value).cause : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a NOT_FOUND answer says is missing, by the failure Temporal puts in its status details: the
 * namespace (NamespaceNotFoundFailure) or what the call named (NotFoundFailure); undefined when
 * it carries neither (an older server, a proxy that drops the details).
 */
export function missingOf(error: unknown): 'namespace' | 'named' | undefined {
  if (!(error instanceof TemporalCallError) || error.code !== GrpcStatus.NOT_FOUND) return undefined;
  if (detailOf(error.statusDetails, 'NamespaceNotFoundFailure')) return 'namespace';
  if (detailOf(error.statusDetails, 'NotFoundFailure')) return 'named';
  return undefined;
}

/** The detail of a google.rpc.Status that is Temporal's failure `type`, if the status has one. */
function detailOf(bytes: Buffer | undefined, type: string) {
  if (!bytes) return undefined;
  try {
    const details = messages.Status.decode(bytes).details ?? [];
    return details.find((d) => d.type_url?.endsWith(`/temporal.api.errordetails.v1.${type}`));
  } catch {
    return undefined;
  }
}
