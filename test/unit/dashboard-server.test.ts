// The dashboard's server: requests not made for it are refused (Host, Origin); when a bearer
// token is required, the page loads for anyone and the data goes to an allowed token only, sent
// as a header or in the page's cookie; no request target ends the process.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { test, type TestContext } from 'node:test';
import { serveDashboard } from '../../src/cli/dashboard/server.ts';
import type { BearerAccess } from '../../src/runtime/bearer-access.ts';

const source = { views: () => [], onChange: () => () => {} };

async function dashboard(t: TestContext, access?: BearerAccess) {
  const served = await serveDashboard(source, { address: '127.0.0.1', port: 0 }, access ? { access } : {});
  t.after(() => served.close());
  const port = Number(new URL(served.url).port);
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const sent = httpRequest({ host: '127.0.0.1', port, path, headers }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      sent.on('error', reject);
      sent.end();
    });
  return { port, get };
}

test('a Host the dashboard does not serve (DNS rebinding) and an Origin of another site are refused', async (t) => {
  const { get } = await dashboard(t);
  assert.equal(await get('/api/worker-deployments'), 200);
  assert.equal(await get('/api/worker-deployments', { host: 'attacker.example:8090' }), 403);
  assert.equal(await get('/', { host: 'attacker.example' }), 403, 'the page too');
  assert.equal(await get('/api/worker-deployments', { origin: 'https://attacker.example' }), 403);
});

test('with a token required, the page loads for anyone; the data only for an allowed token, as a header or a cookie', async (t) => {
  const access: BearerAccess = (headers) =>
    Promise.resolve(
      headers.authorization === 'Bearer good'
        ? { allowed: true }
        : { allowed: false, status: 401, message: 'a bearer token is required (Authorization: Bearer)' },
    );
  const { get } = await dashboard(t, access);
  assert.equal(await get('/'), 200);
  assert.equal(await get('/api/worker-deployments'), 401);
  assert.equal(await get('/api/stream', { cookie: 'twc_token=bad' }), 401);
  assert.equal(await get('/api/worker-deployments', { authorization: 'Bearer good' }), 200);
  assert.equal(await get('/api/worker-deployments', { cookie: 'other=1; twc_token=good' }), 200);
  assert.equal(
    await get('/api/worker-deployments', { cookie: 'twc_token=%E0%A4' }),
    401,
    'a malformed cookie is no token',
  );
});

test('a request target that is no URL is answered 404, and the dashboard goes on serving', async (t) => {
  const { port, get } = await dashboard(t);
  const statusLine = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('GET http://[ HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    socket.once('data', (data: Buffer) => resolve(data.toString('latin1').split('\r\n')[0] ?? ''));
    socket.once('error', reject);
    t.after(() => socket.destroy());
  });
  assert.equal(statusLine, 'HTTP/1.1 404 Not Found');
  assert.equal(await get('/api/worker-deployments'), 200);
});
