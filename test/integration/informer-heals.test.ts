// The informer keeps its cache current across a lost connection to the real API server.
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SelfHealingInformer } from '../../src/runtime/informer.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import type { ClusterAccess } from '../../src/runtime/kube/cluster-access.ts';
import { jsonLogger } from '../../src/runtime/logger.ts';
import { clusterAccess, eventually, kubeConfig, testNamespace } from '../support/environment.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

test('after the connection is cut and restored, the informer watches again from where it was and sees what changed meanwhile', async (t) => {
  const namespace = await testNamespace(t, 'informer');
  const direct = clusterAccess();
  const server = new URL(direct.server);
  const proxy = new TcpProxy({ host: server.hostname, port: Number(server.port) });
  await proxy.listen();
  t.after(() => proxy.cut());

  const viaProxy: ClusterAccess = {
    server: `https://127.0.0.1:${proxy.port}`,
    source: 'the test proxy',
    credentials: () => direct.credentials(),
  };
  const api = new KubernetesApi({ access: viaProxy });
  t.after(() => api.close());
  const events: string[] = [];
  const failures: string[] = [];
  const informer = new SelfHealingInformer<V1ConfigMap>({
    api,
    path: `/api/v1/namespaces/${namespace}/configmaps`,
    onEvent: (event, object) => events.push(`${event} ${object.metadata?.name}`),
    log: jsonLogger('warn', { write: (line) => failures.push(line) }),
    backoff: { initialMs: 200, maxMs: 2000 },
  });
  t.after(() => informer.stop());
  const core = kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'before' } } });
  await informer.start();
  assert.ok(informer.synced);
  assert.ok(informer.get(namespace, 'before'), 'the first list is in the cache');

  await proxy.cut();
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'during' } } });
  await core.deleteNamespacedConfigMap({ namespace, name: 'before' });
  await eventually(
    'the informer to notice the failure',
    () => Promise.resolve(failures.length > 0 ? true : undefined),
    30_000,
  );
  await proxy.listen();

  await eventually(
    'the cache to catch up',
    () => Promise.resolve(informer.get(namespace, 'during') && !informer.get(namespace, 'before') ? true : undefined),
    30_000,
  );
  assert.ok(events.includes('add during'), `events: ${events.join(', ')}`);
  assert.ok(events.includes('delete before'), `events: ${events.join(', ')}`);
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'after' } } });
  await eventually(
    'events to flow again',
    () => Promise.resolve(events.includes('add after') ? true : undefined),
    30_000,
  );
});
