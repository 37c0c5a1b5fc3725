// Who may read an endpoint of the controller's, decided by the API server as controller-runtime's
// secure metrics do: the request's bearer token is authenticated with a TokenReview, and its user
// authorized with a SubjectAccessReview for what the endpoint stands for (`get` on the
// non-resource URL /metrics, `list` on worker deployments for the dashboard). An allowed token is
// taken as allowed for a minute, kept by its hash; a refusal is asked again every time.
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { errorMessage } from './kube/api-errors.ts';
import type { KubernetesApi } from './kube/api-client.ts';

const ALLOWED_LIFETIME_MS = 60_000;
/** Allowed tokens kept at most: past it, the expired go, and if none has, all (each asked again). */
const MAX_ALLOWED_KEPT = 1000;

/** What a SubjectAccessReview asks: `get /metrics`, or `list` of a resource. */
export type AccessAttributes =
  | { nonResourceAttributes: { path: string; verb: string } }
  | { resourceAttributes: { group: string; resource: string; verb: string; namespace?: string } };

export type AccessVerdict = { allowed: true } | { allowed: false; status: 401 | 403 | 503; message: string };

export type BearerAccess = (headers: IncomingHttpHeaders) => Promise<AccessVerdict>;

interface ReviewedUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Allowed when the user is allowed every one of `attributes` (a list in each namespace watched, say). */
export function bearerAccess(
  api: KubernetesApi,
  attributes: readonly AccessAttributes[],
  now: () => number = Date.now,
): BearerAccess {
  const allowedUntil = new Map<string, number>();
  const remember = (key: string) => {
    if (allowedUntil.size >= MAX_ALLOWED_KEPT) {
      for (const [k, until] of allowedUntil) if (until <= now()) allowedUntil.delete(k);
      if (allowedUntil.size >= MAX_ALLOWED_KEPT) allowedUntil.clear();
    }
    allowedUntil.set(key, now() + ALLOWED_LIFETIME_MS);
  };
  const what = (a: AccessAttributes) =>
    'nonResourceAttributes' in a
      ? `${a.nonResourceAttributes.verb} ${a.nonResourceAttributes.path}`
      : `${a.resourceAttributes.verb} ${a.resourceAttributes.resource}.${a.resourceAttributes.group}${a.resourceAttributes.namespace ? ` in namespace ${a.resourceAttributes.namespace}` : ''}`;
  return async (headers) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
    if (!token) return { allowed: false, status: 401, message: 'a bearer token is required (Authorization: Bearer)' };
    const key = createHash('sha256').update(token).digest('hex');
    if ((allowedUntil.get(key) ?? 0) > now()) return { allowed: true };
    try {
      const review = await api.create<{ status?: { authenticated?: boolean; user?: ReviewedUser } }>(
        '/apis/authentication.k8s.io/v1/tokenreviews',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      );
      const user = review.status?.user;
      if (review.status?.authenticated !== true || !user)
        return { allowed: false, status: 401, message: 'the API server does not accept the bearer token' };
      for (const attribute of attributes) {
        const access = await api.create<{ status?: { allowed?: boolean } }>(
          '/apis/authorization.k8s.io/v1/subjectaccessreviews',
          {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, ...attribute },
          },
        );
        if (access.status?.allowed !== true)
          return { allowed: false, status: 403, message: `${user.username ?? 'the user'} may not ${what(attribute)}` };
      }
      remember(key);
      return { allowed: true };
    } catch (error) {
      return { allowed: false, status: 503, message: `cannot check the bearer token: ${errorMessage(error)}` };
    }
  };
}
