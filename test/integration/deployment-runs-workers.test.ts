// The environment's Kubernetes and Temporal are real: a Deployment becomes Available through the
// real controller-manager and the node agent, its Pods are real Temporal workers of one build,
// a pinned workflow runs on them, and deleting the Deployment garbage-collects everything. Pods
// told to only poll (what the scale run's thousands of Pods are) are workers of their build to
// Temporal all the same.
import { AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import { eventually, kubeConfig, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';
import { POLL_ONLY } from '../../dev/node-agent/poller-host.ts';
import { sampleDeployment } from '../support/sample-deployment.ts';

const WORKFLOW_QUEUE = proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW;

test('a Deployment of the sample worker runs real versioned workers, and its deletion stops them', async (t) => {
  const namespace = await testNamespace(t, 'smoke');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const client = await temporalClient(t);
  const deploymentName = uniqueName('smoke');
  const taskQueue = uniqueName('smoke-queue');
  const buildId = 'build-a';

  await apps.createNamespacedDeployment({
    namespace,
    body: sampleDeployment({ namespace, name: 'workers', replicas: 2, deploymentName, buildId, taskQueue }),
  });

  const available = await eventually('Deployment workers to be Available', async () => {
    const d = await apps.readNamespacedDeployment({ namespace, name: 'workers' });
    const condition = d.status?.conditions?.find((c) => c.type === 'Available');
    return condition?.status === 'True' && d.status?.availableReplicas === 2 ? d : undefined;
  });
  assert.equal(available.status?.readyReplicas, 2);

  const pods = (await core.listNamespacedPod({ namespace })).items;
  assert.equal(pods.length, 2, 'the ReplicaSet controller made two Pods');
  for (const pod of pods) {
    assert.equal(pod.spec?.nodeName, 'local-node', `${pod.metadata?.name} is bound to the agent's node`);
    assert.equal(pod.metadata?.ownerReferences?.[0]?.kind, 'ReplicaSet');
    assert.equal(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  }

  const described = await eventually('Temporal to list the build', async () => {
    const response = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName,
    });
    return response.workerDeploymentInfo?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === buildId);
  });
  assert.equal(described.deploymentVersion?.deploymentName, deploymentName);

  // One poller per Pod, each carrying the build: the workers are real and distinct.
  const pollers = await podPollers(client, taskQueue, buildId, pods);
  const workflow = await client.workflow.start('pinnedUntilSignalled', {
    taskQueue,
    workflowId: uniqueName('pinned'),
    versioningOverride: { pinnedTo: { deploymentName, buildId } },
  });
  await workflow.signal('finish');
  const report = (await workflow.result()) as RunReport;
  assert.equal(report.startedOn.buildId, buildId);
  assert.equal(report.finishedOn.buildId, buildId);
  assert.ok(
    pollers.has(report.finishedOn.identity.split('@')[0] ?? ''),
    `ran on one of the Pods: ${report.finishedOn.identity}`,
  );

  await apps.deleteNamespacedDeployment({ namespace, name: 'workers', propagationPolicy: 'Background' });
  await eventually('the garbage collector to delete the ReplicaSet and its Pods', async () => {
    const [replicaSets, remaining] = await Promise.all([
      apps.listNamespacedReplicaSet({ namespace }),
      core.listNamespacedPod({ namespace }),
    ]);
    return replicaSets.items.length === 0 && remaining.items.length === 0 ? true : undefined;
  });
  await pollersGone(client, taskQueue);
});

test('Pods that only poll register their build and count as its pollers, and stop polling with their Pods', async (t) => {
  const namespace = await testNamespace(t, 'poll-only');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const client = await temporalClient(t);
  const deploymentName = uniqueName('poll-only');
  const taskQueue = uniqueName('poll-only-queue');
  const buildId = 'build-p';
  const body = sampleDeployment({ namespace, name: 'pollers', replicas: 2, deploymentName, buildId, taskQueue });
  body.spec!.template.spec!.containers[0]!.env!.find((e) => e.name === 'SAMPLE_BEHAVIOUR')!.value = POLL_ONLY;
  await apps.createNamespacedDeployment({ namespace, body });

  await eventually('Deployment pollers to be Available', async () => {
    const d = await apps.readNamespacedDeployment({ namespace, name: 'pollers' });
    return d.status?.readyReplicas === 2 ? d : undefined;
  });
  const pods = (await core.listNamespacedPod({ namespace })).items;
  const version = await eventually('Temporal to list the build', async () => {
    const response = await client.workflowService.describeWorkerDeploymentVersion({
      namespace: client.options.namespace,
      deploymentVersion: { deploymentName, buildId },
    });
    return response.workerDeploymentVersionInfo?.taskQueueInfos?.length ? response : undefined;
  });
  assert.deepEqual(
    version.workerDeploymentVersionInfo?.taskQueueInfos?.map((q) => [q.name, q.type]),
    [[taskQueue, WORKFLOW_QUEUE]],
    'the build has the workflow task queue its Pods poll, and no activity queue (they poll none)',
  );
  await podPollers(client, taskQueue, buildId, pods);

  await apps.deleteNamespacedDeployment({ namespace, name: 'pollers', propagationPolicy: 'Foreground' });
  await pollersGone(client, taskQueue);
});

/** Resolves with the Pods seen polling `taskQueue` for `buildId` once each of `pods` is, by its identity. */
async function podPollers(client: Client, taskQueue: string, buildId: string, pods: V1Pod[]): Promise<Set<string>> {
  const expected = pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`).sort();
  const pollers = await eventually(`a poller from each of ${expected.join(', ')}`, async () => {
    const response = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: WORKFLOW_QUEUE,
    });
    const identities = new Set(
      (response.pollers ?? [])
        .filter((p) => p.deploymentOptions?.buildId === buildId)
        .map((p) => p.identity?.split('@')[0] ?? ''),
    );
    return identities.size === expected.length ? identities : undefined;
  });
  assert.deepEqual([...pollers].sort(), expected);
  return pollers;
}

/** The dev server forgets a poller 10 s after its last poll: only stopped workers go quiet. */
async function pollersGone(client: Client, taskQueue: string): Promise<void> {
  await eventually(
    'the workers to stop polling',
    async () => {
      const response = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: WORKFLOW_QUEUE,
      });
      return (response.pollers ?? []).length === 0 ? true : undefined;
    },
    60_000,
  );
}
