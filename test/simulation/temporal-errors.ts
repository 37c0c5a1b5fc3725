// The errors Temporal answers with, built as the real channel builds them (a gRPC status, and for
// RESOURCE_EXHAUSTED the cause in the status details), so that the controller's own reading of
// them (src/temporal/call-failures.ts) decides what they mean.
import { GrpcStatus, TemporalCallError } from '../../src/temporal/call-status.ts';
import { enums, messages } from '../../src/temporal/protocol.ts';

const { ResourceExhaustedCause } = enums;

export type ExhaustedCause = 'rps' | 'busy' | 'concurrentBatches';

const CAUSES: Record<ExhaustedCause, number> = {
  rps: ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_RPS_LIMIT,
  busy: ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_BUSY_WORKFLOW,
  concurrentBatches: ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_CONCURRENT_LIMIT,
};

export function exhausted(method: string, cause: ExhaustedCause): TemporalCallError {
  const details = `simulated: ${cause}`;
  const failure = messages.ResourceExhaustedFailure.encode({ cause: CAUSES[cause] }).finish();
  const statusDetails = Buffer.from(
    messages.Status.encode({
      code: GrpcStatus.RESOURCE_EXHAUSTED,
      message: details,
      details: [
        { type_url: 'type.googleapis.com/temporal.api.errordetails.v1.ResourceExhaustedFailure', value: failure },
      ],
    }).finish(),
  );
  return new TemporalCallError(method, { code: GrpcStatus.RESOURCE_EXHAUSTED, details, statusDetails });
}
