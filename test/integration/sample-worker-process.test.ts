// The sample worker also runs as a process of its own, configured from its environment through
// the worker library's runWorker: the form it takes in a real container image.
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import { eventually, sharedEnvironment, temporalClient, uniqueName } from '../support/environment.ts';
import { mutualTlsFront } from '../support/grpc-proxy.ts';

/**
 * `node dev/sample-worker/main.ts` with the variables the controller sets for this build, plus
 * `env`; killed when the test ends. `exited` resolves with its exit code.
 */
function sampleWorker(
  t: TestContext,
  placement: { deploymentName: string; buildId: string; taskQueue: string },
  env: Record<string, string> = {},
): { worker: ChildProcess; exited: Promise<number | null> } {
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const worker = spawn(process.execPath, [path.join(import.meta.dirname, '../../dev/sample-worker/main.ts')], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: temporalNamespace,
      TEMPORAL_DEPLOYMENT_NAME: placement.deploymentName,
      TEMPORAL_WORKER_BUILD_ID: placement.buildId,
      TEMPORAL_TASK_QUEUE: placement.taskQueue,
      ...env,
    },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => worker.on('exit', resolve));
  t.after(() => worker.kill('SIGKILL'));
  return { worker, exited };
}

test('`node dev/sample-worker/main.ts` runs a versioned worker from its environment', async (t) => {
  const client = await temporalClient(t);
  const { temporalNamespace } = sharedEnvironment();
  const deploymentName = uniqueName('standalone');
  const taskQueue = uniqueName('standalone-queue');
  const { worker, exited } = sampleWorker(
    t,
    { deploymentName, buildId: 'solo', taskQueue },
    { SAMPLE_BEHAVIOUR: 'blue' },
  );

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

test('runWorker: TLS files rotated in place, the worker drains and polls again with the new certificate', async (t) => {
  const client = await temporalClient(t);
  const { temporalNamespace } = sharedEnvironment();
  const { proxy, certs } = await mutualTlsFront(t, 'temporal.twc.test');
  const dir = await mkdtemp(path.join(tmpdir(), 'twc-worker-tls-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const files = { ca: path.join(dir, 'ca.crt'), cert: path.join(dir, 'tls.crt'), key: path.join(dir, 'tls.key') };
  await writeFile(files.ca, certs.ca);
  await writeFile(files.cert, certs.client.cert);
  await writeFile(files.key, certs.client.key);
  const deploymentName = uniqueName('rotated');
  const taskQueue = uniqueName('rotated-queue');
  const { worker, exited } = sampleWorker(
    t,
    { deploymentName, buildId: 'tls', taskQueue },
    {
      TEMPORAL_ADDRESS: proxy.address,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.twc.test',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.ca,
      TEMPORAL_TLS_CLIENT_CERT_PATH: files.cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: files.key,
    },
  );
  const polls = async () => {
    const response = await client.workflowService.describeTaskQueue({
      namespace: temporalNamespace,
      taskQueue: { name: taskQueue },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return response.pollers?.some((p) => p.deploymentOptions?.buildId === 'tls') ? true : undefined;
  };
  await eventually('the worker to poll through the TLS front', polls);
  assert.deepEqual([...proxy.clientNames], ['twc-controller'], 'with the first certificate');

  // As cert-manager or a Secret update does: the same paths, a new certificate.
  await writeFile(files.cert, certs.workerClient.cert);
  await writeFile(files.key, certs.workerClient.key);
  await eventually('a connection with the rotated certificate', () =>
    Promise.resolve(proxy.clientNames.has('twc-worker') ? true : undefined),
  );
  const workflow = await client.workflow.start('autoUpgradeUntilSignalled', {
    taskQueue,
    workflowId: uniqueName('rotated'),
    versioningOverride: { pinnedTo: { deploymentName, buildId: 'tls' } },
  });
  await workflow.signal('finish');
  const report = (await workflow.result()) as RunReport;
  assert.equal(report.finishedOn.buildId, 'tls', 'the restarted worker runs workflows');

  worker.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('runWorker drains on SIGTERM: an activity in flight completes before the process exits', async (t) => {
  const client = await temporalClient(t);
  const deploymentName = uniqueName('draining');
  const taskQueue = uniqueName('draining-queue');
  const { worker, exited } = sampleWorker(t, { deploymentName, buildId: 'drain', taskQueue });
  const { EventType } = proto.temporal.api.enums.v1;
  // Started once the worker has registered the version: a pinned start names it.
  const workflow = await eventually('the worker to take a workflow', () =>
    client.workflow
      .start('slowOrder', {
        taskQueue,
        workflowId: uniqueName('slow'),
        args: [4000],
        versioningOverride: { pinnedTo: { deploymentName, buildId: 'drain' } },
      })
      .catch(() => undefined),
  );
  const events = async () => (await workflow.fetchHistory()).events?.map((e) => e.eventType) ?? [];
  // Temporal records an activity's start with its end: the pending activity says it runs.
  const { PendingActivityState } = proto.temporal.api.enums.v1;
  await eventually('its activity to run', async () =>
    (await workflow.describe()).raw.pendingActivities?.[0]?.state ===
    PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
      ? true
      : undefined,
  );
  worker.kill('SIGTERM');
  assert.equal(await exited, 0, 'a clean exit');
  assert.ok(
    (await events()).includes(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
    'the activity in flight completed before the worker stopped',
  );
});
