import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestLabels } from '../../src/runtime/kubernetes-requests.ts';

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
