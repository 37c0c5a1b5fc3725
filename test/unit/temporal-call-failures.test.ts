import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Metadata, status } from '@grpc/grpc-js';
import proto from '@temporalio/proto';
import { troubleOf } from '../../src/temporal/call-failures.ts';
import { TemporalConnectError } from '../../src/temporal/client-pool.ts';

const { ResourceExhaustedCause } = proto.temporal.api.enums.v1;

/** A gRPC failure as grpc-js rejects a call with it, with Temporal's failure details when a cause is given. */
function grpcError(code: status, details: string, cause?: number): Error {
  const metadata = new Metadata();
  if (cause !== undefined) {
    const failure = proto.temporal.api.errordetails.v1.ResourceExhaustedFailure.encode({ cause }).finish();
    const any = { type_url: 'type.googleapis.com/temporal.api.errordetails.v1.ResourceExhaustedFailure', value: failure };
    metadata.set('grpc-status-details-bin', Buffer.from(proto.google.rpc.Status.encode({ code, message: details, details: [any] }).finish()));
  }
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata });
}

test('RESOURCE_EXHAUSTED is a rate limit, unless its cause is the cap of versions per deployment', () => {
  assert.equal(troubleOf(grpcError(status.RESOURCE_EXHAUSTED, 'namespace rate limit exceeded', ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_RPS_LIMIT)), 'TemporalRateLimited');
  assert.equal(troubleOf(grpcError(status.RESOURCE_EXHAUSTED, 'busy')), 'TemporalRateLimited', 'no details: taken for a rate limit');
  assert.equal(troubleOf(grpcError(status.RESOURCE_EXHAUSTED, 'too many versions', ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_WORKER_DEPLOYMENT_LIMITS)), undefined);
});

test('no answer, a deadline or a failed connection is unreachable; other answers are about the request', () => {
  assert.equal(troubleOf(grpcError(status.UNAVAILABLE, 'No connection established')), 'TemporalUnreachable');
  assert.equal(troubleOf(grpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded')), 'TemporalUnreachable');
  assert.equal(troubleOf(new TemporalConnectError('cannot connect to Temporal at t:7233: ...')), 'TemporalUnreachable');
  assert.equal(troubleOf(grpcError(status.FAILED_PRECONDITION, 'conflict token mismatch')), undefined);
  assert.equal(troubleOf(grpcError(status.PERMISSION_DENIED, 'no')), undefined);
  assert.equal(troubleOf(new Error('something else')), undefined);
});
