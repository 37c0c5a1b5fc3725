import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAX_DEPLOYMENT_NAME_LENGTH,
  selectorLabels,
  temporalDeploymentName,
  versionedDeploymentName,
} from '../../src/k8s/names.ts';

test('short names are the worker deployment, pool and build joined', () => {
  assert.equal(versionedDeploymentName('orders', '1.0.0-5ec0c5b3f7'), 'orders-1-0-0-5ec0c5b3f7');
  assert.equal(versionedDeploymentName('orders', 'v2-abc', 'spot'), 'orders-spot-v2-abc');
  assert.equal(versionedDeploymentName('Orders', 'Release_7'), 'orders-release-7');
});

test('long names are cut to 47 characters, stay DNS labels and stay distinct', () => {
  const names = new Set<string>();
  for (const build of [
    'a-very-long-image-tag-that-goes-on-0123456789',
    'a-very-long-image-tag-that-goes-on-0123456780',
  ]) {
    for (const pool of [undefined, 'metastore-on-demand']) {
      const name = versionedDeploymentName('payments-reconciliation-worker', build, pool);
      assert.ok(name.length <= MAX_DEPLOYMENT_NAME_LENGTH, `${name} (${name.length})`);
      assert.match(name, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      names.add(name);
    }
  }
  assert.equal(names.size, 4);
});

test('the Temporal deployment name and the selector labels', () => {
  assert.equal(temporalDeploymentName('team-a', 'orders'), 'team-a/orders');
  assert.deepEqual(selectorLabels('orders', 'b1'), {
    'temporal.io/deployment-name': 'orders',
    'temporal.io/build-id': 'b1',
  });
  assert.deepEqual(selectorLabels('orders', 'b1', 'spot')['temporal.io/pool'], 'spot');
});
