import assert from 'node:assert/strict';
import { test } from 'node:test';
import proto from '@temporalio/proto';
import { credentialsRefusal, troubleOf } from '../../src/temporal/call-failures.ts';
import { GrpcStatus as status, statusName, TemporalCallError } from '../../src/temporal/call-status.ts';
import { TemporalConnectError } from '../../src/temporal/client-pool.ts';

const { ResourceExhaustedCause } = proto.temporal.api.enums.v1;

/** A failed call as the channel rejects it, with Temporal's failure details when a cause is given. */
function grpcError(code: status, details: string, cause?: number): Error {
  let statusDetails: Buffer | undefined;
  if (cause !== undefined) {
    const failure = proto.temporal.api.errordetails.v1.ResourceExhaustedFailure.encode({ cause }).finish();
    const any = {
      type_url: 'type.googleapis.com/temporal.api.errordetails.v1.ResourceExhaustedFailure',
      value: failure,
    };
    statusDetails = Buffer.from(proto.google.rpc.Status.encode({ code, message: details, details: [any] }).finish());
  }
  return new TemporalCallError('DescribeWorkerDeployment', {
    code,
    details,
    ...(statusDetails ? { statusDetails } : {}),
  });
}

test('RESOURCE_EXHAUSTED is a rate limit, unless its cause is the cap of versions per deployment or a busy workflow', () => {
  assert.equal(
    troubleOf(
      grpcError(
        status.RESOURCE_EXHAUSTED,
        'namespace rate limit exceeded',
        ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_RPS_LIMIT,
      ),
    ),
    'TemporalRateLimited',
  );
  assert.equal(
    troubleOf(grpcError(status.RESOURCE_EXHAUSTED, 'busy')),
    'TemporalRateLimited',
    'no details: taken for a rate limit',
  );
  assert.equal(
    troubleOf(
      grpcError(
        status.RESOURCE_EXHAUSTED,
        'too many versions',
        ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_WORKER_DEPLOYMENT_LIMITS,
      ),
    ),
    undefined,
  );
  assert.equal(
    troubleOf(
      grpcError(
        status.RESOURCE_EXHAUSTED,
        'consistent query buffer is full, this may be caused by too many queries and workflow not able to process query fast enough',
        ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_BUSY_WORKFLOW,
      ),
    ),
    'TemporalBusy',
  );
});

test('no answer, a deadline or a failed connection is unreachable; other answers are about the request', () => {
  assert.equal(troubleOf(grpcError(status.UNAVAILABLE, 'No connection established')), 'TemporalUnreachable');
  assert.equal(troubleOf(grpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded')), 'TemporalUnreachable');
  assert.equal(troubleOf(new TemporalConnectError('cannot connect to Temporal at t:7233: ...')), 'TemporalUnreachable');
  assert.equal(troubleOf(grpcError(status.FAILED_PRECONDITION, 'conflict token mismatch')), undefined);
  assert.equal(troubleOf(new Error('something else')), undefined);
});

// CERTIFICATE_REQUIRED and CLOSED are what grpc-js reported here against a TLS server requiring client certificates, given
// none and an untrusted one; BAD_CERTIFICATE is alert 42 (a Go server's answer to an untrusted one) in OpenSSL's words.
const CERTIFICATE_REQUIRED =
  'No connection established. Last error: 40CDEB04807F0000:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 116\n (2026-11-23T06:06:53.082Z). Resolution note: ';
const BAD_CERTIFICATE =
  'No connection established. Last error: ssl3_read_bytes:sslv3 alert bad certificate:SSL alert number 42';
const CLOSED = 'No connection established. Last error: Failed to connect (2026-11-23T06:06:53.071Z). Resolution note: ';

test('a refused API key or client certificate is refused credentials, distinct from an unreachable server', () => {
  assert.equal(
    troubleOf(grpcError(status.UNAUTHENTICATED, 'the proxy refused the API key')),
    'TemporalCredentialsRefused',
  );
  assert.equal(troubleOf(grpcError(status.PERMISSION_DENIED, 'Request unauthorized.')), 'TemporalCredentialsRefused');
  const connectError = (code: status, details: string) =>
    new TemporalConnectError(`cannot connect to Temporal at t:7233: ${statusName(code)}: ${details}`, {
      status: { code, details },
    });
  assert.equal(
    troubleOf(connectError(status.UNAUTHENTICATED, 'the proxy refused the API key')),
    'TemporalCredentialsRefused',
  );
  assert.equal(troubleOf(connectError(status.UNAVAILABLE, CERTIFICATE_REQUIRED)), 'TemporalCredentialsRefused');
  assert.equal(troubleOf(connectError(status.UNAVAILABLE, BAD_CERTIFICATE)), 'TemporalCredentialsRefused');
  assert.equal(
    troubleOf(grpcError(status.UNAVAILABLE, BAD_CERTIFICATE)),
    'TemporalCredentialsRefused',
    'an established client refused when it reconnects',
  );
  // A connection closed without an alert says nothing of the certificate.
  assert.equal(troubleOf(connectError(status.UNAVAILABLE, CLOSED)), 'TemporalUnreachable');
  assert.equal(
    troubleOf(connectError(status.UNAVAILABLE, "Hostname/IP does not match certificate's altnames")),
    'TemporalUnreachable',
    'the controller refusing the server is not the server refusing the controller',
  );
});

test('the words of a refusal do not change from one attempt to the next', () => {
  assert.equal(
    credentialsRefusal(grpcError(status.UNAUTHENTICATED, 'the proxy refused the API key')),
    'UNAUTHENTICATED: the proxy refused the API key',
  );
  const handshake = (details: string) =>
    credentialsRefusal(new TemporalConnectError('cannot connect', { status: { code: status.UNAVAILABLE, details } }));
  assert.equal(
    handshake(CERTIFICATE_REQUIRED),
    'the TLS handshake ended with the server\'s alert "certificate required"',
  );
  assert.equal(
    handshake(CERTIFICATE_REQUIRED.replace('40CDEB04807F0000', '7F00AA').replace('06:06:53', '06:07:10')),
    handshake(CERTIFICATE_REQUIRED),
  );
  assert.equal(handshake(CLOSED), undefined);
});
