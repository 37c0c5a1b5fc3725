import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterConnectionUse, selects } from '../../src/domain/cluster-connection-use.ts';

const workerAuth = { apiKeySecretRef: { name: 'workers', key: 'key', namespace: 'temporal-creds' } };
const controllerKey = { name: 'controller', key: 'key', namespace: 'temporal-creds' };

test('a namespace of its own Secrets may always use a cluster connection; another only if allowedNamespaces selects it', () => {
  const spec = { hostPort: 'temporal:7233', apiKeySecretRef: controllerKey, workerAuth };
  assert.deepEqual(clusterConnectionUse({ spec }, 'temporal-creds', {}), { allowed: true });
  const refused = clusterConnectionUse({ spec }, 'orders', { team: 'orders' });
  assert.equal(refused.allowed, false);
  assert.ok(!refused.allowed && refused.reason === 'ClusterConnectionNotAllowed');
  assert.ok(!refused.allowed && /spec\.allowedNamespaces is empty/.test(refused.message), 'absent: none');
  const empty = clusterConnectionUse({ spec: { ...spec, allowedNamespaces: {} } }, 'orders', { team: 'orders' });
  assert.ok(!empty.allowed && /is empty/.test(empty.message), 'an empty selector selects nothing');
  const selected = { ...spec, allowedNamespaces: { matchLabels: { team: 'orders' } } };
  assert.deepEqual(clusterConnectionUse({ spec: selected }, 'orders', { team: 'orders' }), { allowed: true });
  const other = clusterConnectionUse({ spec: selected }, 'billing', { team: 'billing' });
  assert.ok(
    !other.allowed &&
      /namespace billing may not use it: its spec\.allowedNamespaces does not select it/.test(other.message),
  );
  const unread = clusterConnectionUse({ spec: selected }, 'orders', undefined);
  assert.ok(!unread.allowed, 'a namespace whose labels are unknown is not selected');
});

test("outside its own namespaces only workerAuth's credentials are copied: without workerAuth, none is", () => {
  const allowedNamespaces = { matchLabels: { team: 'orders' } };
  const ownKey = clusterConnectionUse(
    { spec: { hostPort: 'temporal:7233', apiKeySecretRef: controllerKey, allowedNamespaces } },
    'orders',
    { team: 'orders' },
  );
  assert.ok(!ownKey.allowed && ownKey.reason === 'ClusterConnectionWithoutWorkerAuth');
  assert.match(ownKey.allowed ? '' : ownKey.message, /its own apiKeySecretRef, which may change routing/);
  assert.deepEqual(
    clusterConnectionUse({ spec: { hostPort: 'temporal:7233', allowedNamespaces } }, 'orders', { team: 'orders' }),
    { allowed: true },
    'plaintext, or a token (each Pod sends its own): nothing secret is copied',
  );
});

test('a selector matches as the API server does', () => {
  const labels = { team: 'orders', tier: 'prod' };
  assert.equal(
    selects({ matchExpressions: [{ key: 'team', operator: 'In', values: ['orders', 'billing'] }] }, labels),
    true,
  );
  assert.equal(selects({ matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['orders'] }] }, labels), false);
  assert.equal(selects({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, labels), true);
  assert.equal(selects({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, labels), false);
  assert.equal(
    selects({ matchLabels: { team: 'orders' }, matchExpressions: [{ key: 'x', operator: 'Exists' }] }, labels),
    false,
  );
  assert.equal(selects(undefined, labels), false);
});
