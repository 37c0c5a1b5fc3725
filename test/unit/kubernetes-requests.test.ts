import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { countedKubeConfig, requestLabels } from '../../src/runtime/kubernetes-requests.ts';
import { FakeTimers } from '../support/fake-timers.ts';

test('requests are labelled with the API server verb and resource', () => {
  const server = 'https://127.0.0.1:6443';
  const cases: [method: string, path: string, verb: string, resource: string][] = [
    ['GET', '/apis/apps/v1/namespaces/ns/deployments', 'list', 'deployments'],
    ['GET', '/apis/apps/v1/deployments?labelSelector=temporal.io%2Fbuild-id', 'list', 'deployments'],
    ['GET', '/apis/apps/v1/namespaces/ns/deployments?watch=true&resourceVersion=5', 'watch', 'deployments'],
    ['GET', '/apis/apps/v1/namespaces/ns/deployments/web', 'get', 'deployments'],
    ['POST', '/apis/apps/v1/namespaces/ns/deployments', 'create', 'deployments'],
    ['PATCH', '/apis/apps/v1/namespaces/ns/deployments/web/scale', 'patch', 'deployments/scale'],
    ['DELETE', '/apis/apps/v1/namespaces/ns/deployments/web', 'delete', 'deployments'],
    ['DELETE', '/apis/apps/v1/namespaces/ns/deployments', 'deletecollection', 'deployments'],
    [
      'PUT',
      '/apis/temporal.io/v1alpha1/namespaces/ns/temporalworkerdeployments/w/status',
      'update',
      'temporalworkerdeployments/status',
    ],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l', 'update', 'leases'],
    ['GET', '/api/v1/namespaces/ns/secrets/s', 'get', 'secrets'],
    ['GET', '/api/v1/namespaces', 'list', 'namespaces'],
    ['GET', '/api/v1/namespaces/ns', 'get', 'namespaces'],
    ['PUT', '/api/v1/namespaces/ns/finalize', 'update', 'namespaces/finalize'],
    ['GET', '/api/v1/nodes/n1', 'get', 'nodes'],
    ['GET', '/k8s/clusters/c-1/api/v1/pods', 'list', 'pods'],
    ['GET', '/version', 'get', ''],
  ];
  for (const [method, path, verb, resource] of cases) {
    assert.deepEqual(requestLabels(method, server + path), { verb, resource }, `${method} ${path}`);
  }
});

/** A local HTTP server answering every request with a Namespace, and a kubeconfig pointing at it. */
async function namespaceServer(
  t: TestContext,
): Promise<{ kubeconfig: KubeConfig; connections: () => number; requests: () => number }> {
  let connections = 0;
  let requests = 0;
  const server = createServer((_request, response) => {
    requests++;
    response
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } }));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromOptions({
    clusters: [
      { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
    ],
    users: [{ name: 'u', token: 'token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return { kubeconfig, connections: () => connections, requests: () => requests };
}

test('the API clients of a counted kubeconfig keep one connection open across requests, as client-go does', async (t) => {
  const { kubeconfig, connections } = await namespaceServer(t);
  const counted = countedKubeConfig(kubeconfig, () => {});
  const [core, apps] = [counted.makeApiClient(CoreV1Api), counted.makeApiClient(AppsV1Api)];
  for (let i = 0; i < 3; i++) {
    await core.readNamespace({ name: 'ns' });
    await apps.getAPIResources();
  }
  // Six requests: one connection each before; a request sent as the previous one ends may open a
  // second while undici puts the first back in its pool.
  assert.ok(connections() <= 2, `${connections()} connections for 6 requests`);
});

test('with a rate, requests beyond the burst wait for their tokens (--kube-api-qps, --kube-api-burst)', async (t) => {
  const { kubeconfig, requests } = await namespaceServer(t);
  const timers = new FakeTimers();
  const core = countedKubeConfig(kubeconfig, () => {}, { perSecond: 2, burst: 2 }, timers).makeApiClient(CoreV1Api);
  const sent = Promise.all(Array.from({ length: 5 }, () => core.readNamespace({ name: 'ns' })));
  const served = async (n: number) => {
    for (let i = 0; i < 200 && requests() < n; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    return requests();
  };
  assert.equal(await served(2), 2, 'the burst goes at once');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(requests(), 2, 'the rest wait while the clock stands still');
  await timers.advance(500);
  assert.equal(await served(3), 3, 'one more after half a second at 2 per second');
  await timers.advance(1000);
  assert.equal(await served(5), 5, 'the last two a second later');
  await sent;
});
