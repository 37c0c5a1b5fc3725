// The node agent reports what a kubelet would when a worker cannot run.
import { AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, kubeConfig, sharedEnvironment, testNamespace, uniqueName } from '../support/environment.ts';
import { sampleDeployment } from '../support/sample-deployment.ts';

test('a worker whose Temporal namespace does not exist fails its Pod (restartPolicy Never)', async (t) => {
  const namespace = await testNamespace(t, 'fail');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const env = {
    TEMPORAL_ADDRESS: sharedEnvironment().temporalAddress,
    TEMPORAL_NAMESPACE: 'no-such-namespace',
    TEMPORAL_DEPLOYMENT_NAME: uniqueName('fail'),
    TEMPORAL_WORKER_BUILD_ID: 'b1',
  };
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: 'once' },
      spec: {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'worker',
            image: 'sample-worker',
            env: Object.entries(env).map(([name, value]) => ({ name, value })),
          },
        ],
      },
    },
  });
  const pod = await eventually('the Pod to fail', async () => {
    const p = await core.readNamespacedPod({ namespace, name: 'once' });
    return p.status?.phase === 'Failed' ? p : undefined;
  });
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  assert.match(terminated?.message ?? '', /no-such-namespace/, 'the failure names the missing namespace');
  assert.equal(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
});

test('a Deployment whose worker lacks its configuration is never Available and says why', async (t) => {
  const namespace = await testNamespace(t, 'config');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const body = sampleDeployment({
    namespace,
    name: 'unconfigured',
    replicas: 1,
    deploymentName: uniqueName('cfg'),
    buildId: 'b1',
    taskQueue: uniqueName('q'),
  });
  const container = body.spec?.template.spec?.containers[0];
  assert.ok(container);
  container.env = container.env?.filter((e) => e.name !== 'TEMPORAL_ADDRESS');
  await apps.createNamespacedDeployment({ namespace, body });

  const pod = await eventually('the Pod to report its configuration error', async () => {
    const pods = (await core.listNamespacedPod({ namespace })).items;
    return pods.find(
      (p: V1Pod) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
  });
  assert.match(pod.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '', /TEMPORAL_ADDRESS/);
  assert.equal(pod.status?.phase, 'Pending');
  const deployment = await apps.readNamespacedDeployment({ namespace, name: 'unconfigured' });
  assert.equal(deployment.status?.availableReplicas ?? 0, 0);
  assert.equal(
    (await core.listNamespacedPod({ namespace })).items.length,
    1,
    'a waiting Pod is not replaced over and over',
  );
});

test('a Deployment whose worker keeps failing is restarted with backoff and shows the failure', async (t) => {
  const namespace = await testNamespace(t, 'crash');
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const body = sampleDeployment({
    namespace,
    name: 'crashing',
    replicas: 1,
    deploymentName: uniqueName('crash'),
    buildId: 'b1',
    taskQueue: uniqueName('q'),
  });
  const namespaceVariable = body.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'TEMPORAL_NAMESPACE');
  assert.ok(namespaceVariable);
  namespaceVariable.value = 'no-such-namespace';
  await apps.createNamespacedDeployment({ namespace, body });

  const pod = await eventually('the Pod to be restarted twice', async () => {
    const pods = (await core.listNamespacedPod({ namespace })).items;
    return pods.find((p: V1Pod) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2);
  });
  const container = pod.status?.containerStatuses?.[0];
  assert.equal(container?.state?.waiting?.reason, 'CrashLoopBackOff');
  assert.match(container?.lastState?.terminated?.message ?? '', /no-such-namespace/);
  assert.equal(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
  assert.equal(
    (await core.listNamespacedPod({ namespace })).items.length,
    1,
    'the same Pod restarts; it is not replaced',
  );
});
