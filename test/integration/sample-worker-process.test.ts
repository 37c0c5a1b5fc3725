// The sample worker also runs as a process of its own, configured from its environment: the form
// it takes in a real container image.
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import type { RunReport } from '../../src/sample-worker/workflows.ts';
import { eventually, sharedEnvironment, temporalClient, uniqueName } from '../support/environment.ts';

test('`node src/sample-worker/main.ts` runs a versioned worker from its environment', async (t) => {
  const client = await temporalClient(t);
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const deploymentName = uniqueName('standalone');
  const taskQueue = uniqueName('standalone-queue');
  const worker = spawn(process.execPath, [path.join(import.meta.dirname, '../../src/sample-worker/main.ts')], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: temporalNamespace,
      TEMPORAL_DEPLOYMENT_NAME: deploymentName,
      TEMPORAL_WORKER_BUILD_ID: 'solo',
      TEMPORAL_TASK_QUEUE: taskQueue,
      SAMPLE_BEHAVIOUR: 'blue',
    },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => worker.on('exit', resolve));
  t.after(() => worker.kill('SIGKILL'));

  await eventually('the worker to poll', async () => {
    const response = await client.workflowService.describeTaskQueue({
      namespace: temporalNamespace,
      taskQueue: { name: taskQueue },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return response.pollers?.some((p) => p.deploymentOptions?.buildId === 'solo') ? true : undefined;
  });
  const workflow = await client.workflow.start('autoUpgradeUntilSignalled', {
    taskQueue,
    workflowId: uniqueName('standalone'),
    versioningOverride: { pinnedTo: { deploymentName, buildId: 'solo' } },
  });
  await workflow.signal('finish');
  const report = (await workflow.result()) as RunReport;
  assert.deepEqual([report.finishedOn.buildId, report.finishedOn.behaviour], ['solo', 'blue']);

  worker.kill('SIGTERM');
  assert.equal(await exited, 0, 'SIGTERM shuts the worker down cleanly');
});
