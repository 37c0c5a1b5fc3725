// What a connection and its worker deployments say of the certificates of its Secrets, from their
// not-after times, the time and the lead time: plain data in, conditions, events, what the status
// remembers and when to look again out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CertificateRecord, ReadCertificate } from '../../src/domain/certificates.ts';
import { certificateState, judgeCertificates, timeLeft } from '../../src/status/certificates.ts';
import { conditionSet } from '../../src/status/conditions.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const NOW = new Date('2026-12-01T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

const client = (notAfter: Date, overrides: Partial<ReadCertificate> = {}): ReadCertificate => ({
  secret: 'orders/temporal-mtls',
  key: 'tls.crt',
  field: 'mutualTLSSecretRef',
  authority: false,
  subject: 'CN=twc-controller',
  serialNumber: '01',
  notAfter,
  ...overrides,
});
const ca = (notAfter: Date): ReadCertificate =>
  client(notAfter, {
    secret: 'orders/temporal-ca',
    key: 'ca.crt',
    field: 'tls.caCertSecretRef',
    authority: true,
    subject: 'CN=orders-ca',
    serialNumber: '0a',
  });
const record = (c: ReadCertificate, state: CertificateRecord['state']): CertificateRecord => ({
  secret: c.secret,
  key: c.key,
  subject: c.subject,
  serialNumber: c.serialNumber,
  notAfter: c.notAfter.toISOString(),
  state,
});

test('a certificate is Valid until the lead time before it expires, Expiring from then, Expired once past', () => {
  const rows: [number, string][] = [
    [WEEK + 1, 'Valid'],
    [WEEK, 'Expiring'],
    [1, 'Expiring'],
    [0, 'Expiring'],
    [-1, 'Expired'],
  ];
  for (const [left, state] of rows) assert.equal(certificateState(at(left), NOW, WEEK), state, `${left} ms left`);
  assert.equal(certificateState(at(HOUR), NOW, 0), 'Valid', 'no lead time: only an expired one is said');
});

test('the time left in words, coarse enough to change once a day until the last two', () => {
  const rows: [number, string, number][] = [
    [6 * DAY + 5 * HOUR, 'in 6 days', 6 * DAY],
    [2 * DAY, 'in 2 days', 2 * DAY],
    [2 * DAY - 1, 'in 47 hours', 47 * HOUR],
    [2 * HOUR + 59 * MINUTE, 'in 2 hours', 2 * HOUR],
    [119 * MINUTE, 'in 119 minutes', 119 * MINUTE],
    [2 * MINUTE, 'in 2 minutes', 2 * MINUTE],
    [90_000, 'in less than 2 minutes', 0],
  ];
  for (const [ms, words, below] of rows) assert.deepEqual(timeLeft(ms), { words, below }, `${ms} ms`);
});

test('no certificate read: nothing said, nothing remembered, nothing to look at again', () => {
  assert.deepEqual(judgeCertificates([], [record(client(at(DAY)), 'Expiring')], NOW, WEEK), {
    conditions: [],
    records: [],
    events: [],
  });
});

test('all valid past the lead time: CertificateExpiring False, naming the first to expire; looked at again when it enters the lead time', () => {
  const verdict = judgeCertificates([ca(at(300 * DAY)), client(at(30 * DAY))], undefined, NOW, WEEK);
  assert.deepEqual(verdict.conditions, [
    {
      type: 'CertificateExpiring',
      status: 'False',
      reason: 'CertificatesValid',
      message:
        'every certificate read is valid for more than 7 days; the first to expire is the client certificate CN=twc-controller (Secret orders/temporal-mtls key tls.crt, mutualTLSSecretRef), at 2026-12-31T12:00:00.000Z',
    },
  ]);
  assert.deepEqual(verdict.events, [], 'nothing to warn of');
  assert.deepEqual(
    verdict.records.map((r) => [r.secret, r.state]),
    [
      ['orders/temporal-mtls', 'Valid'],
      ['orders/temporal-ca', 'Valid'],
    ],
    'the first to expire first',
  );
  assert.deepEqual(verdict.nextChangeAt, at(30 * DAY - WEEK));
});

test('within the lead time: a warning that names the Secret, key, subject and time left, and stops nothing', () => {
  const certificate = client(at(3 * DAY + 5 * HOUR));
  const verdict = judgeCertificates(
    [certificate, ca(at(300 * DAY))],
    undefined,
    NOW,
    WEEK,
    'TemporalConnection orders/temporal: ',
  );
  assert.deepEqual(verdict.conditions, [
    {
      type: 'CertificateExpiring',
      status: 'True',
      reason: 'CertificateExpiring',
      message:
        'TemporalConnection orders/temporal: client certificate CN=twc-controller (Secret orders/temporal-mtls key tls.crt, mutualTLSSecretRef) expires at 2026-12-04T17:00:00.000Z, in 3 days: put a renewed certificate in the Secret before then (the controller takes it up when the Secret changes, and the worker Pods roll onto it)',
    },
  ]);
  assert.deepEqual(
    conditionSet([
      { type: 'Ready', status: 'True', reason: 'TargetCurrent', message: 'current' },
      ...verdict.conditions,
    ]).map((c) => `${c.type}=${c.status}/${c.reason}`),
    [
      'Ready=True/TargetCurrent',
      'Progressing=False/TargetCurrent',
      'Stalled=False/TargetCurrent',
      'CertificateExpiring=True/CertificateExpiring',
    ],
    'a warning leaves Ready as it was',
  );
  assert.deepEqual(verdict.events, [{ reason: 'CertificateExpiring', message: verdict.conditions[0]?.message }]);
  assert.deepEqual(verdict.nextChangeAt, at(5 * HOUR + 1), 'when "in 3 days" becomes "in 2 days"');
});

test('a Warning event once per change of a certificate state: none while the status remembers it so', () => {
  const certificate = client(at(3 * DAY));
  const first = judgeCertificates([certificate], undefined, NOW, WEEK);
  assert.equal(first.events.length, 1);
  const later = judgeCertificates([certificate], first.records, at(DAY), WEEK);
  assert.deepEqual(later.events, [], 'still Expiring, a day closer: no new event');
  assert.notEqual(later.conditions[0]?.message, first.conditions[0]?.message, 'the time left is said anew');
  const expired = judgeCertificates([certificate], later.records, at(3 * DAY + 1), WEEK);
  assert.deepEqual(
    expired.events.map((e) => e.reason),
    ['CertificateExpired'],
  );
  assert.deepEqual(judgeCertificates([certificate], expired.records, at(4 * DAY), WEEK).events, []);
  const renewed = client(at(90 * DAY), { serialNumber: '02' });
  assert.deepEqual(
    judgeCertificates([renewed], expired.records, at(4 * DAY), WEEK).events,
    [],
    'a renewed one is Valid',
  );
  const another = client(at(5 * DAY), { serialNumber: '03' });
  assert.deepEqual(
    judgeCertificates([another], expired.records, NOW, WEEK).events.map((e) => e.reason),
    ['CertificateExpiring'],
    'another certificate in the same key is another certificate',
  );
});

test('expired: Stalled, CertificateExpired, naming each expired one with a message that does not change with time; the warning stays', () => {
  const verdict = judgeCertificates(
    [client(at(-2 * HOUR)), ca(at(2 * DAY + HOUR))],
    [record(client(at(-2 * HOUR)), 'Expired'), record(ca(at(2 * DAY + HOUR)), 'Expiring')],
    NOW,
    WEEK,
  );
  const expired =
    'client certificate CN=twc-controller (Secret orders/temporal-mtls key tls.crt, mutualTLSSecretRef) expired at 2026-12-01T10:00:00.000Z';
  assert.deepEqual(verdict.conditions, [
    {
      type: 'CertificateExpiring',
      status: 'True',
      reason: 'CertificateExpired',
      message: `${expired}; CA certificate CN=orders-ca (Secret orders/temporal-ca key ca.crt, tls.caCertSecretRef) expires at 2026-12-03T13:00:00.000Z, in 2 days: put a renewed certificate in the Secret before then (the controller takes it up when the Secret changes, and the worker Pods roll onto it)`,
    },
    {
      type: 'Stalled',
      status: 'True',
      reason: 'CertificateExpired',
      message: `${expired}: a server that checks refuses an expired client certificate, and a server certificate cannot be verified against an expired CA; put a renewed certificate in the Secret (the controller goes on with whatever still works)`,
    },
  ]);
  assert.deepEqual(verdict.events, [], 'the status already remembers both states');
  assert.deepEqual(
    judgeCertificates([client(at(-2 * HOUR))], undefined, at(DAY), WEEK).conditions[1],
    verdict.conditions[1],
    'the same words a day later',
  );
  assert.deepEqual(verdict.nextChangeAt, at(HOUR + 1), 'the CA: "in 2 days" becomes "in 47 hours"');
  assert.deepEqual(
    judgeCertificates([client(at(-HOUR))], undefined, NOW, WEEK).nextChangeAt,
    undefined,
    'nothing more will change of an expired one',
  );
  assert.deepEqual(
    judgeCertificates([client(at(90_000))], undefined, NOW, WEEK).nextChangeAt,
    at(90_001),
    'the last words before it expires change when it does',
  );
});

test('a status remembers the first 32 to expire, of a bundle of more', () => {
  const bundle = Array.from({ length: 40 }, (_, i) => ca(at((100 - i) * DAY)));
  const verdict = judgeCertificates(bundle, undefined, NOW, WEEK);
  assert.equal(verdict.records.length, 32);
  assert.equal(verdict.records[0]?.notAfter, at(61 * DAY).toISOString());
});
