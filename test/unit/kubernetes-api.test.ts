import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import {
  errorMessage,
  httpStatus,
  KubernetesApiError,
  KubernetesUnreachableError,
  KubernetesUnreadableResponseError,
} from '../../src/runtime/kube/api-errors.ts';
import { KubernetesApi, type KubernetesApiOptions } from '../../src/runtime/kube/api-client.ts';
import type { ClusterAccess } from '../../src/runtime/kube/cluster-access.ts';
import { requestLabels } from '../../src/runtime/kube/request-labels.ts';
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

/** What a test server needs to be reached: plain HTTP, a bearer token. */
function accessTo(port: number): ClusterAccess {
  return {
    server: `http://127.0.0.1:${port}`,
    source: 'a test server',
    credentials: () => Promise.resolve({ tls: { rejectUnauthorized: true }, authorization: 'Bearer token' }),
  };
}

/** A local HTTP server answering each request as `answer` says, and a client of it. */
async function apiServer(
  t: TestContext,
  answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) =>
    response
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } })),
  options: Omit<KubernetesApiOptions, 'access'> = {},
): Promise<{ api: KubernetesApi; connections: () => number; requests: IncomingMessage[] }> {
  let connections = 0;
  const requests: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    requests.push(request);
    answer(request, response);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const api = new KubernetesApi({ access: accessTo((server.address() as AddressInfo).port), ...options });
  t.after(() => {
    api.close();
    server.closeAllConnections();
    server.close();
  });
  return { api, connections: () => connections, requests };
}

test('requests share one kept-alive connection, as client-go does', async (t) => {
  const { api, connections, requests } = await apiServer(t);
  for (let i = 0; i < 6; i++) await api.get('/api/v1/namespaces/ns');
  assert.equal(requests.length, 6);
  assert.equal(connections(), 1, `${connections()} connections for 6 requests`);
  assert.equal(requests[0]?.headers.authorization, 'Bearer token', 'the credentials travel with each request');
});

test('new TLS material (a rotated CA or certificate) opens a new connection; the same material keeps the old one', async (t) => {
  let connections = 0;
  const server = createServer((_request, response) => response.writeHead(200).end('{}'));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  let tls = { ca: 'first', rejectUnauthorized: true };
  const api = new KubernetesApi({
    access: { ...accessTo((server.address() as AddressInfo).port), credentials: () => Promise.resolve({ tls }) },
  });
  t.after(() => api.close());
  await api.get('/version');
  tls = { ...tls };
  await api.get('/version');
  assert.equal(connections, 1, 'equal material in a new object is the same');
  tls = { ca: 'rotated', rejectUnauthorized: true };
  await api.get('/version');
  assert.equal(connections, 2);
});

test('a request made as another user carries Impersonate-User alone (the API server adds a service account its groups); others carry none', async (t) => {
  const { api, requests } = await apiServer(t);
  await api.request('PATCH', '/apis/policy/v1/namespaces/ns/poddisruptionbudgets/p', {
    body: {},
    impersonate: 'system:serviceaccount:ns:copier',
  });
  await api.get('/api/v1/namespaces/ns');
  assert.deepEqual(
    requests.map((r) => Object.keys(r.headers).filter((h) => h.startsWith('impersonate'))),
    [['impersonate-user'], []],
  );
  assert.equal(requests[0]?.headers['impersonate-user'], 'system:serviceaccount:ns:copier');
  assert.equal(requests[0]?.headers.authorization, 'Bearer token', "sent with the controller's own credentials");
});

test('a body is sent as JSON, a merge patch with its own content type, and a query in the URL', async (t) => {
  const bodies: string[] = [];
  const { api, requests } = await apiServer(t, (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(body || '{}');
    });
  });
  assert.deepEqual(await api.create('/api/v1/namespaces/ns/configmaps', { data: { a: '1' } }), { data: { a: '1' } });
  await api.mergePatch('/api/v1/namespaces/ns/configmaps/c', { data: { a: '2' } });
  await api.get('/api/v1/pods', { labelSelector: 'a=b,c', watch: undefined });
  assert.deepEqual(
    requests.map((r) => `${r.method} ${r.url} ${r.headers['content-type'] ?? '-'}`),
    [
      'POST /api/v1/namespaces/ns/configmaps application/json',
      'PATCH /api/v1/namespaces/ns/configmaps/c application/merge-patch+json',
      'GET /api/v1/pods?labelSelector=a%3Db%2Cc -',
    ],
  );
  assert.deepEqual(bodies.slice(0, 2), ['{"data":{"a":"1"}}', '{"data":{"a":"2"}}']);
});

test("a refusal is a KubernetesApiError in the API server's words, with the HTTP status as its code", async (t) => {
  const { api } = await apiServer(t, (request, response) => {
    if (request.url?.endsWith('/html')) return response.writeHead(502).end('<html>bad gateway</html>');
    response.writeHead(422, { 'Content-Type': 'application/json' }).end(
      JSON.stringify({
        kind: 'Status',
        status: 'Failure',
        message: 'deployments.apps "w" is invalid: spec.replicas: Invalid value: -1',
        reason: 'Invalid',
        code: 422,
      }),
    );
  });
  const refused = await api.get('/apis/apps/v1/namespaces/ns/deployments/w').catch((error: unknown) => error);
  assert.ok(refused instanceof KubernetesApiError);
  assert.equal(refused.code, 422);
  assert.equal(refused.status?.reason, 'Invalid');
  assert.equal(errorMessage(refused), 'deployments.apps "w" is invalid: spec.replicas: Invalid value: -1 (HTTP 422)');
  assert.equal(
    errorMessage(await api.get('/api/html').catch((error: unknown) => error)),
    'GET /api/html: HTTP 502',
    'a body that is not a Status gives the request and the code',
  );
});

test('no answer is a KubernetesUnreachableError that names the request and keeps the cause', async () => {
  const closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const api = new KubernetesApi({ access: accessTo(closedPort) });
  const error = await api.delete('/api/v1/namespaces/ns/secrets/x').catch((e: unknown) => e);
  assert.ok(error instanceof KubernetesUnreachableError);
  assert.match(
    error.message,
    /^DELETE \/api\/v1\/namespaces\/ns\/secrets\/x: the Kubernetes API did not answer: connect ECONNREFUSED/,
  );
  assert.equal(httpStatus(error), undefined);
  assert.ok(error.cause instanceof Error);
});

test('a watch delivers one event per line, across chunks, and ends when the server ends it', async (t) => {
  const { api, requests } = await apiServer(t, (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MOD');
    setTimeout(() => response.end('IFIED","object":{"metadata":{"name":"a"}}}\n'), 20);
  });
  const events: string[] = [];
  const stream = await api.watch(
    '/api/v1/namespaces/ns/configmaps',
    { resourceVersion: '5' },
    (event) => events.push(`${event.type} ${(event.object as { metadata: { name: string } }).metadata.name}`),
    60_000,
  );
  await stream.ended;
  assert.deepEqual(events, ['ADDED a', 'MODIFIED a']);
  assert.equal(requests[0]?.url, '/api/v1/namespaces/ns/configmaps?resourceVersion=5&watch=true');
});

test('a watch that receives nothing within its silence limit fails as unreachable; one aborted ends quietly', async (t) => {
  const { api } = await apiServer(t, (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.write('\n');
  });
  const silent = await api.watch('/api/v1/pods', {}, () => {}, 100);
  await assert.rejects(
    silent.ended,
    (error) => error instanceof KubernetesUnreachableError && /the watch received nothing for 0.1s/.test(error.message),
  );
  const aborted = await api.watch('/api/v1/pods', {}, () => {}, 60_000);
  aborted.abort();
  await aborted.ended;
});

test('with a rate, requests beyond the burst wait for their tokens (--kube-api-qps, --kube-api-burst)', async (t) => {
  const timers = new FakeTimers();
  const { api, requests } = await apiServer(t, undefined, { rate: { perSecond: 2, burst: 2 }, timers });
  const sent = Promise.all(Array.from({ length: 5 }, () => api.get('/api/v1/namespaces/ns')));
  const served = async (n: number) => {
    for (let i = 0; i < 200 && requests.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    return requests.length;
  };
  assert.equal(await served(2), 2, 'the burst goes at once');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(requests.length, 2, 'the rest wait while the clock stands still');
  await timers.advance(500);
  assert.equal(await served(3), 3, 'one more after half a second at 2 per second');
  await timers.advance(1000);
  assert.equal(await served(5), 5, 'the last two a second later');
  await sent;
});

test('each request and each watch is counted by verb, resource and status, and by "error" when nothing answered', async (t) => {
  const counts: string[] = [];
  const { api } = await apiServer(
    t,
    (request, response) => {
      response.writeHead(request.url?.includes('/missing') ? 404 : 200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Secret', apiVersion: 'v1', metadata: { name: 'there' } }));
    },
    { count: (verb, resource, code) => counts.push(`${verb} ${resource} ${code}`) },
  );
  await api.get('/api/v1/namespaces/ns/secrets/there');
  await assert.rejects(api.get('/api/v1/namespaces/ns/secrets/missing'));
  await (
    await api.watch('/api/v1/namespaces/ns/secrets', {}, () => {}, 60_000)
  ).ended;
  await assert.rejects(api.watch('/api/v1/namespaces/ns/secrets/missing', {}, () => {}, 60_000));
  assert.deepEqual(counts, ['get secrets 200', 'get secrets 404', 'watch secrets 200', 'watch secrets 404']);
});

test('a success whose body is not JSON is refused by its length alone: the body may be a token', async (t) => {
  const token = 'eyJhbGciOiJSUzI1NiJ9.secret-part';
  const { api } = await apiServer(t, (_request, response) =>
    response.writeHead(201, { 'Content-Type': 'application/json' }).end(`{"status":{"token":"${token}`),
  );
  const error = await api.create('/api/v1/namespaces/ns/serviceaccounts/sa/token', {}).then(
    () => assert.fail('a truncated body was read'),
    (e: unknown) => e as Error,
  );
  assert.ok(error instanceof KubernetesUnreadableResponseError);
  assert.equal(
    error.message,
    `POST /api/v1/namespaces/ns/serviceaccounts/sa/token: the Kubernetes API answered with ${20 + token.length} bytes that are not JSON`,
  );
  assert.doesNotMatch(`${error.message} ${error.stack ?? ''} ${String(error.cause)}`, /secret-part|eyJhbGci/);
});
