// Throwaway certificates made with the openssl CLI: a CA, a server certificate for one DNS name,
// a client certificate it signed, and a client certificate of another CA that nobody trusts.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { promisify } from 'node:util';

const run = promisify(execFile);
const OPENSSL = 'openssl';

export interface KeyPair {
  cert: string;
  key: string;
}

export interface TestCertificates {
  ca: string;
  server: KeyPair;
  client: KeyPair;
  /** Signed by a CA of its own, which the server does not trust. */
  strangerClient: KeyPair;
}

export async function makeCertificates(t: TestContext, serverName: string): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'twc-certs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await authority(dir, 'ca');
  const stranger = await authority(dir, 'stranger-ca');
  return {
    ca: await readFile(join(dir, 'ca.crt'), 'utf8'),
    server: await leaf(
      dir,
      ca,
      'server',
      serverName,
      `subjectAltName=${isIP(serverName) ? 'IP' : 'DNS'}:${serverName}\nextendedKeyUsage=serverAuth`,
    ),
    client: await leaf(dir, ca, 'client', 'twc-controller', 'extendedKeyUsage=clientAuth'),
    strangerClient: await leaf(dir, stranger, 'stranger', 'twc-controller', 'extendedKeyUsage=clientAuth'),
  };
}

/**
 * Makes this process trust `ca` as NODE_EXTRA_CA_CERTS would at start: the controller verifies
 * servers without a CA of their own against Node's default store.
 */
export function trustProcessWide(ca: string): void {
  setDefaultCACertificates([...getCACertificates('default'), ca]);
}

/** Returns the base path of the CA's .crt and .key. */
async function authority(dir: string, name: string): Promise<string> {
  const base = join(dir, name);
  await run(OPENSSL, ['req', '-x509', ...newKey(base), '-out', `${base}.crt`, '-days', '1', '-subj', `/CN=${name}`]);
  return base;
}

async function leaf(dir: string, ca: string, name: string, commonName: string, extensions: string): Promise<KeyPair> {
  const base = join(dir, name);
  await writeFile(`${base}.ext`, `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n${extensions}\n`);
  await run(OPENSSL, ['req', ...newKey(base), '-out', `${base}.csr`, '-subj', `/CN=${commonName}`]);
  await run(OPENSSL, [
    'x509',
    '-req',
    '-in',
    `${base}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-set_serial',
    String(Date.now()),
    '-days',
    '1',
    '-extfile',
    `${base}.ext`,
    '-out',
    `${base}.crt`,
  ]);
  return { cert: await readFile(`${base}.crt`, 'utf8'), key: await readFile(`${base}.key`, 'utf8') };
}

function newKey(base: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${base}.key`];
}
