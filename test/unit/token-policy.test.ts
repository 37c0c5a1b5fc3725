import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiServerAudience } from '../../src/api/temporal-connection.ts';
import { tokenAccount } from '../../src/domain/token-policy.ts';

const own = { namespace: 'temporal-system', name: 'twc' };
const orders = { namespace: 'orders', name: 'temporal' };

test("the controller's own identity is used only by a cluster connection, for an allowed audience", () => {
  const policy = { own, ownAudiences: ['temporal.example.com'] };
  assert.deepEqual(
    tokenAccount({ audience: 'temporal.example.com', expirationSeconds: 600, account: orders }, policy),
    { account: orders },
    "a namespaced connection's: its namespace's account, even for an audience the controller's own may have",
  );
  assert.deepEqual(tokenAccount({ audience: 'temporal.example.com', expirationSeconds: 600 }, policy), {
    account: own,
  });
  const refused = tokenAccount({ audience: 'other', expirationSeconds: 600 }, policy);
  assert.ok('refused' in refused && refused.refused === 'OwnTokenAudienceNotAllowed');
  assert.match(refused.message, /^serviceAccountToken\.audience other is not one/);
  const none = tokenAccount({ audience: 'x', expirationSeconds: 600 }, { own, ownAudiences: [] });
  assert.ok('refused' in none && /the operator allows none/.test(none.message), 'nothing allowed by default');
  const noAccount = tokenAccount({ audience: 'x', expirationSeconds: 600 }, { own: undefined, ownAudiences: ['x'] });
  assert.ok('refused' in noAccount && noAccount.refused === 'NoServiceAccount');
});

test("the API server's usual audiences are refused on a namespaced connection", () => {
  assert.equal(isApiServerAudience('https://kubernetes.default.svc.cluster.local'), true);
  assert.equal(isApiServerAudience('https://kubernetes.default.svc'), true);
  assert.equal(isApiServerAudience('temporal.example.com'), false);
});
