// The CLI's bundle (scripts/bundle.ts), as the image runs it: from a folder with no node_modules
// above it, it prints its version and help, loads the chunks of `twc status` and of the pretty
// logger, and carries the files the sources read beside them.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { bundleCli } from '../../scripts/bundle.ts';
import { bundleCommand } from '../../scripts/image/build.ts';

const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  version: string;
};
/** A cluster that refuses every connection. */
const UNREACHABLE_KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: c, user: u, namespace: twc}}]
current-context: c
users: [{name: u, user: {token: t}}]
`;

test('the bundle runs without node_modules', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'twc-bundle-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bundle = path.join(dir, 'bundle');
  await bundleCli(bundle);
  for (let folder = dir; folder !== path.dirname(folder); folder = path.dirname(folder))
    assert.ok(!existsSync(path.join(folder, 'node_modules')), `no node_modules in ${folder}`);
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, UNREACHABLE_KUBECONFIG);
  const [node = '', ...args] = bundleCommand(process.execPath, bundle);
  const options = { cwd: dir, env: { PATH: process.env.PATH ?? '' } };
  const twc = (...more: string[]) => run(node, [...args, ...more], options);

  assert.equal((await twc('--version')).stdout.trim(), version);
  assert.match((await twc('--help')).stdout, /^ {2}run \[options\] +run the controller$/m);
  const status = await twc('status', `--kubeconfig=${kubeconfig}`).then(
    () => assert.fail('status reached a cluster that refuses connections'),
    (error: { stderr: string }) => error.stderr,
  );
  assert.match(status, /^twc status: cannot list .*ECONNREFUSED/m);

  const controller = spawn(
    node,
    [
      ...args,
      'run',
      `--kubeconfig=${kubeconfig}`,
      '--log-format=pretty',
      ...['metrics', 'health-probe', 'webhook'].map((endpoint) => `--${endpoint}-bind-address=127.0.0.1:0`),
    ],
    { ...options, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  t.after(() => controller.kill());
  const firstLine = await new Promise<string>((resolve) => {
    let text = '';
    controller.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    });
    controller.on('exit', () => resolve(text));
  });
  assert.match(firstLine, /^\[[\d:.]+\] INFO: serving /, 'pino-pretty, from its chunk');

  const cli = path.dirname(args.at(-1) ?? '');
  for (const file of ['protocol.json', 'assets/index.html', 'assets/app.js', 'assets/style.css'])
    assert.ok(existsSync(path.join(cli, file)), `${file} beside the bundle, where the sources read it`);
});
