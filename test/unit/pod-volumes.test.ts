import type { V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  mountVolumes,
  PodVolumeError,
  renewTokens,
  tokenRenewalMs,
  underMounts,
  type VolumeSources,
} from '../../dev/node-agent/pod-volumes.ts';

const bytes = (data: Record<string, string>) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v)]));
let tokensIssued = 0;
const sources: VolumeSources = {
  serviceAccountToken: (p, projection) =>
    Promise.resolve(
      `token ${++tokensIssued} of ${p.spec?.serviceAccountName ?? 'default'} for ${projection.audience ?? ''}`,
    ),
  secret: (_namespace, name) =>
    Promise.resolve(name === 'tls' ? bytes({ 'tls.crt': 'CERT', 'tls.key': 'KEY', 'ca.crt': 'CA' }) : undefined),
  configMap: (_namespace, name) =>
    Promise.resolve(name === 'settings' ? bytes({ 'app.json': '{}', other: 'x' }) : undefined),
};

function pod(volumes: object[], mounts: object[]): V1Pod {
  return {
    metadata: { namespace: 'team', name: 'p', uid: 'u' },
    spec: { volumes, containers: [{ name: 'worker', volumeMounts: mounts }] },
  } as V1Pod;
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'twc-pod-volumes-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function files(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const found = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  const contents = await Promise.all(
    found.map(async (f): Promise<[string, string]> => [path.relative(dir, f), await readFile(f, 'utf8')]),
  );
  return Object.fromEntries(contents);
}

test('a Secret volume is every key as a file; items pick keys and name their paths', async (t) => {
  const dir = await tempDir(t);
  const p = pod(
    [
      { name: 'certs', secret: { secretName: 'tls' } },
      { name: 'picked', secret: { secretName: 'tls', items: [{ key: 'ca.crt', path: 'roots/ca.pem' }] } },
    ],
    [
      { name: 'certs', mountPath: '/etc/temporal/tls' },
      { name: 'picked', mountPath: '/etc/ca' },
    ],
  );
  const mounts = await mountVolumes(p, p.spec!.containers[0]!, sources, dir);
  assert.deepEqual(await files(dir), {
    'certs/tls.crt': 'CERT',
    'certs/tls.key': 'KEY',
    'certs/ca.crt': 'CA',
    'picked/roots/ca.pem': 'CA',
  });
  assert.deepEqual(
    [...mounts],
    [
      ['/etc/temporal/tls', path.join(dir, 'certs')],
      ['/etc/ca', path.join(dir, 'picked')],
    ],
  );
});

test('a projected volume joins its Secret and ConfigMap sources; an optional missing source is empty', async (t) => {
  const dir = await tempDir(t);
  const p = pod(
    [
      {
        name: 'all',
        projected: {
          sources: [
            { secret: { name: 'tls', items: [{ key: 'tls.crt', path: 'client.crt' }] } },
            { configMap: { name: 'settings', items: [{ key: 'app.json', path: 'app.json' }] } },
            { secret: { name: 'gone', optional: true } },
          ],
        },
      },
    ],
    [{ name: 'all', mountPath: '/config' }],
  );
  await mountVolumes(p, p.spec!.containers[0]!, sources, dir);
  assert.deepEqual(await files(dir), { 'all/client.crt': 'CERT', 'all/app.json': '{}' });
});

test('a projected service-account token is the file its path names, renewed in place when due', async (t) => {
  const dir = await tempDir(t);
  const p = pod(
    [
      {
        name: 'token',
        projected: {
          sources: [
            { serviceAccountToken: { audience: 'temporal', expirationSeconds: 600, path: 'token' } },
            { serviceAccountToken: { audience: 'other', path: 'other/token' } },
          ],
        },
      },
    ],
    [{ name: 'token', mountPath: '/etc/temporal/token' }],
  );
  const container = p.spec!.containers[0]!;
  tokensIssued = 0;
  await mountVolumes(p, container, sources, dir);
  assert.deepEqual(await files(dir), {
    'token/token': 'token 1 of default for temporal',
    'token/other/token': 'token 2 of default for other',
  });
  assert.equal(tokenRenewalMs(p, container), 480_000, 'at 80% of the shortest life (600 s)');
  assert.equal(tokenRenewalMs(p, container, 3000), 3000);
  assert.equal(tokenRenewalMs(pod([], []), { name: 'worker' }), undefined, 'no token, no renewal');
  await renewTokens(p, container, sources, dir);
  assert.deepEqual(await files(dir), {
    'token/token': 'token 3 of default for temporal',
    'token/other/token': 'token 4 of default for other',
  });
});

test('a missing Secret, a missing key or an unsupported volume is a PodVolumeError naming it', async (t) => {
  const dir = await tempDir(t);
  const attempt = (volume: object) =>
    mountVolumes(
      pod([{ name: 'v', ...volume }], [{ name: 'v', mountPath: '/v' }]),
      { name: 'worker', volumeMounts: [{ name: 'v', mountPath: '/v' }] },
      sources,
      dir,
    );
  await assert.rejects(
    attempt({ secret: { secretName: 'gone' } }),
    (error: unknown) =>
      error instanceof PodVolumeError && /volume "v": Secret team\/gone not found/.test(error.message),
  );
  await assert.rejects(attempt({ secret: { secretName: 'tls', items: [{ key: 'nope', path: 'x' }] } }), {
    name: 'PodVolumeError',
    message: /Secret team\/tls has no key nope/,
  });
  await assert.rejects(attempt({ hostPath: { path: '/etc' } }), {
    name: 'PodVolumeError',
    message: /only Secret, ConfigMap, projected and emptyDir volumes/,
  });
});

test('modes as a kubelet sets them: 0644 files unless defaultMode or an item says, a writable emptyDir', async (t) => {
  const dir = await tempDir(t);
  const p = pod(
    [
      { name: 'certs', secret: { secretName: 'tls', defaultMode: 0o400, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { name: 'key', secret: { secretName: 'tls', items: [{ key: 'tls.key', path: 'tls.key', mode: 0o440 }] } },
      { name: 'settings', configMap: { name: 'settings' } },
      { name: 'scratch', emptyDir: {} },
    ],
    ['certs', 'key', 'settings', 'scratch'].map((name) => ({ name, mountPath: `/${name}` })),
  );
  await mountVolumes(p, p.spec!.containers[0]!, sources, dir);
  const mode = async (file: string) => ((await stat(path.join(dir, file))).mode & 0o777).toString(8);
  assert.equal(await mode('certs/ca.crt'), '400');
  assert.equal(await mode('key/tls.key'), '440');
  assert.equal(await mode('settings/app.json'), '644');
  assert.equal(await mode('settings'), '755');
  assert.equal(await mode('scratch'), '777');
  assert.deepEqual(await readdir(path.join(dir, 'scratch')), []);
});

test('values under a mountPath point into the directory that stands for it, the longest mountPath first', () => {
  const mounts = new Map([
    ['/etc/temporal', '/tmp/p/outer'],
    ['/etc/temporal/tls', '/tmp/p/tls'],
  ]);
  assert.deepEqual(
    underMounts(
      {
        CERT: '/etc/temporal/tls/tls.crt',
        CONF: '/etc/temporal/app.json',
        DIR: '/etc/temporal/tls',
        NEAR: '/etc/temporal-other/x',
        PLAIN: 'host:7233',
      },
      mounts,
    ),
    {
      CERT: '/tmp/p/tls/tls.crt',
      CONF: '/tmp/p/outer/app.json',
      DIR: '/tmp/p/tls',
      NEAR: '/etc/temporal-other/x',
      PLAIN: 'host:7233',
    },
  );
});
