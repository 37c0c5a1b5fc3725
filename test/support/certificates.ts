// Throwaway certificates for a test (openssl.ts makes them): a CA, a server
// certificate for one DNS name or IP address, two client certificates it signed, and a client
// certificate of another CA that nobody trusts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { authority, clientLeaf, type KeyPair, serverLeaf } from './openssl.ts';

export type { KeyPair };

export interface TestCertificates {
  ca: string;
  server: KeyPair;
  /** Common name twc-controller. */
  client: KeyPair;
  /** Of the same CA, common name twc-worker: the workers' own. */
  workerClient: KeyPair;
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
    server: await serverLeaf(dir, ca, 'server', serverName),
    client: await clientLeaf(dir, ca, 'client', 'twc-controller'),
    workerClient: await clientLeaf(dir, ca, 'worker-client', 'twc-worker'),
    strangerClient: await clientLeaf(dir, stranger, 'stranger', 'twc-controller'),
  };
}

/**
 * Makes this process trust `ca` as NODE_EXTRA_CA_CERTS would at start: the controller verifies
 * servers without a CA of their own against Node's default store.
 */
export function trustProcessWide(ca: string): void {
  setDefaultCACertificates([...getCACertificates('default'), ca]);
}
