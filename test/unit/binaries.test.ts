import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  BinaryBuildError,
  binaryPaths,
  cacheRoot,
  ensureBinaries,
  kubernetesVersion,
  TEMPORAL_CLI_VERSION,
  temporalNextVersion,
} from '../../dev/localenv/binaries.ts';

test('the Kubernetes version comes from the wrapper module, and every staging module follows it', () => {
  const version = kubernetesVersion();
  assert.match(version, /^v1\.34\.\d+$/);
  const goMod = readFileSync(path.join(import.meta.dirname, '../../tools/k8s-testbin/go.mod'), 'utf8');
  const replaced = [...goMod.matchAll(/^\s*k8s\.io\/(\S+) => k8s\.io\/\S+ (v\S+)$/gm)];
  assert.ok(replaced.length >= 31, `all staging modules are replaced (${replaced.length})`);
  for (const [, module, v] of replaced)
    assert.equal(v, version.replace(/^v1\./, 'v0.'), `k8s.io/${module} matches Kubernetes ${version}`);
});

test('binaries are cached outside the clone, keyed by version', () => {
  const previous = process.env.TWC_CACHE_DIR;
  process.env.TWC_CACHE_DIR = '/var/cache/twc-test';
  try {
    assert.equal(cacheRoot(), '/var/cache/twc-test');
    const paths = binaryPaths();
    assert.match(paths.kube, new RegExp(`^/var/cache/twc-test/bin/k8s-testbin-${kubernetesVersion()}-[0-9a-f]{12}$`));
    assert.match(
      paths.temporalNext,
      new RegExp(`^/var/cache/twc-test/bin/temporal-cli-${temporalNextVersion()}-[0-9a-f]{12}$`),
    );
    assert.equal(paths.temporal, `/var/cache/twc-test/bin/temporal-cli-${TEMPORAL_CLI_VERSION}`);
  } finally {
    if (previous === undefined) delete process.env.TWC_CACHE_DIR;
    else process.env.TWC_CACHE_DIR = previous;
  }
});

/** Runs ensureBinaries with an empty cache and the given environment, and returns its error. */
async function buildError(env: Record<string, string>): Promise<BinaryBuildError> {
  const saved = { ...process.env };
  Object.assign(process.env, { TWC_CACHE_DIR: mkdtempSync(path.join(tmpdir(), 'twc-cache-')) }, env);
  try {
    const error = await ensureBinaries(() => {}).then(
      () => assert.fail('built without a working Go'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof BinaryBuildError, `a BinaryBuildError, not ${String(error)}`);
    return error;
  } finally {
    process.env = saved;
  }
}

test('without Go, the build says what is missing and what to run', async () => {
  const error = await buildError({ GO: '/nonexistent/go' });
  assert.match(error.message, /Go is not available/);
  assert.match(error.message, /npm run build:binaries/);
});

test('without the module proxy, the build says the proxy could not be reached', async () => {
  const modules = mkdtempSync(path.join(tmpdir(), 'twc-gomod-'));
  const error = await buildError({ GOPROXY: 'http://127.0.0.1:9', GOMODCACHE: modules, GOFLAGS: '-modcacherw' });
  assert.match(error.message, /Go module proxy \(GOPROXY=http:\/\/127\.0\.0\.1:9\) could not be reached/);
  assert.match(error.message, /npm run build:binaries/);
  rmSync(modules, { recursive: true, force: true });
});
