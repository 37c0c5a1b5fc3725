// What a failed observation says: the exact condition for each kind of failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import { readFailureCondition } from '../../src/status/read-failures.ts';

const connection = (spec: Partial<TemporalConnection['spec']> = {}): TemporalConnection => ({
  apiVersion: 'temporal.io/v1alpha1',
  kind: 'TemporalConnection',
  metadata: { name: 'temporal', namespace: 'shop' },
  spec: { hostPort: 'temporal:7233', ...spec },
});

test('an invalid spec and a missing connection are stalls that name the field or the object', () => {
  assert.deepEqual(
    readFailureCondition({
      kind: 'InvalidSpec',
      errors: [
        { field: 'spec.replicas', message: 'must be >= 0' },
        { field: 'spec.rollout', message: 'steps must grow' },
      ],
    }),
    {
      type: 'Stalled',
      status: 'True',
      reason: 'InvalidSpec',
      message:
        'spec.replicas: must be >= 0; spec.rollout: steps must grow; the running builds are left as they are until the spec is fixed',
    },
  );
  assert.deepEqual(readFailureCondition({ kind: 'ConnectionNotFound', namespace: 'shop', name: 'prod' }), {
    type: 'Stalled',
    status: 'True',
    reason: 'ConnectionNotFound',
    message: 'TemporalConnection shop/prod does not exist: create it or fix spec.workerOptions.connectionRef',
  });
  assert.equal(
    readFailureCondition({ kind: 'ConnectionNotFound', namespace: '', name: 'shared' })?.message,
    'TemporalClusterConnection shared does not exist: create it or fix spec.workerOptions.connectionRef',
  );
  assert.match(
    readFailureCondition({ kind: 'ConnectionNotFound', namespace: '', name: 'shared', unwatched: true })?.message ?? '',
    /^TemporalClusterConnection shared is not read by this controller, which is installed for some namespaces only .*use a TemporalConnection/,
  );
  assert.deepEqual(
    readFailureCondition({
      kind: 'ConnectionCredentials',
      reason: 'SecretNotFound',
      connection: connection(),
      message: 'Secret shop/certs does not exist',
    }),
    {
      type: 'Stalled',
      status: 'True',
      reason: 'SecretNotFound',
      message: 'TemporalConnection shop/temporal: Secret shop/certs does not exist',
    },
  );
  assert.deepEqual(readFailureCondition({ kind: 'TemporalNamespaceNotFound', what: 'cannot read X', detail: 'gone' }), {
    type: 'Stalled',
    status: 'True',
    reason: 'TemporalNamespaceNotFound',
    message: 'cannot read X: gone',
  });
});

test("Temporal's troubles: passing ones are Progressing=False, refused credentials a stall naming the Secret and its keys", () => {
  const base = { kind: 'Temporal' as const, what: 'cannot read X', detail: 'the words', connection: connection() };
  assert.deepEqual(readFailureCondition({ ...base, trouble: 'TemporalUnreachable' }), {
    type: 'Progressing',
    status: 'False',
    reason: 'TemporalUnreachable',
    message: 'cannot read X: the words',
  });
  assert.equal(
    readFailureCondition({ ...base, trouble: 'TemporalRateLimited' }).message,
    'cannot read X: the words; Temporal is rate limiting the controller, which tries again after a growing delay and scales down and deletes nothing meanwhile',
  );
  const mtls = readFailureCondition({
    ...base,
    trouble: 'TemporalCredentialsRefused',
    refusal: 'UNAUTHENTICATED: no',
    connection: connection({ mutualTLSSecretRef: { name: 'certs' } }),
  });
  assert.deepEqual(mtls, {
    type: 'Stalled',
    status: 'True',
    reason: 'TemporalCredentialsRefused',
    message:
      'cannot read X: Temporal refused the client certificate of TemporalConnection shop/temporal (Secret shop/certs, keys tls.crt and tls.key) (UNAUTHENTICATED: no): put credentials that this server accepts in the Secret (the controller tries again as soon as it changes); the controller scales down and deletes nothing meanwhile',
  });
  assert.match(
    readFailureCondition({ ...base, trouble: 'TemporalCredentialsRefused', refusal: 'PERMISSION_DENIED: x' }).message,
    /refused the connection without credentials of TemporalConnection shop\/temporal .*: give the TemporalConnection a mutualTLSSecretRef or an apiKeySecretRef/,
  );
});
