// What a failed Kubernetes call says in a condition or an event: the API server's words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiException } from '@kubernetes/client-node';
import { apiServerMessage } from '../../src/runtime/kube/api-errors.ts';

test("an API server refusal is its Status message and code, without client-node's dump of the body and headers", () => {
  const body = JSON.stringify({
    kind: 'Status',
    status: 'Failure',
    message: 'deployments.apps "w" is forbidden: denied',
    reason: 'Invalid',
    code: 422,
  });
  const error = new ApiException(422, 'Unknown API Status Code!', body, { 'audit-id': 'x' });
  assert.match(error.message, /Unknown API Status Code!/);
  assert.equal(apiServerMessage(error), 'deployments.apps "w" is forbidden: denied (HTTP 422)');
});

test('a body that is not a Status gives the code alone; an error that is no API answer gives nothing', () => {
  assert.equal(apiServerMessage(new ApiException(502, 'Bad Gateway', '<html>bad gateway</html>', {})), 'HTTP 502');
  assert.equal(apiServerMessage(new Error('socket hang up')), undefined);
});
