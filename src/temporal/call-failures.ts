// What a failed Temporal call says about Temporal itself rather than about the request: that it
// is over a rate limit, or out of reach. Either passes with time: the reconcile reports it and
// comes back later, having deleted and scaled down nothing on the strength of it.
import { type Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { TemporalConnectError } from './client-pool.ts';

const { ResourceExhaustedCause } = proto.temporal.api.enums.v1;

export type TemporalTrouble = 'TemporalRateLimited' | 'TemporalUnreachable';

/** Undefined when the error is about the request (a refusal, a missing object...). */
export function troubleOf(error: unknown): TemporalTrouble | undefined {
  if (error instanceof TemporalConnectError) return 'TemporalUnreachable';
  if (!isGrpcServiceError(error)) return undefined;
  switch (error.code) {
    case GrpcStatus.RESOURCE_EXHAUSTED:
      // The cap of versions per deployment is refused with the same code: no wait lifts it.
      return resourceExhaustedCause(error.metadata) === ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_WORKER_DEPLOYMENT_LIMITS ? undefined : 'TemporalRateLimited';
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 'TemporalUnreachable';
    default:
      return undefined;
  }
}

/** The cause Temporal puts in the status details of a RESOURCE_EXHAUSTED answer, if any. */
function resourceExhaustedCause(metadata: Metadata | undefined): number | undefined {
  const bytes = metadata?.get('grpc-status-details-bin')[0];
  if (!(bytes instanceof Buffer)) return undefined;
  try {
    const details = proto.google.rpc.Status.decode(bytes).details ?? [];
    const failure = details.find((d) => d.type_url?.endsWith('/temporal.api.errordetails.v1.ResourceExhaustedFailure'));
    return failure?.value ? proto.temporal.api.errordetails.v1.ResourceExhaustedFailure.decode(failure.value).cause : undefined;
  } catch {
    return undefined;
  }
}
