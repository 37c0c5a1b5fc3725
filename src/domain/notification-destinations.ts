// Where a notification receiver's deliveries go, read from its Secret, and whether the controller's
// administrator allows it (--notification-destinations). The URL and the Authorization header come
// from the same Secret, so a user who may edit the worker deployment but not read a Secret can only
// make the controller send that Secret's content where the Secret itself points. Pure.
import { NOTIFICATION_SECRET_KEYS } from '../api/notifications.ts';

export const DESTINATIONS_FLAG = '--notification-destinations';

export interface Destination {
  url: string;
  /** The Authorization header, when the Secret has one. */
  authorization?: string;
}

export type DestinationVerdict = { destination: Destination } | { refused: string };

/**
 * The receiver's destination, or why none: `field` is the receiver's spec field
 * (spec.notifications[0].secretRef), named in the refusal; `data` the Secret's data (base64) or
 * undefined when it does not exist; `allowed` the administrator's URL prefixes.
 */
export function destinationOf(
  field: string,
  secret: { name: string; data: Record<string, string> | undefined },
  allowed: readonly string[],
): DestinationVerdict {
  if (allowed.length === 0)
    return {
      refused: `${field}: notifications are off in this controller: its administrator allows no destination (${DESTINATIONS_FLAG}, chart value controller.notificationDestinations)`,
    };
  if (!secret.data) return { refused: `${field}: Secret ${secret.name} does not exist` };
  const text = decoded(secret.data[NOTIFICATION_SECRET_KEYS.url]);
  if (text === undefined)
    return { refused: `${field}: Secret ${secret.name} has no key ${NOTIFICATION_SECRET_KEYS.url}` };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { refused: `${field}: key ${NOTIFICATION_SECRET_KEYS.url} of Secret ${secret.name} is not a URL` };
  }
  // The URL itself stays unsaid: it may carry a token (Slack's do).
  if (!allowed.some((prefix) => allows(prefix, url)))
    return {
      refused: `${field}: the URL in key ${NOTIFICATION_SECRET_KEYS.url} of Secret ${secret.name} (host ${url.host}) is not allowed by the controller's ${DESTINATIONS_FLAG}`,
    };
  const authorization = decoded(secret.data[NOTIFICATION_SECRET_KEYS.authorization])?.trim();
  return { destination: { url: url.href, ...(authorization ? { authorization } : {}) } };
}

/**
 * Whether an allowed prefix covers the URL: same scheme, host and port, and the path under the
 * prefix's path. Compared as parsed URLs, not as text: `https://hooks.example.com` must not allow
 * `https://hooks.example.com.evil.net`, nor `https://a@hooks.example.com@evil.net` pass.
 */
export function allows(prefix: string, url: URL): boolean {
  let allowed: URL;
  try {
    allowed = new URL(prefix);
  } catch {
    return false;
  }
  if (allowed.protocol !== url.protocol || allowed.host !== url.host) return false;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const base = allowed.pathname.endsWith('/') ? allowed.pathname : `${allowed.pathname}/`;
  return url.pathname === allowed.pathname || url.pathname.startsWith(base);
}

/** Whether each flag value is a URL a prefix can be: said at startup, not at the first rollout. */
export function invalidDestinations(prefixes: readonly string[]): string[] {
  return prefixes.filter((p) => {
    try {
      const url = new URL(p);
      return url.protocol !== 'https:' && url.protocol !== 'http:';
    } catch {
      return true;
    }
  });
}

function decoded(base64: string | undefined): string | undefined {
  return base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('utf8');
}
