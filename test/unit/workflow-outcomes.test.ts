import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closedWorkflowsQuery } from '../../src/domain/visibility.ts';
import type { WorkflowService } from '../../src/temporal/protocol.ts';
import { countOutcomes } from '../../src/temporal/workflow-outcomes.ts';

const since = new Date('2026-11-25T10:00:00Z');

test('the query: closed on the build since the window began, of the given types, grouped by status', () => {
  assert.equal(
    closedWorkflowsQuery('ns/orders', 'b2', since, ['Charge', 'Refund']),
    "TemporalWorkerDeploymentVersion = 'ns/orders:b2' AND ExecutionStatus != 'Running' AND CloseTime >= '2026-11-25T10:00:00.000Z' AND WorkflowType IN ('Charge', 'Refund') GROUP BY ExecutionStatus",
  );
  assert.doesNotMatch(closedWorkflowsQuery('ns/orders', 'b2', since, []), /WorkflowType/);
});

test('failed, timed out and terminated runs are failures; a continue-as-new is no sample', async () => {
  const groups = { Completed: 14, Failed: 3, TimedOut: 1, Terminated: 1, Canceled: 1, ContinuedAsNew: 7 };
  const queries: string[] = [];
  const service = {
    countWorkflowExecutions: (request: { query: string }) => {
      queries.push(request.query);
      return Promise.resolve({
        count: 27,
        groups: Object.entries(groups).map(([status, count]) => ({
          groupValues: [{ data: Buffer.from(JSON.stringify(status)) }],
          count,
        })),
      });
    },
  } as unknown as WorkflowService;
  const counts = await countOutcomes({ service, namespace: 'default', deploymentName: 'ns/orders' }, 'b2', since);
  assert.deepEqual(counts, { closed: 20, failed: 5 });
  assert.deepEqual(queries, [closedWorkflowsQuery('ns/orders', 'b2', since)]);
});
