import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporalTrouble } from '../../src/controller/temporal-trouble.ts';
import { Backoff } from '../../src/runtime/backoff.ts';
import { GrpcStatus as status } from '../../src/temporal/call-status.ts';
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
