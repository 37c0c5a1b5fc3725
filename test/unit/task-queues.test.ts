// The task-queue reads of the Temporal adapter: from DescribeTaskQueue's pollers (versioned pollers
// of this Worker Deployment only), the builds that polled each queue asked and the workers of each
// build (one per identity, over the workflow queues); and a build's queues while its record does
// not answer yet.
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GrpcStatus, TemporalCallError } from '../../src/temporal/call-status.ts';
import { buildTaskQueues, readPollers } from '../../src/temporal/task-queues.ts';
import type { WorkflowService } from '../../src/temporal/protocol.ts';

const { WorkerVersioningMode, TaskQueueType } = proto.temporal.api.enums.v1;
const VERSIONED = WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED;

function poller(identity: string, deploymentName: string, buildId: string, mode = VERSIONED) {
  return { identity, deploymentOptions: { deploymentName, buildId, workerVersioningMode: mode } };
}

test('per queue and type, the builds of this Worker Deployment that polled it; per build, distinct workers on its workflow queues', async () => {
  const asked: unknown[] = [];
  const { TASK_QUEUE_TYPE_WORKFLOW: WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY: ACTIVITY } = TaskQueueType;
  const pollers: Record<string, unknown[]> = {
    [`orders/${WORKFLOW}`]: [
      poller('1@pod-a', 'shop/orders', 'v1'),
      poller('1@pod-b', 'shop/orders', 'v1'),
      poller('1@pod-c', 'shop/orders', 'v2'),
      poller('1@pod-x', 'shop/other', 'v3'),
      poller('1@pod-u', 'shop/orders', 'v4', WorkerVersioningMode.WORKER_VERSIONING_MODE_UNVERSIONED),
      { identity: '1@old' },
    ],
    // pod-a polls both queues: one worker still.
    [`refunds/${WORKFLOW}`]: [poller('1@pod-a', 'shop/orders', 'v1'), poller('1@pod-d', 'shop/orders', 'v2')],
    // Activity pollers say which builds poll the queue, but are not counted as more workers.
    [`orders/${ACTIVITY}`]: [poller('1@pod-a', 'shop/orders', 'v1'), poller('1@pod-e', 'shop/orders', 'v1')],
  };
  const service = {
    describeTaskQueue: (request: { taskQueue: { name: string }; taskQueueType: number }) => {
      asked.push([request.taskQueue.name, request.taskQueueType]);
      return Promise.resolve({ pollers: pollers[`${request.taskQueue.name}/${request.taskQueueType}`] });
    },
  } as unknown as WorkflowService;
  const read = await readPollers({ service, namespace: 'default', deploymentName: 'shop/orders' }, [
    { name: 'orders', type: 'activity' },
    { name: 'orders', type: 'workflow' },
    { name: 'refunds', type: 'workflow' },
  ]);
  assert.deepEqual(read, {
    workers: { v1: 2, v2: 2 },
    polled: [
      { name: 'orders', type: 'activity', builds: ['v1'] },
      { name: 'orders', type: 'workflow', builds: ['v1', 'v2'] },
      { name: 'refunds', type: 'workflow', builds: ['v1', 'v2'] },
    ],
  });
  assert.deepEqual(asked, [
    ['orders', ACTIVITY],
    ['orders', WORKFLOW],
    ['refunds', WORKFLOW],
  ]);
});

test('a version Temporal lists but whose record answers NOT_FOUND has no task queues yet; other failures are thrown', async () => {
  const failing = (code: number) =>
    ({
      describeWorkerDeploymentVersion: () =>
        Promise.reject(new TemporalCallError('DescribeWorkerDeploymentVersion', { code, details: 'x' })),
    }) as unknown as WorkflowService;
  const target = (code: number) => ({ service: failing(code), namespace: 'default', deploymentName: 'shop/orders' });
  assert.deepEqual(await buildTaskQueues(target(GrpcStatus.NOT_FOUND), 'v2'), { workflow: [], activity: [] });
  await assert.rejects(buildTaskQueues(target(GrpcStatus.UNAVAILABLE), 'v2'), { name: 'TemporalCallError' });
});
