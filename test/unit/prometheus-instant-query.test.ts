// The Prometheus adapter against a loopback HTTP server that answers as Prometheus's API does: the
// request it sends, each shape of answer, and what it refuses.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { instantQuery, PrometheusQueryError } from '../../src/prometheus/instant-query.ts';

interface Seen {
  method?: string;
  url?: string;
  authorization?: string;
  body: string;
}

/** A server answering every request with `status` and `body`; what it received goes into the list returned. */
async function prometheus(t: TestContext, status: number, body: unknown, headers: Record<string, string> = {}) {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      seen.push({
        method: request.method,
        url: request.url,
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
        body: text,
      });
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/prom`, seen };
}

const at = new Date('2026-11-28T12:00:00.500Z');
const vector = (...values: string[]) => ({
  status: 'success',
  data: { resultType: 'vector', result: values.map((v, i) => ({ metric: { i: String(i) }, value: [1, v] })) },
});

test('one query is a POST of the query and its time to /api/v1/query, with the bearer token when given', async (t) => {
  const server = await prometheus(t, 200, vector('0.25'));
  const answer = await instantQuery({
    url: server.url,
    query: 'sum(up{a="b"})',
    at,
    bearerToken: 't0k',
    timeoutMs: 5000,
  });
  assert.deepEqual(answer, { value: 0.25 });
  assert.deepEqual(server.seen, [
    {
      method: 'POST',
      url: '/prom/api/v1/query',
      authorization: 'Bearer t0k',
      body: new URLSearchParams({ query: 'sum(up{a="b"})', time: '1795867200.5' }).toString(),
    },
  ]);
  await instantQuery({ url: server.url, query: 'up', at, timeoutMs: 5000 });
  assert.equal(server.seen[1]?.authorization, undefined, 'no token: no Authorization header');
});

test('answers: a scalar, one series, infinities; no series and NaN are no sample', async (t) => {
  const cases: [unknown, unknown][] = [
    [{ status: 'success', data: { resultType: 'scalar', result: [1, '3'] } }, { value: 3 }],
    [vector('+Inf'), { value: Infinity }],
    [vector('-Inf'), { value: -Infinity }],
    [vector(), { noSample: 'no series' }],
    [vector('NaN'), { noSample: 'NaN' }],
  ];
  for (const [body, expected] of cases) {
    const server = await prometheus(t, 200, body);
    assert.deepEqual(await instantQuery({ url: server.url, query: 'q', at, timeoutMs: 5000 }), expected);
  }
});

test('refusals name what came back: several series, another result type, an error, a redirect, not JSON, no answer', async (t) => {
  const cases: [number, unknown, RegExp, Record<string, string>?][] = [
    [200, vector('1', '2'), /answered 2 series; it must answer one \(aggregate them/],
    [
      200,
      { status: 'success', data: { resultType: 'matrix', result: [] } },
      /answered a matrix result, not one number/,
    ],
    [
      400,
      { status: 'error', errorType: 'bad_data', error: 'parse error at char 4' },
      /HTTP 400: bad_data: parse error at char 4/,
    ],
    [302, '', /HTTP 302, not a Prometheus answer/, { location: 'http://elsewhere.example/' }],
    [401, 'Unauthorized', /HTTP 401, not a Prometheus answer: Unauthorized/],
    [200, vector('twelve'), /a sample that is not a number: twelve/],
  ];
  for (const [status, body, refusal, headers] of cases) {
    const server = await prometheus(t, status, body, headers);
    await assert.rejects(instantQuery({ url: server.url, query: 'q', at, timeoutMs: 5000 }), (error: Error) => {
      assert.ok(error instanceof PrometheusQueryError, error.name);
      assert.match(error.message, refusal);
      return true;
    });
    assert.equal(server.seen.length, 1, 'a redirect is not followed');
  }
  await assert.rejects(
    instantQuery({ url: 'http://127.0.0.1:1', query: 'q', at, timeoutMs: 5000 }),
    (error: Error) =>
      error instanceof PrometheusQueryError && /^no answer: /.test(error.message) && error.cause !== undefined,
  );
});
