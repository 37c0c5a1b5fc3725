// The chaos run's network faults: the proxy delays every byte both ways in order, and a client
// whose upstream is refused is closed rather than left hanging.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { freePort } from '../../dev/localenv/ports.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

test('a slowed proxy passes every byte on later, both ways, in order', async (t) => {
  const echo = createServer((socket) => socket.pipe(socket));
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  t.after(() => echo.close());
  const address = echo.address();
  assert.ok(typeof address === 'object' && address);
  const proxy = new TcpProxy({ host: '127.0.0.1', port: address.port });
  await proxy.listen();
  t.after(() => proxy.cut());
  proxy.delayMs = 150;

  const client = createConnection({ host: '127.0.0.1', port: proxy.port });
  await once(client, 'connect');
  let received = '';
  client.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const sent = performance.now();
  for (const part of ['one ', 'two ', 'three']) client.write(part);
  while (received.length < 'one two three'.length) await new Promise((resolve) => setTimeout(resolve, 10));
  const took = performance.now() - sent;
  assert.equal(received, 'one two three');
  assert.ok(took >= 290, `there and back, ${took.toFixed(0)} ms`);

  proxy.delayMs = 0;
  const again = performance.now();
  client.write('!');
  while (!received.endsWith('!')) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(performance.now() - again < 100, 'no longer slowed');
  client.destroy();
});

test('a client whose upstream refuses the connection is closed, not left hanging', async (t) => {
  const proxy = new TcpProxy({ host: '127.0.0.1', port: await freePort() });
  await proxy.listen();
  t.after(() => proxy.cut());
  const client: Socket = createConnection({ host: '127.0.0.1', port: proxy.port });
  client.on('error', () => {});
  const closed = once(client, 'close');
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('still open after 2 s')), 2000));
  await Promise.race([closed, timeout]);
});
