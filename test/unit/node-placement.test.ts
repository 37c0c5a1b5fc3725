// Where the node agent binds a Pod nobody scheduled (placePod): the scheduler's nodeSelector and
// taint filters, and its wording when no node fits.
import type { V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LocalNode, placePod } from '../../dev/node-agent/placement.ts';

const node = (name: string, labels: Record<string, string> = {}, taints: LocalNode['taints'] = []): LocalNode => ({
  name,
  labels,
  taints,
});
const pod = (spec: Partial<NonNullable<V1Pod['spec']>> = {}): V1Pod => ({ spec: { containers: [], ...spec } });
const nodes = [
  node('local-node'),
  node('node-pool-spot', { 'node-pool': 'spot' }),
  node('node-pool-on-demand', { 'node-pool': 'on-demand' }, [
    { key: 'dedicated', value: 'metastore', effect: 'NoSchedule' },
  ]),
];

test('a Pod goes to the first node whose labels hold its nodeSelector', () => {
  assert.deepEqual(placePod(pod(), nodes), { node: 'local-node' });
  assert.deepEqual(placePod(pod({ nodeSelector: { 'node-pool': 'spot' } }), nodes), { node: 'node-pool-spot' });
});

test('a NoSchedule or NoExecute taint keeps off every Pod that does not tolerate it', () => {
  const onDemand = { nodeSelector: { 'node-pool': 'on-demand' } };
  const tolerated = [
    [{ key: 'dedicated', operator: 'Equal', value: 'metastore', effect: 'NoSchedule' }],
    [{ key: 'dedicated', operator: 'Exists' }],
    [{ operator: 'Exists' }],
  ];
  for (const tolerations of tolerated)
    assert.deepEqual(
      placePod(pod({ ...onDemand, tolerations }), nodes),
      { node: 'node-pool-on-demand' },
      JSON.stringify(tolerations),
    );
  const untolerated = [
    [],
    [{ key: 'dedicated', operator: 'Equal', value: 'other', effect: 'NoSchedule' }],
    [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }],
    [{ key: 'other', operator: 'Exists' }],
  ];
  for (const tolerations of untolerated)
    assert.ok('unschedulable' in placePod(pod({ ...onDemand, tolerations }), nodes), JSON.stringify(tolerations));
  const preferNot = [node('soft', {}, [{ key: 'k', value: 'v', effect: 'PreferNoSchedule' }])];
  assert.deepEqual(placePod(pod(), preferNot), { node: 'soft' }, 'PreferNoSchedule does not filter');
});

test('a Pod no node fits is counted per reason, in the scheduler wording', () => {
  assert.deepEqual(placePod(pod({ nodeSelector: { 'node-pool': 'on-demand' } }), nodes), {
    unschedulable:
      "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: metastore}, 2 node(s) didn't match Pod's node affinity/selector.",
  });
  assert.deepEqual(placePod(pod({ nodeSelector: { gpu: 'yes' } }), nodes), {
    unschedulable: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
  });
});
