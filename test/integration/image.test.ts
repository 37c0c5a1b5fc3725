// `npm run image`, for real: Debian's packages through mmdebstrap, the pinned Node.js, the CLI's
// bundle. Built twice from the same commit (the second time by `npm run release`), it has the same
// digest; its config runs the bundle as user 65532; and its layer, unpacked and entered with chroot
// as that user with nothing of this machine's environment (no node_modules), runs the CLI. The release's charts and bill of materials are read back.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { buildImage, type BuiltImage, IMAGE_ENTRYPOINT } from '../../scripts/image/build.ts';
import { release } from '../../scripts/release/release.ts';
import { helm } from '../support/helm.ts';

const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  version: string;
};

function blob(image: BuiltImage, digest: string): Buffer {
  return readFileSync(path.join(image.layout, 'blobs/sha256', digest.replace('sha256:', '')));
}

test('the image: reproducible, run as 65532, and its layer runs the CLI under chroot', async (t) => {
  const dirs = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), 'twc-image-test-')));
  t.after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const epoch = process.env.SOURCE_DATE_EPOCH;
  process.env.SOURCE_DATE_EPOCH = '1790000000';
  t.after(() => (epoch === undefined ? delete process.env.SOURCE_DATE_EPOCH : (process.env.SOURCE_DATE_EPOCH = epoch)));
  const first = await buildImage(dirs[0] ?? '', () => {});
  const released = await release(dirs[1] ?? '', () => {});
  const second = released.image;
  assert.equal(second.digest, first.digest, 'the same inputs, the same digest');
  assert.deepEqual(readFileSync(second.archive), readFileSync(first.archive), 'the same archive, byte for byte');

  const index = JSON.parse(readFileSync(path.join(first.layout, 'index.json'), 'utf8')) as {
    manifests: { digest: string; annotations: Record<string, string> }[];
  };
  assert.equal(index.manifests[0]?.digest, first.digest);
  assert.equal(index.manifests[0]?.annotations['org.opencontainers.image.ref.name'], version);
  const manifest = JSON.parse(blob(first, first.digest).toString()) as {
    config: { digest: string };
    layers: { digest: string }[];
  };
  const config = JSON.parse(blob(first, manifest.config.digest).toString()) as {
    config: { User: string; Entrypoint: string[] };
  };
  assert.equal(config.config.User, '65532:65532');
  assert.deepEqual(config.config.Entrypoint, IMAGE_ENTRYPOINT);

  const root = mkdtempSync(path.join(tmpdir(), 'twc-image-root-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  await run('tar', [
    '-xzf',
    path.join(first.layout, 'blobs/sha256', manifest.layers[0]?.digest.slice(7) ?? ''),
    '-C',
    root,
  ]);
  assert.ok(!existsSync(path.join(root, 'app/node_modules')), 'no node_modules: the bundle holds what it runs');
  assert.ok(!existsSync(path.join(root, 'bin/sh')), 'no shell');
  // Nothing of this machine's environment goes in: the image's own config is all it has.
  const chroot = (await run('sh', ['-c', 'command -v chroot'])).stdout.trim();
  const { stdout } = await run(chroot, ['--userspec=65532:65532', root, ...config.config.Entrypoint, '--version'], {
    env: {},
  });
  assert.equal(stdout.trim(), version);

  for (const chart of released.charts)
    assert.match(await helm('show', 'chart', chart), new RegExp(`^version: ${version.replaceAll('.', '\\.')}$`, 'm'));
  const sbom = JSON.parse(readFileSync(released.sbom, 'utf8')) as {
    metadata: { component: { purl: string } };
    components: { name: string; scope?: string }[];
  };
  assert.equal(sbom.metadata.component.purl, `pkg:oci/temporal-worker-controller@${encodeURIComponent(first.digest)}`);
  const names = sbom.components.map((c) => c.name);
  for (const name of ['@kubernetes/client-node', '@temporalio/proto', 'node', 'libc6'])
    assert.ok(names.includes(name), `${name} is in the bill of materials`);
  assert.ok(!names.includes('@temporalio/worker'), 'development packages are not: the image has none');
});
