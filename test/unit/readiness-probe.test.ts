import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ProbeSpecError, watchReadiness } from '../../dev/node-agent/readiness-probe.ts';

test('Ready after a passing probe, not Ready after failureThreshold failures in a row, Ready again after a pass', async (t) => {
  let status = 200;
  const server = createServer((req, res) => res.writeHead(req.url === '/readyz' ? status : 404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const probe = { httpGet: { path: '/readyz', port: 'healthz' }, periodSeconds: 1, failureThreshold: 2 };
  const container = { name: 'c', ports: [{ name: 'healthz', containerPort: port }] };
  const seen: boolean[] = [];
  const stop = new AbortController();
  const changed = (count: number) =>
    new Promise<void>((resolve) => {
      const check = setInterval(() => seen.length >= count && (clearInterval(check), resolve()), 20);
    });
  const watching = watchReadiness(probe, container, '127.0.0.1', stop.signal, (ready) => seen.push(ready));
  await changed(1);
  status = 503;
  const failedAt = Date.now();
  await changed(2);
  assert.ok(Date.now() - failedAt >= 1000, 'one failure is not enough');
  status = 200;
  await changed(3);
  stop.abort();
  await watching;
  assert.deepEqual(seen, [true, false, true]);
});

test('a port name the container does not have, or a probe kind not supported, is a ProbeSpecError naming it', async () => {
  const stop = new AbortController();
  const run = (probe: object) => watchReadiness(probe, { name: 'c' }, '127.0.0.1', stop.signal, () => {});
  await assert.rejects(run({ httpGet: { port: 'metrics' } }), (error: unknown) => {
    return error instanceof ProbeSpecError && /container c has no port named metrics/.test(error.message);
  });
  await assert.rejects(run({ exec: { command: ['true'] } }), {
    name: 'ProbeSpecError',
    message: /only httpGet and tcpSocket/,
  });
});
