import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { followApiKeyFile } from '../../packages/worker/src/index.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a renewed token file reaches the connection once per change, and following stops when the file goes', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'twc-api-key-file-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'token');
  await writeFile(file, 'first\n');
  const set: string[] = [];
  const errors: unknown[] = [];
  const stop = followApiKeyFile({ setApiKey: (key) => void set.push(key) }, file, 'first', (e) => errors.push(e), 10);
  t.after(stop);
  await tick(50);
  assert.deepEqual(set, [], 'the key in use is not set again');
  await writeFile(file, 'second\n');
  await tick(50);
  assert.deepEqual(set, ['second']);
  await rm(file);
  await tick(50);
  await writeFile(file, 'third');
  await tick(50);
  assert.deepEqual(set, ['second'], 'a file that went is no longer followed');
  assert.deepEqual(errors, []);
});
