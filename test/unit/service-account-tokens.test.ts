import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type RequestToken,
  type ReviewToken,
  ServiceAccountTokens,
  type ServiceAccountTokensOptions,
} from '../../src/k8s/service-account-tokens.ts';

const own = { namespace: 'temporal-system', name: 'twc' };
const account = { namespace: 'orders', name: 'temporal' };
/** A namespaced connection's ask: its namespace's account. */
const spec = { audience: 'temporal.example.com', expirationSeconds: 600, account };
/** The API server refuses every token (none is for its audiences). */
const refusedByApiServer: ReviewToken = () => Promise.resolve(false);

function tokensOf(
  request: RequestToken,
  clock: { now: Date },
  more: Partial<ServiceAccountTokensOptions> = {},
): ServiceAccountTokens {
  return new ServiceAccountTokens({
    own,
    ownAudiences: [],
    request,
    review: refusedByApiServer,
    now: () => clock.now,
    ...more,
  });
}

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
  const held = tokensOf(tokens.request, clock);
  assert.equal(await held.token(spec), 'token-1');
  clock.now = new Date('2026-11-25T10:07:59Z');
  assert.equal(await held.token(spec), 'token-1', 'at 479 s of 600: the same token');
  clock.now = new Date('2026-11-25T10:08:00Z');
  assert.equal(await held.token(spec), 'token-2', 'at 480 s: renewed');
  assert.equal(await held.token({ ...spec, audience: 'other' }), 'token-3', 'one token per audience');
  assert.deepEqual(tokens.asked, [
    'orders/temporal temporal.example.com 600',
    'orders/temporal temporal.example.com 600',
    'orders/temporal other 600',
  ]);
});

test('reconciles asking at once share one request; renewAfterMs rotates sooner', async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const held = tokensOf(tokens.request, clock, { renewAfterMs: 3000 });
  assert.deepEqual(await Promise.all([held.token(spec), held.token(spec)]), ['token-1', 'token-1']);
  clock.now = new Date('2026-11-25T10:00:03Z');
  assert.equal(await held.token(spec), 'token-2');
  assert.equal(tokens.asked.length, 2);
});

test('a failed renewal keeps a token still valid; past its expiry, or with none, the error names the account and the audience', async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const held = tokensOf(tokens.request, clock);
  await held.token(spec);
  tokens.fail(true);
  clock.now = new Date('2026-11-25T10:09:00Z');
  assert.equal(await held.token(spec), 'token-1', 'renewal failed, the token has a minute left');
  clock.now = new Date('2026-11-25T10:10:00Z');
  await assert.rejects(held.token(spec), {
    name: 'ServiceAccountTokenError',
    message:
      'serviceAccountToken: cannot request a token of ServiceAccount orders/temporal for audience temporal.example.com: serviceaccounts "twc" is forbidden',
  });
  await assert.rejects(held.token({ ...spec, audience: 'new' }), { name: 'ServiceAccountTokenError' });
});

test('without a service account of its own the controller says how to give it one', async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const held = tokensOf(tokens.request, clock, { own: undefined, ownAudiences: ['temporal.example.com'] });
  const clusterAsk = { audience: 'temporal.example.com', expirationSeconds: 600 };
  await assert.rejects(held.token(clusterAsk), {
    name: 'ServiceAccountTokenError',
    reason: 'TokenUnavailable',
    message: /--service-account/,
  });
  assert.deepEqual(tokens.asked, []);
});

test("a namespaced connection's token is its namespace's account's, never the controller's own", async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const held = tokensOf(tokens.request, clock, { ownAudiences: ['temporal.example.com'] });
  await held.token(spec);
  assert.deepEqual(tokens.asked, ['orders/temporal temporal.example.com 600']);
});

test("the controller's own token only for a cluster connection, for an audience the operator allows; refusals are counted", async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const refusals: string[] = [];
  const held = tokensOf(tokens.request, clock, {
    ownAudiences: ['temporal.example.com'],
    onRefused: (why) => refusals.push(why),
  });
  assert.equal(await held.token({ audience: 'temporal.example.com', expirationSeconds: 600 }), 'token-1');
  await assert.rejects(held.token({ audience: 'elsewhere.example.com', expirationSeconds: 600 }), {
    name: 'ServiceAccountTokenError',
    reason: 'TokenRefused',
    message:
      "serviceAccountToken.audience elsewhere.example.com is not one the controller's own token may be issued for; the operator allows temporal.example.com (--own-token-audiences, chart value controller.ownTokenAudiences)",
  });
  assert.deepEqual(tokens.asked, ['temporal-system/twc temporal.example.com 600'], 'none requested for the other');
  assert.deepEqual(refusals, ['OwnTokenAudienceNotAllowed']);
});

test("a token the cluster's API server accepts is never handed out, nor is one whose review fails", async () => {
  const clock = { now: new Date('2026-11-25T10:00:00Z') };
  const tokens = issuer(clock);
  const refusals: string[] = [];
  let reviewed = 'refused';
  const review: ReviewToken = () =>
    reviewed === 'failing'
      ? Promise.reject(new Error('tokenreviews is forbidden'))
      : Promise.resolve(reviewed === 'accepted');
  const held = tokensOf(tokens.request, clock, { review, onRefused: (why) => refusals.push(why) });
  assert.equal(await held.token(spec), 'token-1');
  reviewed = 'accepted';
  clock.now = new Date('2026-11-25T10:08:00Z');
  await assert.rejects(held.token(spec), {
    name: 'ServiceAccountTokenError',
    reason: 'TokenRefused',
    message:
      "serviceAccountToken.audience: a token of ServiceAccount orders/temporal for audience temporal.example.com is accepted by the cluster's API server, so it is never sent; choose an audience only your Temporal server accepts",
  });
  assert.deepEqual(refusals, ['AcceptedByApiServer']);
  reviewed = 'failing';
  await assert.rejects(held.token({ ...spec, audience: 'new' }), {
    reason: 'TokenUnavailable',
    message:
      /cannot check a token of ServiceAccount orders\/temporal for audience new by TokenReview, so it is not sent: tokenreviews is forbidden/,
  });
});
