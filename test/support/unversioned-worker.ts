// A worker without Worker Versioning, run inside the test process: what a user has polling the
// task queue before the first versioned build rolls out.
import proto from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { TestContext } from 'node:test';
import { createActivities } from '../../dev/sample-worker/activities.ts';
import { bundleSampleWorkflows } from '../../dev/sample-worker/worker.ts';
import { eventually, sharedEnvironment, temporalClient } from './environment.ts';

// Once per process, before the first worker: the SDK's INFO lines would drown the test report.
Runtime.install({ logger: new DefaultLogger('WARN') });

/** Starts an unversioned sample worker on `taskQueue` and resolves once Temporal lists it as a poller. */
export async function runUnversionedWorker(t: TestContext, taskQueue: string): Promise<void> {
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const connection = await NativeConnection.connect({ address: temporalAddress });
  const identity = `unversioned@${taskQueue}`;
  const worker = await Worker.create({
    connection,
    namespace: temporalNamespace,
    taskQueue,
    identity,
    workflowBundle: await bundleSampleWorkflows(),
    activities: createActivities({ deploymentName: '', buildId: '', behaviour: 'unversioned', identity }),
    shutdownGraceTime: '1s',
  });
  const running = worker.run();
  t.after(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });
  const client = await temporalClient(t);
  await eventually('the unversioned worker to poll', async () => {
    const described = await client.workflowService.describeTaskQueue({
      namespace: temporalNamespace,
      taskQueue: { name: taskQueue },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return described.pollers?.some((p) => p.identity === identity) ? true : undefined;
  });
}
