import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { stringify } from 'yaml';
import {
  defaultClusterAccess,
  inClusterAccess,
  KubeconfigError,
  kubeconfigAccess,
  type ExecRunner,
} from '../../src/runtime/kube/cluster-access.ts';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n';
const base64 = (text: string) => Buffer.from(text).toString('base64');

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'twc-access-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A kubeconfig with one context `ctx` joining cluster `c` and user `admin`, written to dir/config. */
function kubeconfig(
  dir: string,
  cluster: object,
  user: object,
  more: { contexts?: object[]; clusters?: object[]; users?: object[]; current?: string } = {},
): string {
  const file = path.join(dir, 'config');
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': more.current ?? 'ctx',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', ...cluster } }, ...(more.clusters ?? [])],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'admin' } }, ...(more.contexts ?? [])],
    users: [{ name: 'admin', user }, ...(more.users ?? [])],
  };
  writeFileSync(file, stringify(doc));
  return file;
}

/** A clock the test moves. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

async function rejectsWith(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: Error) => {
    assert.ok(error instanceof KubeconfigError, `a KubeconfigError, not ${error.name}: ${error.message}`);
    assert.equal(error.name, 'KubeconfigError');
    assert.match(error.message, message);
    return true;
  });
}

function throwsWith(load: () => unknown, message: RegExp): KubeconfigError {
  let thrown: unknown;
  assert.throws(load, (error: Error) => {
    thrown = error;
    assert.ok(error instanceof KubeconfigError, `a KubeconfigError, not ${error.name}: ${error.message}`);
    assert.match(error.message, message);
    return true;
  });
  return thrown as KubeconfigError;
}

test('a token user: the server without its trailing slash but with its path prefix, and a Bearer header', async (t) => {
  const file = kubeconfig(tempDir(t), { server: 'https://example.com:8443/k8s/clusters/c-1/' }, { token: 'abc' });
  const access = kubeconfigAccess({ file });
  assert.equal(access.server, 'https://example.com:8443/k8s/clusters/c-1');
  assert.equal(access.source, `kubeconfig ${file} (context "ctx")`);
  assert.deepEqual(await access.credentials(), { tls: { rejectUnauthorized: true }, authorization: 'Bearer abc' });
});

test('a tokenFile (relative to the kubeconfig) is read again only when older than refreshMs', async (t) => {
  const dir = tempDir(t);
  writeFileSync(path.join(dir, 'token'), 'first\n');
  const time = clock();
  const access = kubeconfigAccess({ file: kubeconfig(dir, {}, { tokenFile: 'token' }), ...time, refreshMs: 1000 });
  const first = await access.credentials();
  assert.equal(first.authorization, 'Bearer first', 'trimmed');
  writeFileSync(path.join(dir, 'token'), 'second');
  time.advance(1000);
  assert.equal(await access.credentials(), first, 'not yet stale: the same object');
  time.advance(1);
  const second = await access.credentials();
  assert.equal(second.authorization, 'Bearer second');
  time.advance(1001);
  assert.equal(await access.credentials(), second, 'read again unchanged: still the same object');
});

test('the default refresh is a minute', async (t) => {
  const dir = tempDir(t);
  writeFileSync(path.join(dir, 'token'), 'first');
  const time = clock();
  const access = kubeconfigAccess({ file: kubeconfig(dir, {}, { tokenFile: 'token' }), ...time });
  writeFileSync(path.join(dir, 'token'), 'second');
  time.advance(60_000);
  assert.equal((await access.credentials()).authorization, 'Bearer first');
  time.advance(1);
  assert.equal((await access.credentials()).authorization, 'Bearer second');
});

test('certificate and key data are base64 PEM; with a client certificate there is no Authorization', async (t) => {
  const file = kubeconfig(
    tempDir(t),
    { 'certificate-authority-data': base64(CA), 'tls-server-name': 'kubernetes' },
    { 'client-certificate-data': base64(CERT), 'client-key-data': base64(KEY) },
  );
  assert.deepEqual(await kubeconfigAccess({ file }).credentials(), {
    tls: { ca: CA, cert: CERT, key: KEY, rejectUnauthorized: true, servername: 'kubernetes' },
  });
});

test('certificate paths are relative to the kubeconfig directory, and a rotated certificate is read again', async (t) => {
  const dir = tempDir(t);
  mkdirSync(path.join(dir, 'pki'));
  writeFileSync(path.join(dir, 'pki', 'ca.crt'), CA);
  writeFileSync(path.join(dir, 'pki', 'client.crt'), CERT);
  writeFileSync(path.join(dir, 'client.key'), KEY);
  const file = kubeconfig(
    dir,
    { 'certificate-authority': 'pki/ca.crt' },
    { 'client-certificate': 'pki/client.crt', 'client-key': path.join(dir, 'client.key') },
  );
  const time = clock();
  const access = kubeconfigAccess({ file: path.relative(process.cwd(), file), ...time, refreshMs: 10 });
  assert.deepEqual(await access.credentials(), { tls: { ca: CA, cert: CERT, key: KEY, rejectUnauthorized: true } });
  const renewed = CERT.replace('client', 'renewed');
  writeFileSync(path.join(dir, 'pki', 'client.crt'), renewed);
  time.advance(11);
  assert.equal((await access.credentials()).tls.cert, renewed);
});

test('insecure-skip-tls-verify turns verification off', async (t) => {
  const file = kubeconfig(tempDir(t), { 'insecure-skip-tls-verify': true }, { token: 'abc' });
  assert.deepEqual((await kubeconfigAccess({ file }).credentials()).tls, { rejectUnauthorized: false });
});

test('a chosen context wins over current-context', async (t) => {
  const file = kubeconfig(
    tempDir(t),
    {},
    { token: 'abc' },
    {
      clusters: [{ name: 'other', cluster: { server: 'http://10.0.0.1:8080' } }],
      users: [{ name: 'viewer', user: { username: 'view', password: 'secret' } }],
      contexts: [{ name: 'second', context: { cluster: 'other', user: 'viewer' } }],
    },
  );
  assert.equal(kubeconfigAccess({ file }).server, 'https://127.0.0.1:6443');
  const access = kubeconfigAccess({ file, context: 'second' });
  assert.equal(access.server, 'http://10.0.0.1:8080');
  assert.equal(access.source, `kubeconfig ${file} (context "second")`);
  assert.equal((await access.credentials()).authorization, `Basic ${base64('view:secret')}`);
});

test('a context without a user is anonymous', async (t) => {
  const file = kubeconfig(
    tempDir(t),
    {},
    {},
    { contexts: [{ name: 'anonymous', context: { cluster: 'c' } }], current: 'anonymous' },
  );
  assert.deepEqual(await kubeconfigAccess({ file }).credentials(), { tls: { rejectUnauthorized: true } });
});

test('every kubeconfig error names the file and what is wrong', (t) => {
  const dir = tempDir(t);
  const at = (file: string) => `kubeconfig ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
  const missing = path.join(dir, 'missing');
  const error = throwsWith(
    () => kubeconfigAccess({ file: missing }),
    new RegExp(`^${at(missing)}: cannot read it: ENOENT`),
  );
  assert.equal((error.cause as NodeJS.ErrnoException).code, 'ENOENT');

  const cases: [cluster: object, user: object, more: Parameters<typeof kubeconfig>[3], context: string, RegExp][] = [
    [{}, {}, {}, 'nope', /: context "nope" not found$/],
    [{}, {}, { current: '' }, '', /: no context given and no current-context set$/],
    [
      {},
      {},
      { contexts: [{ name: 'x', context: { cluster: 'gone' } }] },
      'x',
      /: context "x": cluster "gone" not found$/,
    ],
    [
      {},
      {},
      { contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }] },
      'x',
      /: context "x": user "u" not found$/,
    ],
    [{}, {}, { contexts: [{ name: 'x', context: { user: 'admin' } }] }, 'x', /: context "x": names no cluster$/],
    [{ server: '' }, {}, {}, 'ctx', /: cluster "c": no server$/],
    [
      { server: '127.0.0.1:6443' },
      {},
      {},
      'ctx',
      /: cluster "c": server "127.0.0.1:6443" is not an https:\/\/ or http:\/\/ URL$/,
    ],
    [
      { 'certificate-authority': 'ca.crt' },
      {},
      {},
      'ctx',
      /: cluster "c": cannot read certificate-authority \/.*\/ca\.crt: ENOENT/,
    ],
    [{ 'certificate-authority-data': CA }, {}, {}, 'ctx', /: cluster "c": certificate-authority-data is not base64$/],
    [
      { 'certificate-authority-data': base64('x') },
      {},
      {},
      'ctx',
      /: cluster "c": certificate-authority-data does not hold PEM text$/,
    ],
    [
      { 'insecure-skip-tls-verify': true, 'certificate-authority-data': base64(CA) },
      {},
      {},
      'ctx',
      /: cluster "c": insecure-skip-tls-verify cannot be combined with a certificate-authority$/,
    ],
    [
      { 'insecure-skip-tls-verify': 'yes' },
      {},
      {},
      'ctx',
      /: cluster "c": insecure-skip-tls-verify is not true or false$/,
    ],
    [{ 'proxy-url': 'http://proxy:3128' }, {}, {}, 'ctx', /: cluster "c": proxy-url is not supported$/],
    [
      {},
      { 'client-certificate-data': base64(CERT) },
      {},
      'ctx',
      /: user "admin": client-certificate without a client-key$/,
    ],
    [{}, { 'client-key-data': base64(KEY) }, {}, 'ctx', /: user "admin": client-key without a client-certificate$/],
    [{}, { token: 'abc', username: 'u', password: 'p' }, {}, 'ctx', /: user "admin": both a token and a username/],
    [{}, { tokenFile: 'nothing' }, {}, 'ctx', /: user "admin": cannot read tokenFile \/.*\/nothing: ENOENT/],
    [{}, { token: 42 }, {}, 'ctx', /: user "admin": token is not a string$/],
    [{}, { as: 'someone' }, {}, 'ctx', /: user "admin": as \(impersonation\) is not supported$/],
    [
      {},
      { exec: { apiVersion: 'client.authentication.k8s.io/v1alpha1', command: 'x' } },
      {},
      'ctx',
      /: user "admin": exec apiVersion client.authentication.k8s.io\/v1alpha1 is not one of/,
    ],
    [
      {},
      { exec: { apiVersion: 'client.authentication.k8s.io/v1' } },
      {},
      'ctx',
      /: user "admin": exec has no command$/,
    ],
    [
      {},
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'x', interactiveMode: 'Always' } },
      {},
      'ctx',
      /: user "admin": exec interactiveMode Always needs a terminal/,
    ],
    [
      {},
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'x', env: [{ name: 'A' }] } },
      {},
      'ctx',
      /: user "admin": exec env entries need a name and a string value$/,
    ],
  ];
  for (const [cluster, user, more, context, message] of cases) {
    const file = kubeconfig(dir, cluster, user, more);
    throwsWith(
      () => kubeconfigAccess({ file, ...(context ? { context } : {}) }),
      new RegExp(`^${at(file)}${message.source}`),
    );
  }
});

test('an unreadable key names the file, the user and the field, with the cause', (t) => {
  const dir = tempDir(t);
  writeFileSync(path.join(dir, 'client.crt'), CERT);
  const file = kubeconfig(dir, {}, { 'client-certificate': 'client.crt', 'client-key': 'client.key' });
  const error = throwsWith(() => kubeconfigAccess({ file }), /./);
  assert.match(
    error.message,
    new RegExp(`^kubeconfig ${file}: user "admin": cannot read client-key ${path.join(dir, 'client.key')}: ENOENT`),
  );
  assert.equal((error.cause as NodeJS.ErrnoException).code, 'ENOENT');
});

test('a file that disappears after the start fails credentials() until it is back', async (t) => {
  const dir = tempDir(t);
  const tokenFile = path.join(dir, 'token');
  writeFileSync(tokenFile, 'abc');
  const time = clock();
  const access = kubeconfigAccess({ file: kubeconfig(dir, {}, { tokenFile }), ...time, refreshMs: 10 });
  unlinkSync(tokenFile);
  assert.equal((await access.credentials()).authorization, 'Bearer abc', 'not stale yet');
  time.advance(11);
  await rejectsWith(access.credentials(), new RegExp(`user "admin": cannot read tokenFile ${tokenFile}: ENOENT`));
  writeFileSync(tokenFile, '');
  await rejectsWith(access.credentials(), new RegExp(`user "admin": tokenFile ${tokenFile} is empty$`));
  writeFileSync(tokenFile, 'def');
  assert.equal((await access.credentials()).authorization, 'Bearer def');
});

test('auth-provider is refused with a pointer to exec plugins', (t) => {
  const file = kubeconfig(tempDir(t), {}, { 'auth-provider': { name: 'gcp', config: {} } });
  throwsWith(
    () => kubeconfigAccess({ file }),
    /: user "admin": auth-provider "gcp" is no longer supported .*use an exec plugin/,
  );
});

const EXEC_V1 = 'client.authentication.k8s.io/v1';
const execCredential = (status: object, apiVersion = EXEC_V1) =>
  JSON.stringify({ apiVersion, kind: 'ExecCredential', status });

/** A runner answering from `answer` and recording its calls. */
function fakeRunner(answer: (call: number) => string | Error) {
  const calls: { command: string; args: readonly string[]; env: NodeJS.ProcessEnv }[] = [];
  const run: ExecRunner = (command, args, env) => {
    calls.push({ command, args, env });
    const result = answer(calls.length);
    return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
  };
  return { run, calls };
}

test('an exec credential is reused until its expirationTimestamp, then the plugin runs again', async (t) => {
  const time = clock(Date.parse('2030-01-01T00:00:00Z'));
  const runner = fakeRunner((call) =>
    execCredential({ token: `t${call}`, expirationTimestamp: new Date(time.now() + 60_000).toISOString() }),
  );
  const user = {
    exec: {
      apiVersion: EXEC_V1,
      command: 'bin/plugin',
      args: ['get-token', '--cluster', 'c'],
      env: [{ name: 'PLUGIN_MODE', value: 'test' }],
      interactiveMode: 'Never',
    },
  };
  const dir = tempDir(t);
  const access = kubeconfigAccess({ file: kubeconfig(dir, {}, user), ...time, run: runner.run });
  assert.equal(runner.calls.length, 0, 'not run before the first request');
  const [first, second] = await Promise.all([access.credentials(), access.credentials()]);
  assert.equal(runner.calls.length, 1, 'concurrent requests share one run');
  assert.equal(first.authorization, 'Bearer t1');
  assert.equal(second, first);
  const call = runner.calls[0]!;
  assert.equal(call.command, path.join(dir, 'bin/plugin'), 'a command with a slash is relative to the kubeconfig');
  assert.deepEqual(call.args, ['get-token', '--cluster', 'c']);
  assert.equal(call.env.PLUGIN_MODE, 'test');
  assert.equal(call.env.PATH, process.env.PATH, 'the environment is inherited');
  assert.deepEqual(JSON.parse(call.env.KUBERNETES_EXEC_INFO!), {
    apiVersion: EXEC_V1,
    kind: 'ExecCredential',
    spec: { interactive: false },
  });
  time.advance(60_000);
  assert.equal((await access.credentials()).authorization, 'Bearer t1', 'still valid at its expiry');
  assert.equal(runner.calls.length, 1);
  time.advance(1);
  assert.equal((await access.credentials()).authorization, 'Bearer t2');
  assert.equal(runner.calls.length, 2);
});

test('an exec credential without expirationTimestamp is kept forever; a client certificate from it replaces the header', async (t) => {
  const time = clock();
  const runner = fakeRunner(() =>
    execCredential({ clientCertificateData: CERT, clientKeyData: KEY }, 'client.authentication.k8s.io/v1beta1'),
  );
  const user = {
    exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'plugin', env: null, args: null },
  };
  const access = kubeconfigAccess({ file: kubeconfig(tempDir(t), {}, user), ...time, run: runner.run });
  assert.deepEqual(await access.credentials(), { tls: { cert: CERT, key: KEY, rejectUnauthorized: true } });
  time.advance(365 * 24 * 3600_000);
  await access.credentials();
  assert.equal(runner.calls.length, 1);
  assert.equal(runner.calls[0]!.command, 'plugin', 'a bare name is looked up in PATH');
});

test('provideClusterInfo passes the cluster to the plugin', async (t) => {
  const runner = fakeRunner(() => execCredential({ token: 't' }));
  const file = kubeconfig(
    tempDir(t),
    {
      'certificate-authority-data': base64(CA),
      'tls-server-name': 'kubernetes',
      extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'x' } }],
    },
    { exec: { apiVersion: EXEC_V1, command: 'plugin', provideClusterInfo: true } },
  );
  await kubeconfigAccess({ file, run: runner.run }).credentials();
  assert.deepEqual((JSON.parse(runner.calls[0]!.env.KUBERNETES_EXEC_INFO!) as { spec: unknown }).spec, {
    interactive: false,
    cluster: {
      server: 'https://127.0.0.1:6443',
      'tls-server-name': 'kubernetes',
      'certificate-authority-data': base64(CA),
      config: { audience: 'x' },
    },
  });
});

test('a static credential wins over the exec plugin, as in client-go', async (t) => {
  const runner = fakeRunner(() => execCredential({ token: 'from-plugin' }));
  const file = kubeconfig(tempDir(t), {}, { token: 'static', exec: { apiVersion: EXEC_V1, command: 'plugin' } });
  assert.equal((await kubeconfigAccess({ file, run: runner.run }).credentials()).authorization, 'Bearer static');
  assert.equal(runner.calls.length, 0);
});

test('a failing or wrong plugin rejects credentials() naming the user and the command; a failure is not kept', async (t) => {
  const dir = tempDir(t);
  const user = { exec: { apiVersion: EXEC_V1, command: 'plugin', installHint: 'install it with brew install plugin' } };
  const file = kubeconfig(dir, {}, user);
  const answers: (string | Error)[] = [
    Object.assign(new Error('spawn plugin ENOENT'), { code: 'ENOENT' }),
    new Error('exited with 1: login required'),
    'not json',
    execCredential({ token: 't' }, 'client.authentication.k8s.io/v1beta1'),
    JSON.stringify({ apiVersion: EXEC_V1, kind: 'ExecCredential' }),
    execCredential({}),
    execCredential({ clientCertificateData: CERT }),
    execCredential({ token: 't', expirationTimestamp: 'soon' }),
    execCredential({ token: 'finally' }),
  ];
  const runner = fakeRunner((call) => answers[call - 1]!);
  const access = kubeconfigAccess({ file, run: runner.run });
  const at = `^kubeconfig ${file}: user "admin": exec plugin plugin: `;
  for (const message of [
    'not found\ninstall it with brew install plugin$',
    'exited with 1: login required$',
    'printed no JSON ExecCredential',
    `printed client.authentication.k8s.io/v1beta1 ExecCredential, not an ExecCredential of ${EXEC_V1}$`,
    'printed an ExecCredential without status$',
    'returned neither a token nor a client certificate$',
    'returned only one of clientCertificateData and clientKeyData$',
    'expirationTimestamp "soon" is not a time$',
  ]) {
    await rejectsWith(access.credentials(), new RegExp(at + message));
  }
  assert.equal((await access.credentials()).authorization, 'Bearer finally');
  assert.equal(runner.calls.length, answers.length);
});

test("a plugin's malformed output puts no fragment of it into the error, its message or its cause", async (t) => {
  const token = 'eyJhbGciOiJSUzI1NiJ9.secret-part';
  const truncated = `{"apiVersion":"${EXEC_V1}","kind":"ExecCredential","status":{"token":${token}`;
  const runner = fakeRunner(() => truncated);
  const file = kubeconfig(tempDir(t), {}, { exec: { apiVersion: EXEC_V1, command: 'plugin' } });
  const error = await kubeconfigAccess({ file, run: runner.run })
    .credentials()
    .then(
      () => assert.fail('a malformed credential was accepted'),
      (rejected: unknown) => rejected as Error,
    );
  assert.match(error.message, /printed no JSON ExecCredential \(\d+ bytes of output\)$/);
  const everything = JSON.stringify({ message: error.message, stack: error.stack, cause: String(error.cause) });
  for (const fragment of ['eyJhbGciOi', 'secret-part', 'token']) assert.ok(!everything.includes(fragment), fragment);
});

test('a real plugin: a script next to the kubeconfig, run with the exec environment', async (t) => {
  const dir = tempDir(t);
  mkdirSync(path.join(dir, 'bin'));
  const script = path.join(dir, 'bin', 'plugin.sh');
  // Echoes the apiVersion it was asked for (from KUBERNETES_EXEC_INFO) and a token made of its argument and env.
  writeFileSync(
    script,
    `#!/bin/sh
if [ "$1" = fail ]; then echo "no session, run login" >&2; exit 3; fi
api=$(printf '%s' "$KUBERNETES_EXEC_INFO" | sed 's/.*"apiVersion":"\\([^"]*\\)".*/\\1/')
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s-%s"}}' "$api" "$1" "$TOKEN_SUFFIX"
`,
  );
  chmodSync(script, 0o755);
  const exec = (arg: string) => ({
    apiVersion: EXEC_V1,
    command: './bin/plugin.sh',
    args: [arg],
    env: [{ name: 'TOKEN_SUFFIX', value: 'xyz' }],
  });
  const good = kubeconfigAccess({ file: kubeconfig(dir, {}, { exec: exec('real') }) });
  assert.equal((await good.credentials()).authorization, 'Bearer real-xyz');
  const bad = kubeconfigAccess({ file: kubeconfig(dir, {}, { exec: exec('fail') }) });
  await rejectsWith(
    bad.credentials(),
    /user "admin": exec plugin .*\/bin\/plugin\.sh: exited with 3: no session, run login$/,
  );
  const missing = kubeconfigAccess({
    file: kubeconfig(dir, {}, { exec: { ...exec('x'), command: 'twc-no-such-plugin', installHint: 'see the docs' } }),
  });
  await rejectsWith(missing.credentials(), /exec plugin twc-no-such-plugin: not found\nsee the docs$/);
});

test('in-cluster: the service host and port, the CA and a token read again when stale', async (t) => {
  const root = tempDir(t);
  writeFileSync(path.join(root, 'ca.crt'), CA);
  writeFileSync(path.join(root, 'token'), 'sa-1\n');
  const time = clock();
  const access = inClusterAccess({
    root,
    env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
    ...time,
    refreshMs: 100,
  });
  assert.equal(access.server, 'https://[fd00::1]:443');
  assert.equal(access.source, 'in-cluster');
  assert.deepEqual(await access.credentials(), {
    tls: { ca: CA, rejectUnauthorized: true },
    authorization: 'Bearer sa-1',
  });
  writeFileSync(path.join(root, 'token'), 'sa-2\n');
  time.advance(100);
  assert.equal((await access.credentials()).authorization, 'Bearer sa-1');
  time.advance(1);
  assert.equal((await access.credentials()).authorization, 'Bearer sa-2');

  const v4 = inClusterAccess({ root, env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' } });
  assert.equal(v4.server, 'https://10.96.0.1:443');
});

test('in-cluster errors name what is missing', (t) => {
  const root = tempDir(t);
  const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
  throwsWith(
    () => inClusterAccess({ root, env: {} }),
    /^in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/,
  );
  throwsWith(
    () => inClusterAccess({ root, env }),
    new RegExp(`^in-cluster: cannot read certificate-authority ${root}/ca.crt: ENOENT`),
  );
  writeFileSync(path.join(root, 'ca.crt'), CA);
  throwsWith(() => inClusterAccess({ root, env }), new RegExp(`^in-cluster: cannot read token ${root}/token: ENOENT`));
});

test('default access: the first existing KUBECONFIG file, else ~/.kube/config, else in-cluster, else an error naming all three', (t) => {
  const dir = tempDir(t);
  const home = path.join(dir, 'home');
  mkdirSync(path.join(home, '.kube'), { recursive: true });
  const root = path.join(dir, 'sa');
  mkdirSync(root);
  writeFileSync(path.join(root, 'ca.crt'), CA);
  writeFileSync(path.join(root, 'token'), 'sa');
  const inCluster = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const listed = kubeconfig(dir, { server: 'https://listed:6443' }, { token: 'a' });
  const homeFile = path.join(home, '.kube', 'config');
  writeFileSync(
    homeFile,
    stringify({
      'current-context': 'h',
      clusters: [{ name: 'h', cluster: { server: 'https://home:6443' } }],
      contexts: [{ name: 'h', context: { cluster: 'h' } }],
    }),
  );
  const missing = path.join(dir, 'missing');
  const access = (env: NodeJS.ProcessEnv) => defaultClusterAccess({ env, home, root });

  const fromList = access({ KUBECONFIG: [missing, listed].join(path.delimiter), ...inCluster });
  assert.equal(fromList.server, 'https://listed:6443');
  assert.equal(fromList.source, `kubeconfig ${listed} (context "ctx")`);
  assert.equal(access({ ...inCluster }).server, 'https://home:6443');
  assert.equal(
    access({ KUBECONFIG: missing, ...inCluster }).source,
    'in-cluster',
    'a set KUBECONFIG hides ~/.kube/config',
  );
  rmSync(homeFile);
  assert.equal(access(inCluster).source, 'in-cluster');
  throwsWith(
    () => access({}),
    new RegExp(`KUBECONFIG is not set and ${homeFile} does not exist, and KUBERNETES_SERVICE_HOST/PORT are not set`),
  );
  throwsWith(() => access({ KUBECONFIG: missing }), new RegExp(`no file of KUBECONFIG=${missing} exists`));
});
