// TLS files rotated in place are noticed once; files read the same, or gone for a moment, are not.
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { watchFiles } from '../../packages/worker/src/index.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a changed file is told once; the same content, or a file gone, is no change', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'twc-watch-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [crt, key] = [path.join(dir, 'tls.crt'), path.join(dir, 'tls.key')];
  await writeFile(crt, 'CERT-1');
  await writeFile(key, 'KEY-1');
  let told = 0;
  const stop = watchFiles([crt, key], () => told++, 20);
  t.after(stop);
  await pause(100);
  // Rewritten whole, as the kubelet swaps a Secret volume's files: a file truncated in place can be
  // read empty in between, which is a change (the unit suite caught that once under load).
  await writeFile(`${crt}.new`, 'CERT-1');
  await rename(`${crt}.new`, crt);
  await rm(key);
  await pause(100);
  assert.equal(told, 0, 'the same content, and a file missing for a while');
  await writeFile(key, 'KEY-2');
  // A loaded machine can hold the timers back: the first change is waited for, not timed.
  for (let waited = 0; told === 0 && waited < 5_000; waited += 20) await pause(20);
  await writeFile(crt, 'CERT-2');
  await pause(100);
  assert.equal(told, 1, 'told at the first change, and no more');
});
