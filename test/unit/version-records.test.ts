import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GrpcStatus, TemporalCallError } from '../../src/temporal/call-status.ts';
import type { WorkflowService } from '../../src/temporal/protocol.ts';
import { deleteVersionRecord, PollerRefusals } from '../../src/temporal/version-records.ts';
import { FakeTimers } from '../support/fake-timers.ts';

/** A service whose deletions are refused as the server refuses them while it remembers pollers, or with `failure`. */
function refusingService(failure?: { code: GrpcStatus; details: string }) {
  const sent: string[] = [];
  const service = {
    deleteWorkerDeploymentVersion: (request: { deploymentVersion: { buildId: string } }) => {
      sent.push(request.deploymentVersion.buildId);
      const { code, details } = failure ?? {
        code: GrpcStatus.FAILED_PRECONDITION,
        details: 'Version cannot be deleted since it has active pollers.',
      };
      return Promise.reject(new TemporalCallError('DeleteWorkerDeploymentVersion', { code, details }));
    },
  } as unknown as WorkflowService;
  return { service, sent };
}

test('a deletion refused for pollers is not sent again before the retry delay; the reconcile still hears the refusal', async () => {
  const timers = new FakeTimers();
  const refusals = new PollerRefusals(10_000, timers);
  const { service, sent } = refusingService();
  const target = (address: string) => ({
    service: refusals.remembering(service, address),
    namespace: 'default',
    deploymentName: 'ns/orders',
    identity: 'twc',
  });
  const first = await deleteVersionRecord(target('temporal:7233'), 'b1');
  assert.equal(first.deleted, false);
  await timers.advance(9_999);
  assert.deepEqual(await deleteVersionRecord(target('temporal:7233'), 'b1'), first, 'the same answer, from memory');
  await deleteVersionRecord(target('temporal:7233'), 'b2');
  await deleteVersionRecord(target('elsewhere:7233'), 'b1');
  assert.deepEqual(sent, ['b1', 'b2', 'b1'], 'other builds and other servers are asked');
  await timers.advance(1);
  await deleteVersionRecord(target('temporal:7233'), 'b1');
  assert.deepEqual(sent, ['b1', 'b2', 'b1', 'b1'], 'asked again once the delay has passed');
});

test('other refusals are sent again at once: only time lifts a refusal for pollers', async () => {
  const refusals = new PollerRefusals(10_000, new FakeTimers());
  const { service, sent } = refusingService({ code: GrpcStatus.FAILED_PRECONDITION, details: 'version is current' });
  const target = {
    service: refusals.remembering(service, 'temporal:7233'),
    namespace: 'default',
    deploymentName: 'd',
    identity: 'twc',
  };
  for (let i = 0; i < 2; i++) await assert.rejects(deleteVersionRecord(target, 'b1'), /version is current/);
  assert.deepEqual(sent, ['b1', 'b1']);
});
