// A Deployment built for a worker deployment runs as real workers of the right Temporal
// deployment and build, and goes away with its TemporalWorkerDeployment (owner reference).
import { AppsV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { buildIdOf } from '../../src/k8s/build-id.ts';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { versionedDeployment } from '../../src/k8s/versioned-deployment.ts';
import { eventually, kubeConfig, sharedEnvironment, temporalClient, testNamespace } from '../support/environment.ts';
import { deleteWorkerDeployment } from '../support/controller.ts';
import { create, readManifests } from '../support/manifests.ts';

test('the versioned Deployment of the minimal example registers its build in Temporal and is owned by its worker deployment', async (t) => {
  const namespace = await testNamespace(t, 'versioned');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const client = await temporalClient(t);
  const worker = readManifests(path.join(import.meta.dirname, '../../examples/minimal.yaml')).find(
    (m) => m.kind === 'TemporalWorkerDeployment',
  );
  assert.ok(worker);
  (worker.spec as TemporalWorkerDeployment['spec']).workerOptions.temporalNamespace =
    sharedEnvironment().temporalNamespace;
  const stored = (await create(worker, namespace)) as unknown as TemporalWorkerDeployment;
  const buildId = buildIdOf(stored.spec.template, stored.spec.workerOptions.unsafeCustomBuildID);

  const deployment = versionedDeployment({
    workerDeployment: stored,
    connection: { hostPort: sharedEnvironment().temporalAddress },
    buildId,
  });
  await apps.createNamespacedDeployment({ namespace, body: deployment });
  const name = deployment.metadata?.name ?? '';
  await eventually('the Deployment to be available', async () => {
    const d = await apps.readNamespacedDeployment({ namespace, name });
    return d.status?.availableReplicas === 2 ? true : undefined;
  });
  const deploymentName = temporalDeploymentName(namespace, 'orders');
  await eventually('Temporal to know the build', async () => {
    const response = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName,
    });
    return response.workerDeploymentInfo?.versionSummaries?.some((v) => v.deploymentVersion?.buildId === buildId)
      ? true
      : undefined;
  });

  await deleteWorkerDeployment(namespace, 'orders');
  await eventually('the garbage collector to delete the owned Deployment', async () => {
    const list = await apps.listNamespacedDeployment({ namespace });
    return list.items.length === 0 ? true : undefined;
  });
});
