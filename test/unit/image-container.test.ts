import type { V1Container, V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containerScript } from '../../dev/node-agent/image-container.ts';
import {
  containerProcess,
  ContainerSpecError,
  mountsServiceAccount,
  SERVICE_ACCOUNT_PATH,
} from '../../dev/node-agent/image-container-spec.ts';
import type { ImageRunConfig } from '../../dev/node-agent/image-store.ts';

const image: ImageRunConfig = {
  entrypoint: ['/usr/local/bin/node', '/app/src/cli/main.ts'],
  cmd: ['--help'],
  env: ['PATH=/usr/local/bin:/usr/bin', 'NODE_ENV=production'],
  user: '65532:65532',
  workingDir: '/app',
};
const pod = (spec: Partial<NonNullable<V1Pod['spec']>> = {}): V1Pod => ({
  metadata: { name: 'twc-0', namespace: 'twc-system' },
  spec: { containers: [], ...spec },
});
const resolved = (env: Record<string, string> = {}) => ({ env, apiServer: { host: '10.0.0.1', port: 6443 } });

test("the container's args replace the image's cmd and keep its entrypoint; its command replaces both", () => {
  const withArgs = containerProcess(pod(), { name: 'c', args: ['run', '--x=1'] }, image, resolved());
  assert.deepEqual(withArgs.argv, ['/usr/local/bin/node', '/app/src/cli/main.ts', 'run', '--x=1']);
  assert.deepEqual(containerProcess(pod(), { name: 'c' }, image, resolved()).argv.slice(-1), ['--help']);
  assert.deepEqual(containerProcess(pod(), { name: 'c', command: ['/bin/true'] }, image, resolved()).argv, [
    '/bin/true',
  ]);
});

test('env: the image, then the container, then the service variables; $(VAR) expands, $$(VAR) stays', () => {
  const run = containerProcess(
    pod(),
    { name: 'c', args: ['--id=$(POD_NAME)', '--keep=$$(POD_NAME)', '--unknown=$(NOPE)'] },
    image,
    resolved({ POD_NAME: 'twc-0', NODE_ENV: 'test' }),
  );
  assert.deepEqual(run.argv.slice(2), ['--id=twc-0', '--keep=$(POD_NAME)', '--unknown=$(NOPE)']);
  assert.deepEqual(run.env, {
    PATH: '/usr/local/bin:/usr/bin',
    NODE_ENV: 'test',
    POD_NAME: 'twc-0',
    HOSTNAME: 'twc-0',
    KUBERNETES_SERVICE_HOST: '10.0.0.1',
    KUBERNETES_SERVICE_PORT: '6443',
  });
});

test("the user: the container's securityContext, then the Pod's, then the image's; root refused under runAsNonRoot", () => {
  assert.deepEqual((({ uid, gid }) => ({ uid, gid }))(containerProcess(pod(), { name: 'c' }, image, resolved())), {
    uid: 65532,
    gid: 65532,
  });
  const podContext = pod({ securityContext: { runAsUser: 1000, runAsGroup: 2000, runAsNonRoot: true } });
  assert.equal(containerProcess(podContext, { name: 'c' }, image, resolved()).uid, 1000);
  assert.equal(
    containerProcess(podContext, { name: 'c', securityContext: { runAsUser: 7 } }, image, resolved()).uid,
    7,
  );
  assert.throws(
    () => containerProcess(podContext, { name: 'c', securityContext: { runAsUser: 0 } }, image, resolved()),
    (error: unknown) => error instanceof ContainerSpecError && /container c: runAsNonRoot/.test(error.message),
  );
  assert.throws(() => containerProcess(pod(), { name: 'c' }, { ...image, user: 'nobody' }, resolved()), {
    name: 'ContainerSpecError',
    message: /image user nobody is not numeric/,
  });
});

test('the service account is mounted unless the Pod names none or opts out, or the container mounts that path itself', () => {
  const container: V1Container = { name: 'c' };
  const named = { serviceAccountName: 'worker' };
  assert.equal(mountsServiceAccount(pod(named), container), true);
  assert.equal(mountsServiceAccount(pod(), container), false, 'no admission here names one');
  assert.equal(mountsServiceAccount(pod({ ...named, automountServiceAccountToken: false }), container), false);
  assert.equal(
    mountsServiceAccount(pod(named), { name: 'c', volumeMounts: [{ name: 'own', mountPath: SERVICE_ACCOUNT_PATH }] }),
    false,
  );
});

test('the script mounts the image under an overlay, the volumes at their paths, makes the root read-only last, then enters as the user', () => {
  const script = containerScript({
    process: {
      argv: ['/usr/local/bin/node', "it's"],
      env: { PATH: '/usr/bin' },
      uid: 65532,
      gid: 65532,
      workingDir: '/app',
      readOnlyRoot: true,
    },
    rootfs: '/store/rootfs',
    dir: '/pods/u/container',
    networkNamespace: '/run/netns/twc-u',
    mounts: [
      { source: '/pods/u/volumes/tmp', target: '/tmp', readOnly: false },
      { source: '/pods/u/serviceaccount', target: SERVICE_ACCOUNT_PATH, readOnly: true },
    ],
    hostname: 'twc-0',
    podIP: '10.244.0.2',
    logFile: '/pods/log',
    graceMs: 1000,
  }).split('\n');
  assert.match(
    script[1] ?? '',
    /^mount -t overlay overlay -o 'lowerdir=\/store\/rootfs,upperdir=\/pods\/u\/container\/upper,workdir=\/pods\/u\/container\/work' '\/pods\/u\/container\/merged'$/,
  );
  const at = (pattern: RegExp) => script.findIndex((line) => pattern.test(line));
  assert.ok(at(/mount --bind '\/pods\/u\/volumes\/tmp' '\/pods\/u\/container\/merged\/tmp'/) > 0);
  const readOnlyAccount = at(
    /remount,bind,ro '\/pods\/u\/container\/merged\/var\/run\/secrets\/kubernetes.io\/serviceaccount'/,
  );
  assert.ok(readOnlyAccount > 0, 'the service account is read-only');
  assert.ok(!script.some((line) => /remount,bind,ro '.*\/merged\/tmp'/.test(line)), 'the emptyDir stays writable');
  const readOnlyRoot = at(/^mount -o remount,ro '\/pods\/u\/container\/merged'$/);
  assert.ok(readOnlyRoot > readOnlyAccount, 'the root is made read-only after every mount point exists');
  assert.deepEqual(
    script.slice(-3, -1),
    ["export PATH='/usr/bin'", 'unset PWD'],
    "the container's env, not the shell's",
  );
  assert.equal(
    script.at(-1),
    `exec /usr/bin/unshare --root='/pods/u/container/merged' --wd='/app' --setuid 65532 --setgid 65532 -- '/usr/local/bin/node' 'it'\\''s'`,
  );
});
