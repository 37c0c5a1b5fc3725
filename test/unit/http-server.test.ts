import assert from 'node:assert/strict';
import { get as httpsGet } from 'node:https';
import { connect } from 'node:net';
import { test } from 'node:test';
import { Counter, Registry } from 'prom-client';
import type { BearerAccess } from '../../src/runtime/bearer-access.ts';
import { healthz, metrics, parseBindAddress, readyz, serve } from '../../src/runtime/http-server.ts';
import { makeCertificates } from '../support/certificates.ts';

test('bind addresses are read as controller-runtime flags write them', () => {
  const cases: [string, ReturnType<typeof parseBindAddress>][] = [
    [':8080', { port: 8080 }],
    ['0.0.0.0:8081', { host: '0.0.0.0', port: 8081 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['localhost:9090', { host: 'localhost', port: 9090 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['0', undefined],
  ];
  for (const [value, expected] of cases) assert.deepEqual(parseBindAddress(value), expected, value);
  for (const value of ['8080', ':', ':65536', 'host:port', '::1:8080', ''])
    assert.throws(() => parseBindAddress(value), /not a bind address/, value);
});

test('the server answers its routes, 503 with the reason when not ready, and 404 elsewhere', async (t) => {
  const registry = new Registry();
  new Counter({ name: 'twc_test_total', help: 'a test counter', registers: [registry] }).inc(3);
  let notReady: string | undefined = 'informers not synced';
  const server = await serve(
    { host: '127.0.0.1', port: 0 },
    { '/healthz': healthz, '/readyz': readyz(() => notReady), '/metrics': metrics(registry) },
  );
  t.after(() => server.close());
  const get = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return { status: response.status, body: await response.text(), type: response.headers.get('content-type') };
  };
  assert.deepEqual(await get('/healthz'), { status: 200, body: 'ok\n', type: 'text/plain; charset=utf-8' });
  assert.deepEqual(await get('/readyz'), {
    status: 503,
    body: 'informers not synced\n',
    type: 'text/plain; charset=utf-8',
  });
  notReady = undefined;
  assert.equal((await get('/readyz?verbose')).status, 200);
  const scraped = await get('/metrics');
  assert.match(scraped.body, /^twc_test_total 3$/m);
  assert.equal(scraped.type, registry.contentType);
  assert.equal((await get('/other')).status, 404);
});

test('/metrics with name[] serves only the metrics named, and collects no other', async (t) => {
  const registry = new Registry();
  new Counter({ name: 'twc_a_total', help: 'a', registers: [registry] }).inc(1);
  new Counter({ name: 'twc_b_total', help: 'b', registers: [registry] }).inc(2);
  let collected = 0;
  new Counter({
    name: 'twc_gauge_like_total',
    help: 'collected at each scrape that includes it',
    registers: [registry],
    collect: () => void collected++,
  });
  const server = await serve({ host: '127.0.0.1', port: 0 }, { '/metrics': metrics(registry) });
  t.after(() => server.close());
  const scrape = async (query: string) => (await fetch(`http://127.0.0.1:${server.port}/metrics${query}`)).text();
  const some = await scrape('?name[]=twc_b_total&name[]=twc_a_total&name[]=twc_none&name[]=twc_a_total');
  assert.equal(
    some,
    '# HELP twc_b_total b\n# TYPE twc_b_total counter\ntwc_b_total 2\n\n# HELP twc_a_total a\n# TYPE twc_a_total counter\ntwc_a_total 1\n',
    'in the order named, each once, as a whole scrape writes them',
  );
  assert.equal(collected, 0, 'a metric not named is not collected');
  const all = await scrape('');
  assert.match(all, /^twc_a_total 1$/m);
  assert.match(all, /^twc_gauge_like_total 0$/m);
  assert.equal(collected, 1);
  assert.equal(await scrape('?name[]=twc_none'), '', 'nothing named that exists: nothing');
});

test('a whole scrape is the text prom-client makes, collected and written a metric at a time', async (t) => {
  const registry = new Registry();
  const collected: string[] = [];
  for (const name of ['twc_a_total', 'twc_b_total', 'twc_c_total'])
    new Counter({ name, help: name, registers: [registry], collect: () => void collected.push(name) }).inc(2);
  const route = metrics(registry);
  const { body } = await route(new URLSearchParams());
  assert.notEqual(typeof body, 'string');
  let begun = 0;
  for await (const part of body) {
    if (part.trimStart().startsWith('# HELP')) begun++;
    assert.equal(collected.length, begun, 'each metric collected as its turn comes');
  }
  assert.equal(begun, 3);
  const server = await serve({ host: '127.0.0.1', port: 0 }, { '/metrics': route });
  t.after(() => server.close());
  const scraped = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
  assert.equal(scraped, await registry.metrics());
});

test('a metric whose collection fails cuts the scrape off: the client sees it broken, not short', async (t) => {
  const registry = new Registry();
  new Counter({ name: 'twc_a_total', help: 'a', registers: [registry] }).inc();
  new Counter({
    name: 'twc_broken_total',
    help: 'its collection throws',
    registers: [registry],
    collect: () => {
      throw new Error('cannot collect');
    },
  });
  const server = await serve({ host: '127.0.0.1', port: 0 }, { '/metrics': metrics(registry), '/healthz': healthz });
  t.after(() => server.close());
  await assert.rejects(async () => (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text());
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status, 200, 'the server goes on');
});

test('a taken port fails the start', async (t) => {
  const first = await serve({ host: '127.0.0.1', port: 0 }, {});
  t.after(() => first.close());
  await assert.rejects(serve({ host: '127.0.0.1', port: first.port }, {}), /EADDRINUSE/);
});

test('a request target that is no URL is answered 404, and the process goes on serving', async (t) => {
  const server = await serve({ host: '127.0.0.1', port: 0 }, { '/healthz': healthz });
  t.after(() => server.close());
  const statusLine = await new Promise<string>((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write('GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.once('data', (data: Buffer) => resolve(data.toString('latin1').split('\r\n')[0] ?? ''));
    socket.once('error', reject);
    t.after(() => socket.destroy());
  });
  assert.equal(statusLine, 'HTTP/1.1 404 Not Found');
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status, 200);
});

test('protected, /metrics is served over HTTPS to an allowed bearer token only', async (t) => {
  const certificates = await makeCertificates(t, 'localhost');
  const registry = new Registry();
  new Counter({ name: 'twc_test_total', help: 'a test counter', registers: [registry] }).inc();
  const access: BearerAccess = (headers) =>
    Promise.resolve(
      headers.authorization === 'Bearer allowed'
        ? { allowed: true }
        : { allowed: false, status: 401, message: 'a bearer token is required (Authorization: Bearer)' },
    );
  const server = await serve(
    { host: '127.0.0.1', port: 0 },
    { '/metrics': metrics(registry) },
    {
      tls: certificates.server,
      access,
    },
  );
  t.after(() => server.close());
  const scrape = (authorization?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = httpsGet(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/metrics',
          ca: certificates.ca,
          servername: 'localhost',
          headers: authorization ? { authorization } : {},
        },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      sent.on('error', reject);
    });
  const refused = await scrape();
  assert.deepEqual(refused, { status: 401, body: 'a bearer token is required (Authorization: Bearer)\n' });
  assert.equal((await scrape('Bearer other')).status, 401);
  const served = await scrape('Bearer allowed');
  assert.equal(served.status, 200);
  assert.match(served.body, /twc_test_total 1/);
});
