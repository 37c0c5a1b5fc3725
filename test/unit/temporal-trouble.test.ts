import assert from 'node:assert/strict';
import { test } from 'node:test';
import proto from '@temporalio/proto';
import { temporalTrouble } from '../../src/controller/temporal-trouble.ts';
import { Backoff } from '../../src/runtime/backoff.ts';
import { GrpcStatus as status, TemporalCallError } from '../../src/temporal/call-status.ts';
import { TemporalConnectError } from '../../src/temporal/client-pool.ts';

const deps = { pollIntervalMs: 30_000, temporalBackoff: new Backoff<string>({ baseMs: 30_000, maxMs: 300_000 }) };
const refusedKey = new TemporalConnectError('cannot connect to Temporal at t:7233: UNAUTHENTICATED: bad key', {
  status: { code: status.UNAUTHENTICATED, details: 'bad key' },
});
const apiKeyConnection = {
  metadata: { namespace: 'team', name: 'cloud' },
  spec: { hostPort: 't:7233', apiKeySecretRef: { name: 'cloud-key', key: 'apiKey' } },
};

test('refused credentials stall the worker deployment, naming the connection, its Secret and key, and what to do', () => {
  const trouble = temporalTrouble(
    deps,
    'team/orders',
    refusedKey,
    'cannot read Worker Deployment team/orders from t:7233',
    apiKeyConnection,
  );
  assert.equal(trouble?.condition.type, 'Stalled');
  assert.equal(trouble.condition.status, 'True');
  assert.equal(trouble.condition.reason, 'TemporalCredentialsRefused');
  assert.match(
    trouble.condition.message,
    /refused the API key of TemporalConnection team\/cloud \(Secret team\/cloud-key, key apiKey\) \(UNAUTHENTICATED: bad key\): put credentials that this server accepts in the Secret/,
  );
  assert.equal(
    trouble.requeueAfterMs,
    deps.pollIntervalMs,
    'and comes back at the poll interval, in case the server changes',
  );
});

test('a refused client certificate names the mutual TLS Secret; a connection without credentials is told to get some', () => {
  const refusedCertificate = new TemporalConnectError('cannot connect', {
    status: {
      code: status.UNAVAILABLE,
      details: 'ssl3_read_bytes:tlsv13 alert certificate required:rec_layer_s3.c:918',
    },
  });
  const mtls = {
    metadata: { namespace: 'team', name: 'cloud' },
    spec: { hostPort: 't:7233', mutualTLSSecretRef: { name: 'cloud-cert' } },
  };
  assert.match(
    temporalTrouble(deps, 'team/orders', refusedCertificate, 'x', mtls)?.condition.message ?? '',
    /the client certificate of TemporalConnection team\/cloud \(Secret team\/cloud-cert, keys tls.crt and tls.key\) \(the TLS handshake ended with the server's alert "certificate required"\)/,
  );
  const plain = {
    metadata: { namespace: 'team', name: 'cloud' },
    spec: { hostPort: 't:7233', tls: { serverName: 't' } },
  };
  assert.match(
    temporalTrouble(deps, 'team/orders', refusedCertificate, 'x', plain)?.condition.message ?? '',
    /without credentials of TemporalConnection team\/cloud .*: give the TemporalConnection a mutualTLSSecretRef or an apiKeySecretRef/,
  );
});

test('an unreachable server is not a refusal of credentials', () => {
  const unreachable = new TemporalConnectError('cannot connect', {
    status: { code: status.UNAVAILABLE, details: 'connect ECONNREFUSED 127.0.0.1:1' },
  });
  const trouble = temporalTrouble(deps, 'team/orders', unreachable, 'x', apiKeyConnection);
  assert.deepEqual(
    [trouble?.condition.type, trouble?.condition.status, trouble?.condition.reason],
    ['Progressing', 'False', 'TemporalUnreachable'],
  );
});

test('a rate limit comes back after a growing delay; a busy Worker Deployment workflow at the poll interval', () => {
  const backoff = new Backoff<string>({ baseMs: 10_000, maxMs: 300_000 });
  const local = { pollIntervalMs: 10_000, temporalBackoff: backoff };
  const exhausted = (cause: number) => {
    const failure = proto.temporal.api.errordetails.v1.ResourceExhaustedFailure.encode({ cause }).finish();
    const details = [
      { type_url: 'type.googleapis.com/temporal.api.errordetails.v1.ResourceExhaustedFailure', value: failure },
    ];
    return new TemporalCallError('DescribeWorkerDeployment', {
      code: status.RESOURCE_EXHAUSTED,
      details: 'the words',
      statusDetails: Buffer.from(proto.google.rpc.Status.encode({ code: status.RESOURCE_EXHAUSTED, details }).finish()),
    });
  };
  const { ResourceExhaustedCause: Cause } = proto.temporal.api.enums.v1;
  const limited = () =>
    temporalTrouble(local, 'team/orders', exhausted(Cause.RESOURCE_EXHAUSTED_CAUSE_RPS_LIMIT), 'x', apiKeyConnection);
  const delays = [limited(), limited(), limited()].map((t) => t?.requeueAfterMs ?? 0);
  assert.ok(delays[0]! < delays[1]! && delays[1]! < delays[2]!, `growing: ${delays.join(', ')}`);
  for (let i = 0; i < 3; i++) {
    const busy = temporalTrouble(
      local,
      'team/orders',
      exhausted(Cause.RESOURCE_EXHAUSTED_CAUSE_BUSY_WORKFLOW),
      'x',
      apiKeyConnection,
    );
    assert.deepEqual(
      [busy?.condition.reason, busy?.requeueAfterMs],
      ['TemporalBusy', local.pollIntervalMs],
      'no growing delay',
    );
  }
});

test('a call past its timeout says which call and which timeout, and comes back after a growing delay', () => {
  const backoff = new Backoff<string>({ baseMs: 10_000, maxMs: 300_000 });
  const local = { pollIntervalMs: 10_000, temporalBackoff: backoff };
  const timedOut = new TemporalCallError('DescribeWorkerDeployment', {
    code: status.DEADLINE_EXCEEDED,
    details: 'no answer within 10s, the timeout of a read',
  });
  const troubles = [1, 2, 3].map(() =>
    temporalTrouble(
      local,
      'team/orders',
      timedOut,
      'cannot read Worker Deployment team/orders from t:7233',
      apiKeyConnection,
    ),
  );
  assert.deepEqual(
    [troubles[0]?.condition.type, troubles[0]?.condition.status, troubles[0]?.condition.reason],
    ['Progressing', 'False', 'TemporalUnreachable'],
  );
  assert.equal(
    troubles[0]?.condition.message,
    'cannot read Worker Deployment team/orders from t:7233: DescribeWorkerDeployment: DEADLINE_EXCEEDED: no answer within 10s, the timeout of a read',
  );
  const delays = troubles.map((t) => t?.requeueAfterMs ?? 0);
  assert.ok(delays[0]! < delays[1]! && delays[1]! < delays[2]!, `growing: ${delays.join(', ')}`);
});
