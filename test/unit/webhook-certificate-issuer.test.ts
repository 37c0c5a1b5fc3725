// The webhook's own certificates (certificate-issuer.ts), as a TLS client that trusts only the CA
// judges them: a handshake by each name the serving certificate was made for, and none by another.
import * as asn1js from 'asn1js';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { connect, createServer } from 'node:tls';
import {
  serialNumber,
  certificatesOf,
  hostsOf,
  issueAuthority,
  issueServing,
  validityOf,
} from '../../src/webhook/certificate-issuer.ts';
import { AUTHORITY_LIFETIMES, BACKDATE_MS } from '../../src/webhook/certificate-policy.ts';

const HOUR = 3_600_000;

function handshake(port: number, servername: string, ca: string, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, servername, ca }, () => {
      socket.end();
      resolve('ok');
    });
    socket.on('error', (error: Error) => resolve(error.message));
  });
}

test('a serving certificate its CA signed is accepted by each of its names, and only by them', async (t) => {
  const now = Date.now();
  const authority = await issueAuthority(now, HOUR);
  const serving = await issueServing(authority, ['webhook.system.svc', '127.0.0.1', '::1'], now, HOUR);
  const server = createServer(serving, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;

  assert.equal(await handshake(port, 'webhook.system.svc', authority.cert), 'ok');
  assert.match(await handshake(port, 'webhook.other.svc', authority.cert), /does not match certificate's altnames/);
  const stranger = await issueAuthority(now, HOUR);
  assert.match(await handshake(port, 'webhook.system.svc', stranger.cert), /unable to verify/);
  // A caBundle of two CAs, the old one first, trusts what either signed.
  assert.equal(await handshake(port, 'webhook.system.svc', stranger.cert + authority.cert), 'ok');

  const cert = new X509Certificate(serving.cert);
  assert.deepEqual(hostsOf(cert), ['webhook.system.svc', '127.0.0.1', '::1']);
  assert.equal(cert.ca, false);
  assert.equal(new X509Certificate(authority.cert).ca, true);
});

test('validity: backdated a minute; a CA lives four serving lifetimes; a serving certificate never outlives its CA', async () => {
  const now = Math.floor(Date.now() / 1000) * 1000; // certificates keep whole seconds
  const authority = await issueAuthority(now, HOUR);
  assert.deepEqual(validityOf(new X509Certificate(authority.cert)), {
    notBefore: now - BACKDATE_MS,
    notAfter: now + AUTHORITY_LIFETIMES * HOUR,
  });
  const late = now + 3 * HOUR;
  const serving = await issueServing(authority, ['webhook.system.svc'], late, 2 * HOUR);
  assert.deepEqual(validityOf(new X509Certificate(serving.cert)), {
    notBefore: late - BACKDATE_MS,
    notAfter: now + AUTHORITY_LIFETIMES * HOUR,
  });
});

test('a bundle is read back certificate by certificate, in order', async () => {
  const [first, second] = [await issueAuthority(Date.now(), HOUR), await issueAuthority(Date.now(), HOUR)];
  const read = certificatesOf(`${first.cert}\n${second.cert}`);
  assert.deepEqual(
    read.map((certificate) => certificate.fingerprint256),
    [first.cert, second.cert].map((pem) => new X509Certificate(pem).fingerprint256),
  );
  assert.deepEqual(certificatesOf(''), []);
});

test('a serial number is positive and minimally encoded, whatever the random bytes', () => {
  for (const first of [0x00, 0x01, 0x3f, 0x7f, 0x80, 0xff]) {
    const serial = serialNumber(new Uint8Array([first, 0x05, 0xaa]));
    assert.ok(serial[0]! >= 0x40 && serial[0]! < 0x80, `first byte ${first}: ${serial[0]}`);
    assert.deepEqual([...serial.slice(1)], [0x05, 0xaa], 'the rest as drawn');
  }
  // The bytes that gave "illegal padding" once in a while: read back by node:crypto now.
  const random = new Uint8Array(16).fill(0x11);
  random[0] = 0x00;
  const der = new asn1js.Integer({ valueHex: serialNumber(random) }).toBER();
  assert.notEqual(new Uint8Array(der)[2], 0x00, 'no leading zero byte');
});
