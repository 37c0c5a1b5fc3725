// What to say of the certificates a connection's Secrets hold, from their not-after times, the
// time and the warning's lead time (--certificate-expiry-warning): a warning from the lead time on
// (CertificateExpiring, which stops nothing), Stalled once one has expired (a person must renew it;
// the controller goes on with whatever still works), a Warning event when a certificate's state
// changes, and when to look again. Pure: the clock comes in as data.
import { MAX_REMEMBERED_CERTIFICATES } from '../api/status.ts';
import type { CertificateRecord, CertificateState, ReadCertificate } from '../domain/certificates.ts';
import { type Condition, stalled } from './conditions.ts';
import { byCodeUnits } from '../domain/text-order.ts';

/** The condition's type, and its reason within the lead time. */
export const CERTIFICATE_EXPIRING = 'CertificateExpiring';
export const CERTIFICATE_EXPIRED = 'CertificateExpired';
export const CERTIFICATES_VALID = 'CertificatesValid';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface CertificateVerdict {
  /**
   * None without certificates; else CertificateExpiring (True within the lead time or once
   * expired, False otherwise) and, once one has expired, Stalled.
   */
  conditions: Condition[];
  /** What the status remembers: each certificate's state as said now, the first to expire first. */
  records: CertificateRecord[];
  /** A Warning event per certificate whose state is no longer the one remembered, unless Valid. */
  events: { reason: string; message: string }[];
  /** When what is said next changes (a state, or the time left in words); none when nothing will. */
  nextChangeAt?: Date;
}

/** Valid until the lead time before its not-after time, Expiring from then, Expired once past it. */
export function certificateState(notAfter: Date, now: Date, warningMs: number): CertificateState {
  const left = notAfter.getTime() - now.getTime();
  if (left < 0) return 'Expired';
  return left <= warningMs ? 'Expiring' : 'Valid';
}

/**
 * The verdict on `read` at `now`. `previous`: what the status remembers (events only for changes
 * since); `about`: what a message starts with where the object is not the connection itself.
 */
export function judgeCertificates(
  read: readonly ReadCertificate[],
  previous: readonly CertificateRecord[] | undefined,
  now: Date,
  warningMs: number,
  about = '',
): CertificateVerdict {
  if (read.length === 0) return { conditions: [], records: [], events: [] };
  const judged = [...read]
    .sort((a, b) => a.notAfter.getTime() - b.notAfter.getTime() || byCodeUnits(identity(a), identity(b)))
    .map((certificate) => ({ certificate, state: certificateState(certificate.notAfter, now, warningMs) }));
  const expired = judged.filter((j) => j.state === 'Expired').map((j) => j.certificate);
  const expiring = judged.filter((j) => j.state === 'Expiring').map((j) => j.certificate);
  const conditions: Condition[] = [];
  if (expired.length > 0 || expiring.length > 0) {
    const said = [...expired.map(expiredWords), ...expiring.map((c) => expiringWords(c, now))];
    conditions.push({
      type: CERTIFICATE_EXPIRING,
      status: 'True',
      reason: expired.length > 0 ? CERTIFICATE_EXPIRED : CERTIFICATE_EXPIRING,
      message: `${about}${said.join('; ')}: ${RENEW}`,
    });
  } else {
    const first = judged[0]?.certificate;
    conditions.push({
      type: CERTIFICATE_EXPIRING,
      status: 'False',
      reason: CERTIFICATES_VALID,
      message: `${about}every certificate read is valid for more than ${span(warningMs)}; the first to expire is the ${first ? `${describe(first)}, at ${first.notAfter.toISOString()}` : ''}`,
    });
  }
  if (expired.length > 0)
    conditions.push(stalled(CERTIFICATE_EXPIRED, `${about}${expired.map(expiredWords).join('; ')}: ${RENEW_EXPIRED}`));

  const remembered = new Map((previous ?? []).map((r) => [recordIdentity(r), r.state]));
  const events = judged.flatMap(({ certificate, state }) => {
    if (state === 'Valid' || remembered.get(identity(certificate)) === state) return [];
    return state === 'Expired'
      ? [{ reason: CERTIFICATE_EXPIRED, message: `${about}${expiredWords(certificate)}: ${RENEW_EXPIRED}` }]
      : [{ reason: CERTIFICATE_EXPIRING, message: `${about}${expiringWords(certificate, now)}: ${RENEW}` }];
  });

  const changes = judged.flatMap(({ certificate, state }) => nextChange(certificate.notAfter, state, now, warningMs));
  const nextChangeAt = changes.length > 0 ? new Date(Math.min(...changes)) : undefined;
  const records = judged.slice(0, MAX_REMEMBERED_CERTIFICATES).map(({ certificate: c, state }) => ({
    secret: c.secret,
    key: c.key,
    subject: c.subject,
    serialNumber: c.serialNumber,
    notAfter: c.notAfter.toISOString(),
    state,
  }));
  return { conditions, records, events, ...(nextChangeAt ? { nextChangeAt } : {}) };
}

const RENEW =
  'put a renewed certificate in the Secret before then (the controller takes it up when the Secret changes, and the worker Pods roll onto it)';
const RENEW_EXPIRED =
  'a server that checks refuses an expired client certificate, and a server certificate cannot be verified against an expired CA; put a renewed certificate in the Secret (the controller goes on with whatever still works)';

/** Names a certificate by where it is and its public names, never by its bytes. */
function describe(c: ReadCertificate): string {
  return `${c.authority ? 'CA certificate' : 'client certificate'} ${c.subject || '(no subject)'} (Secret ${c.secret} key ${c.key}, ${c.field})`;
}

function expiringWords(c: ReadCertificate, now: Date): string {
  return `${describe(c)} expires at ${c.notAfter.toISOString()}, ${timeLeft(c.notAfter.getTime() - now.getTime()).words}`;
}

function expiredWords(c: ReadCertificate): string {
  return `${describe(c)} expired at ${c.notAfter.toISOString()}`;
}

/**
 * The time left in whole units, coarse enough that the words (and so the status) change at most
 * once a day until the last two days; `below`: how much must be left for the words to stay.
 */
export function timeLeft(ms: number): { words: string; below: number } {
  for (const [unit, name] of [
    [DAY, 'days'],
    [HOUR, 'hours'],
    [MINUTE, 'minutes'],
  ] as const) {
    const whole = Math.floor(ms / unit);
    if (whole >= 2) return { words: `in ${whole} ${name}`, below: whole * unit };
  }
  return { words: 'in less than 2 minutes', below: 0 };
}

/** When a certificate's state, or the words of its time left, change next (epoch ms). */
function nextChange(notAfter: Date, state: CertificateState, now: Date, warningMs: number): number[] {
  const end = notAfter.getTime();
  if (state === 'Valid') return [end - warningMs];
  if (state === 'Expired') return [];
  const { below } = timeLeft(end - now.getTime());
  // The words change once less than `below` is left; it expires once past its not-after time.
  return [below > 0 ? end - below + 1 : end + 1];
}

/** A lead time in words: `7 days`, `12 hours`, `90 minutes`. */
function span(ms: number): string {
  for (const [unit, name] of [
    [DAY, 'day'],
    [HOUR, 'hour'],
    [MINUTE, 'minute'],
    [1000, 'second'],
  ] as const)
    if (ms >= unit && ms % unit === 0) return `${ms / unit} ${name}${ms === unit ? '' : 's'}`;
  return `${ms / 1000} seconds`;
}

function identity(c: ReadCertificate): string {
  return [c.secret, c.key, c.serialNumber, c.notAfter.toISOString()].join('\0');
}

function recordIdentity(r: CertificateRecord): string {
  return [r.secret, r.key, r.serialNumber, r.notAfter].join('\0');
}
