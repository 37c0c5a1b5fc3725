// The worker library builds on its own (its tsconfig, into dist/ as `npm pack` would) and what it
// publishes imports nothing of the controller.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const PACKAGE = path.join(import.meta.dirname, '../../packages/worker');
const TSC = path.join(import.meta.dirname, '../../node_modules/typescript/bin/tsc');

test('the worker library builds alone; its JavaScript imports only Node, the Temporal SDK and itself', async (t) => {
  const dist = path.join(PACKAGE, 'dist');
  t.after(() => rm(dist, { recursive: true, force: true }));
  await promisify(execFile)(process.execPath, [TSC, '-p', PACKAGE]);
  const manifest = JSON.parse(await readFile(path.join(PACKAGE, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string; types: string }>;
  };
  for (const entry of Object.values(manifest.exports)) {
    for (const file of [entry.default, entry.types])
      assert.ok((await readdir(path.dirname(path.join(PACKAGE, file)))).includes(path.basename(file)), file);
  }
  const built = (await import(path.join(dist, 'index.js'))) as Record<string, unknown>;
  assert.equal(typeof built.runWorker, 'function');
  assert.equal(typeof built.replayGateActivities, 'function');
  for (const file of (await readdir(dist)).filter((f) => f.endsWith('.js'))) {
    const source = await readFile(path.join(dist, file), 'utf8');
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1] ?? '');
    for (const specifier of imports)
      assert.match(specifier, /^(node:|@temporalio\/|\.\/[\w-]+\.js$)/, `${file} imports ${specifier}`);
  }
});
