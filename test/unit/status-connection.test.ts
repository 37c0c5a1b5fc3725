// The conditions of a TemporalConnection, from what its check found: Ready when reached; trying
// again (Progressing) when Temporal is out of reach; Stalled when only a person can help.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conditionSet } from '../../src/status/conditions.ts';
import { connectionConditions } from '../../src/status/connection.ts';

test('reached: Ready, naming the address', () => {
  assert.deepEqual(connectionConditions('temporal:7233', { reached: true }), [
    { type: 'Ready', status: 'True', reason: 'Connected', message: 'reached Temporal at temporal:7233' },
  ]);
});

test('out of reach: Progressing, trying again with backoff; not Stalled', () => {
  const said = connectionConditions('temporal:7233', {
    reached: false,
    reason: 'TemporalUnreachable',
    message: 'connect ECONNREFUSED',
  });
  assert.deepEqual(said, [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'TemporalUnreachable',
      message: 'connect ECONNREFUSED; trying again with backoff',
    },
  ]);
  assert.equal(
    conditionSet(said).find((c) => c.type === 'Stalled')?.status ?? 'False',
    'False',
    'time may mend it: not stalled',
  );
});

test('what needs a person is Stalled with its own reason and words', () => {
  for (const reason of [
    'SecretNotFound',
    'InvalidSecret',
    'InvalidSpec',
    'TokenUnavailable',
    'TemporalCredentialsRefused',
  ] as const) {
    const said = connectionConditions('temporal:7233', { reached: false, reason, message: `why: ${reason}` });
    assert.equal(said.length, 1, reason);
    assert.equal(said[0]?.type, 'Stalled', reason);
    assert.equal(said[0]?.status, 'True', reason);
    assert.equal(said[0]?.reason, reason);
    assert.equal(said[0]?.message, `why: ${reason}`);
  }
});
