// When the webhook's self-managed certificates are renewed: pure rules over what the Secret holds,
// whether the API server already trusts the newest CA, and the time. Renewal comes at two thirds of
// a certificate's life, as cert-manager does it. A new CA is published in the webhook
// configuration's caBundle beside the old one before anything is signed with it; the serving
// certificate moves to it only once the API server trusts it, and an old CA leaves the bundle only
// when it has expired. So at no moment does any replica serve a certificate the API server would
// refuse.

/** A certificate's notBefore is set this long before it is issued: clocks in a cluster differ a little. */
export const BACKDATE_MS = 60_000;
/** A CA lives this many times as long as the serving certificates it signs. */
export const AUTHORITY_LIFETIMES = 4;
const RENEW_AT = 2 / 3;
/** How long a CA in the caBundle waits before it signs: every API server must have read the bundle. */
const MAX_PUBLISH_GRACE_MS = 5 * 60_000;

/** Epoch milliseconds, as the certificate says. */
export interface Validity {
  notBefore: number;
  notAfter: number;
}

export interface AuthorityFacts extends Validity {
  fingerprint: string;
}

export interface ServingFacts extends Validity {
  /** The fingerprint of the CA that signed it. */
  issuer: string;
  hosts: readonly string[];
}

export interface HeldCertificates {
  /** Every CA the caBundle trusts, oldest first; the key is held for the last one only. */
  authorities: readonly AuthorityFacts[];
  serving: ServingFacts;
  /** The webhook configuration's caBundle holds the newest CA. */
  newestPublished: boolean;
}

export interface CertificateWants {
  /** The names the API server calls the webhook by. */
  hosts: readonly string[];
  /** Of a serving certificate; a CA lives AUTHORITY_LIFETIMES times as long. */
  lifetimeMs: number;
}

export type CertificateStep =
  | { kind: 'issueAuthority'; reason: string }
  /** Signed by the newest CA, the one issued by a step before it if there is one. */
  | { kind: 'issueServing'; reason: string }
  | { kind: 'dropAuthority'; fingerprint: string; reason: string };

export interface CertificatePlan {
  steps: CertificateStep[];
  /** Why a renewal that is due is held back, if one is. */
  waiting?: string;
  /** When to ask again if nothing else changes (with steps: at once, after they are done). */
  recheckAt: number;
}

export function publishGraceMs(lifetimeMs: number): number {
  return Math.min(lifetimeMs / 10, MAX_PUBLISH_GRACE_MS);
}

function issuedAt(certificate: Validity): number {
  return certificate.notBefore + BACKDATE_MS;
}

function renewalDue(certificate: Validity): number {
  return issuedAt(certificate) + (certificate.notAfter - issuedAt(certificate)) * RENEW_AT;
}

export function certificatePlan(
  held: HeldCertificates | undefined,
  wants: CertificateWants,
  now: number,
): CertificatePlan {
  const newest = held?.authorities.at(-1);
  if (!held || !newest) {
    const reason = 'no certificate yet';
    return {
      steps: [
        { kind: 'issueAuthority', reason },
        { kind: 'issueServing', reason },
      ],
      recheckAt: now,
    };
  }
  if (now >= renewalDue(newest))
    return {
      steps: [
        { kind: 'issueAuthority', reason: 'the CA is two thirds through its life; it is published before it signs' },
      ],
      recheckAt: now,
    };
  const { serving } = held;
  const steps: CertificateStep[] = [];
  const times = [renewalDue(newest), renewalDue(serving), serving.notAfter];
  let waiting: string | undefined;
  const trustedSince = issuedAt(newest) + publishGraceMs(wants.lifetimeMs);
  const newestTrusted = held.newestPublished && now >= trustedSince;
  const urgent = servingBroken(held, wants, now);
  if (urgent) steps.push({ kind: 'issueServing', reason: urgent });
  else {
    const due =
      now >= renewalDue(serving)
        ? 'the serving certificate is two thirds through its life'
        : serving.issuer !== newest.fingerprint
          ? 'the serving certificate moves to the new CA'
          : undefined;
    if (due && newestTrusted) steps.push({ kind: 'issueServing', reason: due });
    else if (due) {
      waiting = held.newestPublished
        ? `${due}, once the API server has had the new CA for ${Math.round(publishGraceMs(wants.lifetimeMs) / 1000)}s`
        : `${due}, once the webhook configuration's caBundle holds the newest CA`;
      if (held.newestPublished) times.push(trustedSince);
    }
  }
  const signer = steps.length > 0 ? newest.fingerprint : serving.issuer;
  for (const authority of held.authorities.slice(0, -1)) {
    if (authority.fingerprint === signer) continue;
    if (now >= authority.notAfter)
      steps.push({ kind: 'dropAuthority', fingerprint: authority.fingerprint, reason: 'the CA has expired' });
    else times.push(authority.notAfter);
  }
  return {
    steps,
    ...(waiting ? { waiting } : {}),
    recheckAt: steps.length > 0 ? now : Math.min(...times.filter((time) => time > now)),
  };
}

/** Why the serving certificate cannot wait for the new CA to be trusted, if it cannot. */
function servingBroken(held: HeldCertificates, wants: CertificateWants, now: number): string | undefined {
  const { serving } = held;
  if (!held.authorities.some((authority) => authority.fingerprint === serving.issuer))
    return 'the serving certificate was signed by a CA the caBundle no longer holds';
  if (now >= serving.notAfter) return 'the serving certificate has expired';
  const missing = wants.hosts.filter((host) => !serving.hosts.includes(host));
  if (missing.length > 0) return `the serving certificate does not name ${missing.join(', ')}`;
  return undefined;
}
