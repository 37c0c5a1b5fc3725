import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type RequestToken, ServiceAccountTokens } from '../../src/k8s/service-account-tokens.ts';

const account = { namespace: 'temporal-system', name: 'twc' };
const spec = { audience: 'temporal.example.com', expirationSeconds: 600 };

/** A TokenRequest that counts, issues 600-second tokens from the clock's time, and fails when told. */
function issuer(clock: { now: Date }) {
  const asked: string[] = [];
  let failing = false;
  const request: RequestToken = (who, { audience, expirationSeconds }) => {
    asked.push(`${who.namespace}/${who.name} ${audience} ${expirationSeconds}`);
    if (failing) return Promise.reject(new Error('serviceaccounts "twc" is forbidden'));
    return Promise.resolve({
      token: `token-${asked.length}`,
      expiresAt: new Date(clock.now.getTime() + expirationSeconds * 1000),
    });
  };
  return { request, asked, fail: (on: boolean) => (failing = on) };
}

test('a token is requested once, reused until 80% of its life, then renewed', async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const held = new ServiceAccountTokens({ account, request: tokens.request, now: () => clock.now });
  assert.equal(await held.token(spec), 'token-1');
  clock.now = new Date('2026-11-25T10:07:59Z');
  assert.equal(await held.token(spec), 'token-1', 'at 479 s of 600: the same token');
  clock.now = new Date('2026-11-25T10:08:00Z');
  assert.equal(await held.token(spec), 'token-2', 'at 480 s: renewed');
  assert.equal(await held.token({ ...spec, audience: 'other' }), 'token-3', 'one token per audience');
  assert.deepEqual(tokens.asked, [
    'temporal-system/twc temporal.example.com 600',
    'temporal-system/twc temporal.example.com 600',
    'temporal-system/twc other 600',
  ]);
});

test('reconciles asking at once share one request; renewAfterMs rotates sooner', async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const held = new ServiceAccountTokens({ account, request: tokens.request, now: () => clock.now, renewAfterMs: 3000 });
  assert.deepEqual(await Promise.all([held.token(spec), held.token(spec)]), ['token-1', 'token-1']);
  clock.now = new Date('2026-11-25T10:00:03Z');
  assert.equal(await held.token(spec), 'token-2');
  assert.equal(tokens.asked.length, 2);
});

test('a failed renewal keeps a token still valid; past its expiry, or with none, the error names the account and the audience', async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const held = new ServiceAccountTokens({ account, request: tokens.request, now: () => clock.now });
  await held.token(spec);
  tokens.fail(true);
  clock.now = new Date('2026-11-25T10:09:00Z');
  assert.equal(await held.token(spec), 'token-1', 'renewal failed, the token has a minute left');
  clock.now = new Date('2026-11-25T10:10:00Z');
  await assert.rejects(held.token(spec), {
    name: 'ServiceAccountTokenError',
    message:
      'serviceAccountToken: cannot request a token of ServiceAccount temporal-system/twc for audience temporal.example.com: serviceaccounts "twc" is forbidden',
  });
  await assert.rejects(held.token({ ...spec, audience: 'new' }), { name: 'ServiceAccountTokenError' });
});

test('without a service account of its own the controller says how to give it one', async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const held = new ServiceAccountTokens({ account: undefined, request: tokens.request, now: () => clock.now });
  await assert.rejects(held.token(spec), { name: 'ServiceAccountTokenError', message: /--service-account/ });
  assert.deepEqual(tokens.asked, []);
});
