// Each build's state as the worker deployment's status last said it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildStates } from '../../src/status/build-states.ts';

test('current, target and deprecated builds by their status; a build not listed yet is NotRegistered', () => {
  const stateOf = buildStates({
    currentVersion: { buildID: 'v2', status: 'Current' },
    targetVersion: { buildID: 'v3', status: 'Ramping' },
    deprecatedVersions: [
      { buildID: 'v1', status: 'Draining' },
      { buildID: 'v0', status: 'Drained' },
    ],
  });
  assert.deepEqual(['v0', 'v1', 'v2', 'v3', 'v4'].map(stateOf), [
    'Drained',
    'Draining',
    'Current',
    'Ramping',
    'NotRegistered',
  ]);
  assert.equal(buildStates(undefined)('v1'), 'NotRegistered');
});
