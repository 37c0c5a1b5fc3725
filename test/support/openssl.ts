// Throwaway certificates for tests, made with the openssl CLI: a CA and the leaves it signs (a
// server's, for one DNS name or IP address, or a client's), for the TLS fronts and clients.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const OPENSSL = 'openssl';

export interface KeyPair {
  cert: string;
  key: string;
}

/** Makes a CA in `dir` (its `<name>.crt` and `.key`); resolves with the base path of both. */
export async function authority(dir: string, name: string): Promise<string> {
  const base = join(dir, name);
  await run(OPENSSL, ['req', '-x509', ...newKey(base), '-out', `${base}.crt`, '-days', '1', '-subj', `/CN=${name}`]);
  return base;
}

/** A server certificate for `host` (a DNS name or an IP address) signed by the CA at `ca`. */
export function serverLeaf(dir: string, ca: string, name: string, host: string): Promise<KeyPair> {
  const altName = `${isIP(host) ? 'IP' : 'DNS'}:${host}`;
  return leaf(dir, ca, name, host, `subjectAltName=${altName}\nextendedKeyUsage=serverAuth`);
}

/** A client certificate of `commonName` signed by the CA at `ca`. */
export function clientLeaf(dir: string, ca: string, name: string, commonName: string): Promise<KeyPair> {
  return leaf(dir, ca, name, commonName, 'extendedKeyUsage=clientAuth');
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
