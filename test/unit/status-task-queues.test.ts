// Each build's task queues as the status lists them: the leader's read first, then the target's
// read of this reconcile, then what the status remembered; an empty list says nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { knownTaskQueues } from '../../src/status/task-queues.ts';

const workflow = (name: string) => ({ name, type: 'workflow' as const });
const activity = (name: string) => ({ name, type: 'activity' as const });

test("the leader's read, then the target's, then the status's memory; sorted by type and name", () => {
  const remembered = {
    targetVersion: { buildID: 'v3', status: 'Inactive', taskQueues: [workflow('old')] },
    currentVersion: { buildID: 'v2', status: 'Current', taskQueues: [workflow('remembered')] },
    deprecatedVersions: [
      { buildID: 'v1', status: 'Drained', taskQueues: [activity('orders'), workflow('orders')] },
      { buildID: 'v0', status: 'Drained' },
    ],
  };
  const known = knownTaskQueues(
    remembered,
    { v2: [workflow('orders'), { name: 'orders', type: 'nexus' }, activity('orders')], v4: [] },
    { buildId: 'v3', taskQueues: { workflow: ['refunds', 'orders'], activity: ['orders'] } },
  );
  assert.deepEqual(known, {
    v2: [activity('orders'), { name: 'orders', type: 'nexus' }, workflow('orders')],
    v3: [activity('orders'), workflow('orders'), workflow('refunds')],
    // Scaled to zero, read no more: as remembered.
    v1: [activity('orders'), workflow('orders')],
  });
});

test('an empty read (queues not recorded yet) leaves what was remembered; nothing known, nothing said', () => {
  const remembered = { targetVersion: { buildID: 'v1', status: 'Inactive', taskQueues: [workflow('orders')] } };
  assert.deepEqual(
    knownTaskQueues(remembered, { v1: [] }, { buildId: 'v1', taskQueues: { workflow: [], activity: [] } }),
    { v1: [workflow('orders')] },
  );
  assert.deepEqual(knownTaskQueues(undefined, undefined), {});
});
