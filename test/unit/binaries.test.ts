import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { binaryPaths, cacheRoot, kubernetesVersion, TEMPORAL_CLI_VERSION } from '../../src/localenv/binaries.ts';

test('the Kubernetes version comes from the wrapper module, and every staging module follows it', () => {
  const version = kubernetesVersion();
  assert.match(version, /^v1\.34\.\d+$/);
  const goMod = readFileSync(path.join(import.meta.dirname, '../../tools/k8s-testbin/go.mod'), 'utf8');
  const replaced = [...goMod.matchAll(/^\s*k8s\.io\/(\S+) => k8s\.io\/\S+ (v\S+)$/gm)];
  assert.ok(replaced.length >= 31, `all staging modules are replaced (${replaced.length})`);
  for (const [, module, v] of replaced) assert.equal(v, version.replace(/^v1\./, 'v0.'), `k8s.io/${module} matches Kubernetes ${version}`);
});

test('binaries are cached outside the clone, keyed by version', () => {
  const previous = process.env.TWC_CACHE_DIR;
  process.env.TWC_CACHE_DIR = '/var/cache/twc-test';
  try {
    assert.equal(cacheRoot(), '/var/cache/twc-test');
    const paths = binaryPaths();
    assert.match(paths.kube, new RegExp(`^/var/cache/twc-test/bin/k8s-testbin-${kubernetesVersion()}-[0-9a-f]{12}$`));
    assert.equal(paths.temporal, `/var/cache/twc-test/bin/temporal-cli-${TEMPORAL_CLI_VERSION}`);
  } finally {
    if (previous === undefined) delete process.env.TWC_CACHE_DIR;
    else process.env.TWC_CACHE_DIR = previous;
  }
});
