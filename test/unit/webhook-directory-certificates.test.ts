// The webhook's certificate from a directory (cert-manager's or a user's Secret, mounted): served
// at start, and a renewal written into the directory is handed on without a restart.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../src/runtime/logger.ts';
import { issueAuthority, issueServing, type KeyPair } from '../../src/webhook/certificate-issuer.ts';
import { directoryCertificates } from '../../src/webhook/serving-certificates.ts';

async function pair(): Promise<KeyPair> {
  const now = Date.now();
  return issueServing(await issueAuthority(now, 60_000), ['webhook.system.svc'], now, 60_000);
}

async function place(dir: string, { cert, key }: KeyPair): Promise<void> {
  await writeFile(path.join(dir, 'tls.crt'), cert);
  await writeFile(path.join(dir, 'tls.key'), key);
}

test("a directory's pair is served first, and a renewed pair is handed on once both files are written", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'twc-certs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [first, renewed] = [await pair(), await pair()];
  await place(dir, first);
  const certificates = directoryCertificates(dir, silentLogger, 20);
  t.after(() => certificates.stop());
  const handed: KeyPair[] = [];
  assert.deepEqual(await certificates.start((next) => handed.push(next)), first);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(handed, [], 'nothing changed, nothing handed on');
  // The certificate first, the key a moment later: a mismatched pair is never handed on.
  await writeFile(path.join(dir, 'tls.crt'), renewed.cert);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(handed, [], 'a certificate without its key is not handed on');
  await writeFile(path.join(dir, 'tls.key'), renewed.key);
  const deadline = Date.now() + 5000;
  while (handed.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(handed, [renewed]);
});

test('a directory without the pair fails at start, naming the file', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'twc-certs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await assert.rejects(
    directoryCertificates(dir, silentLogger).start(() => {}),
    /tls\.crt/,
  );
});
