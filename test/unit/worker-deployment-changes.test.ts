// Which informer events of a worker deployment bring a reconcile (review of 2026-11-26, finding 14).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callsForReconcile, changeOf } from '../../src/controller/worker-deployment-changes.ts';
import { FORCE_DELETE_ANNOTATION, RETRY_GATE_ANNOTATION } from '../../src/domain/annotations.ts';
import { workerDeployment } from '../support/recorded-world.ts';

const before = workerDeployment(
  { buildId: 'v1' },
  { annotations: { [RETRY_GATE_ANNOTATION]: '1', 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
  { observedGeneration: 1 },
);
const seen = changeOf(before);
const updated = (metadata: Partial<typeof before.metadata>, status = before.status) =>
  callsForReconcile('update', seen, {
    ...before,
    metadata: { ...before.metadata, resourceVersion: '11', ...metadata },
    ...(status ? { status } : {}),
  });

test('a new value of an annotation the controller acts on is a change: its reconcile is queued', () => {
  assert.equal(updated({ annotations: { ...before.metadata.annotations, [RETRY_GATE_ANNOTATION]: '2' } }), true);
});

test('force-delete set on a worker deployment already being deleted is a change', () => {
  const deleting = { ...before.metadata, deletionTimestamp: '2026-11-26T12:00:00Z' as unknown as Date };
  const waiting = changeOf({ ...before, metadata: deleting });
  const forced = { ...deleting, annotations: { ...before.metadata.annotations, [FORCE_DELETE_ANNOTATION]: 'true' } };
  assert.equal(callsForReconcile('update', waiting, { ...before, metadata: forced }), true);
});

test("a status write or another manager's annotation is not a change; a new generation is", () => {
  assert.equal(updated({}, { observedGeneration: 1, versionCount: 3 }), false, 'status only');
  assert.equal(
    updated({
      annotations: { ...before.metadata.annotations, 'kubectl.kubernetes.io/last-applied-configuration': '{"a":1}' },
    }),
    false,
    "kubectl's annotation",
  );
  assert.equal(updated({ generation: 2 }), true, 'the spec');
});

test('an add or a delete is always an event', () => {
  assert.equal(callsForReconcile('add', seen, before), true);
  assert.equal(callsForReconcile('delete', seen, before), true);
});
