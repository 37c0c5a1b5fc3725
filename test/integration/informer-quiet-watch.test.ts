// A quiet informer keeps its one watch open against the real API server: client-node's Watch ended
// a watch that received nothing for 30 s, and each new watch cost an idle controller a request
// (issue 11, item 7). Past the informer's own silence limit (2 min), only the API server's
// bookmarks keep it open.
import type { V1ConfigMap } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SelfHealingInformer } from '../../src/runtime/informer.ts';
import { Metrics } from '../../src/runtime/metrics.ts';
import { kubernetesApi, testNamespace } from '../support/environment.ts';

test('an informer with nothing to report makes one watch request in 130 s, not one every 30 s', async (t) => {
  const namespace = await testNamespace(t, 'quiet-watch');
  const metrics = new Metrics();
  const informer = new SelfHealingInformer<V1ConfigMap>({
    api: kubernetesApi(t, { count: metrics.countKubernetesRequest }),
    path: `/api/v1/namespaces/${namespace}/configmaps`,
    onEvent: () => {},
  });
  t.after(() => informer.stop());
  await informer.start();
  await new Promise((resolve) => setTimeout(resolve, 130_000));

  const watches = (await metrics.registry.getSingleMetric('twc_kubernetes_requests_total')?.get())?.values.filter(
    (v) => v.labels.verb === 'watch' && v.labels.resource === 'configmaps',
  );
  assert.deepEqual(
    watches?.map((v) => [v.labels.code, v.value]),
    [['200', 1]],
  );
});
