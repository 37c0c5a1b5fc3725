// Who may read /metrics (or the dashboard): the bearer token authenticated by a TokenReview, its
// user authorized by a SubjectAccessReview; the Kubernetes API is a recording stand-in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearerAccess } from '../../src/runtime/bearer-access.ts';
import type { KubernetesApi } from '../../src/runtime/kube/api-client.ts';

const METRICS = { nonResourceAttributes: { path: '/metrics', verb: 'get' } };
const GET_METRICS = [METRICS];

/** Tokens the API server knows, by user; users allowed the attributes. */
function apiServer(users: Record<string, string>, allowed: string[]) {
  const asked: { kind: string; spec: Record<string, unknown> }[] = [];
  const api = {
    create: (_path: string, body: { kind: string; spec: Record<string, unknown> }) => {
      asked.push(body);
      if (body.kind === 'TokenReview') {
        const username = users[body.spec.token as string];
        return Promise.resolve({
          status: username ? { authenticated: true, user: { username, groups: ['g'] } } : { authenticated: false },
        });
      }
      return Promise.resolve({ status: { allowed: allowed.includes(body.spec.user as string) } });
    },
  } as unknown as KubernetesApi;
  return { api, asked };
}

test('no bearer token, or one the API server does not accept: 401; a user not allowed: 403, named', async () => {
  const { api } = apiServer({ 'jane-token': 'jane' }, []);
  const access = bearerAccess(api, GET_METRICS);
  assert.deepEqual(await access({}), {
    allowed: false,
    status: 401,
    message: 'a bearer token is required (Authorization: Bearer)',
  });
  assert.deepEqual(await access({ authorization: 'Basic abc' }), {
    allowed: false,
    status: 401,
    message: 'a bearer token is required (Authorization: Bearer)',
  });
  assert.equal((await access({ authorization: 'Bearer forged' })).allowed, false);
  assert.deepEqual(await access({ authorization: 'Bearer jane-token' }), {
    allowed: false,
    status: 403,
    message: 'jane may not get /metrics',
  });
});

test('an allowed user is asked for the attributes of the endpoint, then taken as allowed for a minute', async () => {
  const { api, asked } = apiServer({ 'prom-token': 'prometheus' }, ['prometheus']);
  let now = 0;
  const access = bearerAccess(api, GET_METRICS, () => now);
  assert.deepEqual(await access({ authorization: 'Bearer prom-token' }), { allowed: true });
  assert.deepEqual(asked, [
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'prom-token' } },
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'prometheus', uid: undefined, groups: ['g'], extra: undefined, ...METRICS },
    },
  ]);
  now = 59_000;
  await access({ authorization: 'Bearer prom-token' });
  assert.equal(asked.length, 2, 'within the minute: not asked again');
  now = 61_000;
  await access({ authorization: 'Bearer prom-token' });
  assert.equal(asked.length, 4, 'after it: asked again');
});

test('an API server that cannot be asked gives 503, never access', async () => {
  const api = { create: () => Promise.reject(new Error('connection refused')) } as unknown as KubernetesApi;
  assert.deepEqual(await bearerAccess(api, GET_METRICS)({ authorization: 'Bearer t' }), {
    allowed: false,
    status: 503,
    message: 'cannot check the bearer token: connection refused',
  });
});
