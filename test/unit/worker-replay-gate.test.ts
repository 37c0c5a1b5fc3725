// The replay gate's account of a divergence, from the replayer's error as the SDK words it: the
// core's own reason, and the first event that diverged, named from the history.
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { divergedEvent, sdkReason } from '../../packages/worker/src/index.ts';

const { EventType } = proto.temporal.api.enums.v1;
// As a breaking `order` (a timer before its activity) failed to replay on the test environment.
const seen =
  'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible with the history that was fed in. Details: Workflow activation completion failed: Failure { failure: Some(Failure { message: "[TMPRL1100] Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)", source: "" }) }';

const history = {
  events: [1, 2, 3, 4]
    .map((eventId) => ({ eventId, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED }))
    .concat([{ eventId: 5, eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED }]),
} as unknown as Parameters<typeof divergedEvent>[1];

test("the core's reason, out of the replayer's wrapping", () => {
  assert.equal(
    sdkReason(seen),
    '[TMPRL1100] Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)',
  );
  assert.equal(sdkReason('Workflow type order not found'), 'Workflow type order not found', 'else the whole message');
});

test('the first event that diverged, by the id the error gives, with its type from the history', () => {
  assert.equal(divergedEvent(seen, history), '5 ActivityTaskScheduled');
  assert.equal(divergedEvent(seen, undefined), '5', 'no history: the id alone');
  assert.equal(divergedEvent('Workflow type order not found', history), undefined, 'no id: none said');
});
