// The controller process loads only what it uses (issue 11, item 7): client-node's generated API
// alone took about 80 MiB, the SDK's client with the protobuf root of Temporal's whole API about
// 50, grpc-js about 10, and the worker SDK carries a native core. A type-only import loads nothing; this catches one that stopped being
// type-only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.join(import.meta.dirname, '../..');
const NOT_IN_THE_CONTROLLER = [
  '@kubernetes/client-node',
  '@temporalio/proto/protos/',
  '@temporalio/client',
  '@grpc/grpc-js',
  '@temporalio/worker',
  '@temporalio/core-bridge',
  '@swc/',
];

// Records every module the process resolves and prints the list as it exits.
const RECORD_IMPORTS = `data:text/javascript,
import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r; } });
process.on('exit', () => process.stderr.write(JSON.stringify([...seen])));`;

test("twc loads neither client-node, nor Temporal's SDK or its root of the whole API, nor grpc-js", () => {
  // --version loads every static import of the command before it answers.
  const { status, stderr } = spawnSync(
    process.execPath,
    ['--no-warnings', '--import', RECORD_IMPORTS, path.join(ROOT, 'src/cli/main.ts'), '--version'],
    { encoding: 'utf8' },
  );
  assert.equal(status, 0, stderr);
  const loaded = JSON.parse(stderr) as string[];
  assert.ok(
    loaded.some((url) => url.includes('/src/controller/controller.ts')),
    'the controller itself was loaded',
  );
  assert.ok(
    loaded.some((url) => url.includes('/node_modules/protobufjs/')),
    'and its dependencies',
  );
  const unwanted = loaded.filter((url) => NOT_IN_THE_CONTROLLER.some((name) => url.includes(`/node_modules/${name}`)));
  assert.deepEqual(unwanted, []);
});
