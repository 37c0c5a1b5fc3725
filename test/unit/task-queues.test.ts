// The task-queue reads of the Temporal adapter: the workers of each build from DescribeTaskQueue's
// pollers (versioned pollers of this Worker Deployment only, one per identity, over the queues
// asked), and a build's queues while its record does not answer yet.
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GrpcStatus, TemporalCallError } from '../../src/temporal/call-status.ts';
import { buildTaskQueues, pollersByBuild } from '../../src/temporal/task-queues.ts';
import type { WorkflowService } from '../../src/temporal/protocol.ts';

const { WorkerVersioningMode, TaskQueueType } = proto.temporal.api.enums.v1;
const VERSIONED = WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED;

function poller(identity: string, deploymentName: string, buildId: string, mode = VERSIONED) {
  return { identity, deploymentOptions: { deploymentName, buildId, workerVersioningMode: mode } };
}

test('distinct identities per build of this Worker Deployment, over every queue asked', async () => {
  const asked: unknown[] = [];
  const pollers: Record<string, unknown[]> = {
    orders: [
      poller('1@pod-a', 'shop/orders', 'v1'),
      poller('1@pod-b', 'shop/orders', 'v1'),
      poller('1@pod-c', 'shop/orders', 'v2'),
      poller('1@pod-x', 'shop/other', 'v1'),
      poller('1@pod-u', 'shop/orders', 'v1', WorkerVersioningMode.WORKER_VERSIONING_MODE_UNVERSIONED),
      { identity: '1@old' },
    ],
    // pod-a polls both queues: one worker still.
    refunds: [poller('1@pod-a', 'shop/orders', 'v1'), poller('1@pod-d', 'shop/orders', 'v2')],
  };
  const service = {
    describeTaskQueue: (request: { taskQueue: { name: string }; taskQueueType: number }) => {
      asked.push([request.taskQueue.name, request.taskQueueType]);
      return Promise.resolve({ pollers: pollers[request.taskQueue.name] });
    },
  } as unknown as WorkflowService;
  const byBuild = await pollersByBuild({ service, namespace: 'default', deploymentName: 'shop/orders' }, [
    'orders',
    'refunds',
  ]);
  assert.deepEqual(byBuild, { v1: 2, v2: 2 });
  assert.deepEqual(asked, [
    ['orders', TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW],
    ['refunds', TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW],
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
