// When the webhook's self-managed certificates are renewed (certificate-policy.ts): each rule on
// its own, then years of a cluster's life played through the rules, checking at every moment that
// the API server, reading the caBundle late, trusts the certificate every replica serves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AUTHORITY_LIFETIMES,
  BACKDATE_MS,
  type CertificateStep,
  certificatePlan,
  type HeldCertificates,
  publishGraceMs,
} from '../../src/webhook/certificate-policy.ts';

const HOUR = 3_600_000;
const LIFETIME = 90 * 24 * HOUR;
const wants = { hosts: ['webhook.system.svc'], lifetimeMs: LIFETIME };
const T0 = Date.UTC(2026, 0, 1);

/** A CA and serving certificate issued at `at`, the CA published. */
function fresh(at: number): HeldCertificates {
  return {
    authorities: [{ fingerprint: 'ca-1', notBefore: at - BACKDATE_MS, notAfter: at + AUTHORITY_LIFETIMES * LIFETIME }],
    serving: { issuer: 'ca-1', hosts: wants.hosts, notBefore: at - BACKDATE_MS, notAfter: at + LIFETIME },
    newestPublished: true,
  };
}

const kinds = (steps: CertificateStep[]) => steps.map((step) => step.kind);

test('nothing held: a CA, then a serving certificate it signs', () => {
  const plan = certificatePlan(undefined, wants, T0);
  assert.deepEqual(kinds(plan.steps), ['issueAuthority', 'issueServing']);
  assert.ok(plan.steps.every((step) => step.reason === 'no certificate yet'));
});

test('a fresh pair is kept, and looked at again when the serving certificate is two thirds through its life', () => {
  const plan = certificatePlan(fresh(T0), wants, T0 + HOUR);
  assert.deepEqual(plan.steps, []);
  assert.equal(plan.waiting, undefined);
  assert.equal(plan.recheckAt, T0 + (LIFETIME * 2) / 3);
});

test('the serving certificate is renewed at two thirds of its life, by the CA it had', () => {
  const plan = certificatePlan(fresh(T0), wants, T0 + (LIFETIME * 2) / 3);
  assert.deepEqual(plan.steps, [
    { kind: 'issueServing', reason: 'the serving certificate is two thirds through its life' },
  ]);
});

test('a serving certificate that does not name a wanted host is replaced at once, trusted CA or not', () => {
  const held = { ...fresh(T0), newestPublished: false };
  const plan = certificatePlan(held, { ...wants, hosts: ['webhook.other.svc'] }, T0 + HOUR);
  assert.deepEqual(plan.steps, [
    { kind: 'issueServing', reason: 'the serving certificate does not name webhook.other.svc' },
  ]);
});

test('a due renewal waits while the caBundle lacks the newest CA, and says so', () => {
  const held = { ...fresh(T0), newestPublished: false };
  const plan = certificatePlan(held, wants, T0 + (LIFETIME * 3) / 4);
  assert.deepEqual(plan.steps, []);
  assert.match(plan.waiting ?? '', /two thirds through its life, once the webhook configuration's caBundle holds/);
});

test('the CA is renewed at two thirds of its life, alone: the serving certificate moves to it only after a grace', () => {
  const caDue = T0 + (AUTHORITY_LIFETIMES * LIFETIME * 2) / 3;
  const plan = certificatePlan(fresh(T0), wants, caDue);
  assert.deepEqual(kinds(plan.steps), ['issueAuthority']);

  const renewed: HeldCertificates = {
    authorities: [
      ...fresh(T0).authorities,
      { fingerprint: 'ca-2', notBefore: caDue - BACKDATE_MS, notAfter: caDue + AUTHORITY_LIFETIMES * LIFETIME },
    ],
    serving: { ...fresh(T0).serving, notBefore: caDue - HOUR - BACKDATE_MS, notAfter: caDue - HOUR + LIFETIME },
    newestPublished: true,
  };
  const early = certificatePlan(renewed, wants, caDue + 1000);
  assert.deepEqual(early.steps, []);
  assert.match(early.waiting ?? '', /moves to the new CA, once the API server has had the new CA for 300s/);
  assert.equal(early.recheckAt, caDue + publishGraceMs(LIFETIME));

  const later = certificatePlan(renewed, wants, caDue + publishGraceMs(LIFETIME));
  assert.deepEqual(later.steps, [{ kind: 'issueServing', reason: 'the serving certificate moves to the new CA' }]);
});

test('an old CA stays in the caBundle until it expires, then leaves it', () => {
  const held: HeldCertificates = {
    authorities: [
      { fingerprint: 'ca-1', notBefore: T0, notAfter: T0 + 10 * HOUR },
      { fingerprint: 'ca-2', notBefore: T0 + 5 * HOUR, notAfter: T0 + 5 * HOUR + AUTHORITY_LIFETIMES * LIFETIME },
    ],
    serving: { issuer: 'ca-2', hosts: wants.hosts, notBefore: T0 + 6 * HOUR, notAfter: T0 + 6 * HOUR + LIFETIME },
    newestPublished: true,
  };
  const before = certificatePlan(held, wants, T0 + 9 * HOUR);
  assert.deepEqual(before.steps, []);
  assert.equal(before.recheckAt, T0 + 10 * HOUR);
  assert.deepEqual(certificatePlan(held, wants, T0 + 10 * HOUR).steps, [
    { kind: 'dropAuthority', fingerprint: 'ca-1', reason: 'the CA has expired' },
  ]);
});

test('played over years with lifetimes short and long: the API server always trusts what is served', () => {
  for (const lifetimeMs of [12_000, LIFETIME]) {
    const grace = publishGraceMs(lifetimeMs);
    const lag = grace / 2; // how late the API server reads the caBundle
    const tick = lifetimeMs / 97;
    let held: HeldCertificates | undefined;
    let next = 1;
    /** The caBundle as patched, each version with when it was patched. */
    const published: { at: number; fingerprints: string[] }[] = [];
    let servingIssued = 0;
    const end = T0 + 40 * lifetimeMs;
    for (let now = T0; now < end; now += tick) {
      for (let guard = 0; ; guard += 1) {
        assert.ok(guard < 5, 'the plan settles after a few looks');
        const plan = certificatePlan(held, { ...wants, lifetimeMs }, now);
        if (plan.steps.length === 0) break;
        for (const step of plan.steps) {
          if (step.kind === 'issueAuthority') {
            const authority = {
              fingerprint: `ca-${next++}`,
              notBefore: now - BACKDATE_MS,
              notAfter: now + AUTHORITY_LIFETIMES * lifetimeMs,
            };
            held = held
              ? { ...held, authorities: [...held.authorities, authority] }
              : {
                  authorities: [authority],
                  serving: { issuer: '', hosts: [], notBefore: 0, notAfter: 0 },
                  newestPublished: false,
                };
          } else if (step.kind === 'issueServing' && held) {
            const issuer = held.authorities.at(-1);
            assert.ok(issuer);
            servingIssued += 1;
            held = {
              ...held,
              serving: {
                issuer: issuer.fingerprint,
                hosts: wants.hosts,
                notBefore: now - BACKDATE_MS,
                notAfter: Math.min(now + lifetimeMs, issuer.notAfter),
              },
            };
          } else if (step.kind === 'dropAuthority' && held)
            held = { ...held, authorities: held.authorities.filter((a) => a.fingerprint !== step.fingerprint) };
        }
        // The keeper writes the Secret, then patches the caBundle.
        if (held) {
          published.push({ at: now, fingerprints: held.authorities.map((authority) => authority.fingerprint) });
          held = { ...held, newestPublished: true };
        }
      }
      assert.ok(held);
      const seen = published.filter((version) => version.at <= now - lag).at(-1) ?? published[0];
      assert.ok(seen);
      const { serving } = held;
      assert.ok(
        now > T0 + lag ? seen.fingerprints.includes(serving.issuer) : true,
        `at ${(now - T0) / lifetimeMs} lifetimes the API server trusts ${seen.fingerprints.join(', ')}, not ${serving.issuer}`,
      );
      assert.ok(now < serving.notAfter && now >= serving.notBefore, 'the serving certificate is valid');
      assert.ok(held.authorities.length <= 3, `${held.authorities.length} CAs in the caBundle`);
    }
    // About one and a half serving certificates a lifetime (each renewed at two thirds), plus one per CA.
    assert.ok(servingIssued >= 58 && servingIssued <= 72, `${servingIssued} serving certificates in 40 lifetimes`);
    assert.ok(next - 1 >= 14 && next - 1 <= 16, `${next - 1} CAs in 40 lifetimes`);
  }
});
