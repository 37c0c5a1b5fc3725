// A fault only tests what the controller does with it if the controller reads it as meant: a busy
// workflow read as a rate limit would back off where it should not, and a batch limit read as
// trouble would hide the BatchOperationWaiting path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConcurrentBatchLimit, troubleOf } from '../../src/temporal/call-failures.ts';
import { exhausted } from './temporal-errors.ts';

test("the model's RESOURCE_EXHAUSTED answers read as the controller reads Temporal's", () => {
  assert.equal(troubleOf(exhausted('DescribeWorkerDeployment', 'rps')), 'TemporalRateLimited');
  assert.equal(troubleOf(exhausted('DescribeWorkerDeployment', 'busy')), 'TemporalBusy');
  const limit = exhausted('StartBatchOperation', 'concurrentBatches');
  assert.equal(troubleOf(limit), undefined);
  assert.equal(isConcurrentBatchLimit(limit), true);
  assert.equal(isConcurrentBatchLimit(exhausted('StartBatchOperation', 'rps')), false);
});
