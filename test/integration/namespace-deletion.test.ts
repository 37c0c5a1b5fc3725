import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, kubeConfig, uniqueName } from '../support/environment.ts';
import { sampleDeployment } from '../support/sample-deployment.ts';

test('deleting a namespace removes its contents and then the namespace (namespace controller)', async () => {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const namespace = uniqueName('gone');
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' }, data: { a: '1' } } });
  await apps.createNamespacedDeployment({
    namespace,
    body: sampleDeployment({
      namespace,
      name: 'w',
      replicas: 1,
      deploymentName: uniqueName('gone'),
      buildId: 'b1',
      taskQueue: uniqueName('q'),
    }),
  });
  await eventually('the Pod to be Ready', async () => {
    const pods = (await core.listNamespacedPod({ namespace })).items;
    return pods.some((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      ? true
      : undefined;
  });

  await core.deleteNamespace({ name: namespace });
  // Until it is gone, its conditions say what the namespace controller waits on (an aggregated API
  // it cannot discover, content it cannot delete), and a timeout repeats them.
  await eventually(
    'the namespace to be gone',
    async () => {
      let stuck: string;
      try {
        const conditions = (await core.readNamespace({ name: namespace })).status?.conditions ?? [];
        stuck = JSON.stringify(conditions.filter((c) => c.status === 'True').map((c) => `${c.type}: ${c.message}`));
      } catch (error) {
        assert.equal((error as { code?: number }).code, 404, String(error));
        return true;
      }
      throw new Error(`still there, its conditions say ${stuck}`);
    },
    90_000,
  );
});
