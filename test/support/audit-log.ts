// What the API server's audit log (see localenv/kubernetes.ts) says a service account asked for.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the suite's global teardown writes what the controllers asked for (controllerRequestKinds). */
export const CONTROLLER_REQUESTS_REPORT = path.join(import.meta.dirname, '../../reports/controller-requests.json');

export interface AuditedRequest {
  verb: string;
  /** '' for the core group. */
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  uri: string;
  /** Refused by the authorizer (RBAC), not for another reason such as a namespace being deleted. */
  forbidden: boolean;
}

interface AuditEvent {
  auditID: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  /** Whom the request acted as, when it impersonated someone (an owned resource's copies, written as its ServiceAccount). */
  impersonatedUser?: { username: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; apiGroup?: string };
  annotations?: Record<string, string>;
}

/** Every request the service account `namespace/name` made, as the API server completed it. */
export function controllerRequests(auditLog: string, namespace: string, name: string): AuditedRequest[] {
  const user = `system:serviceaccount:${namespace}:${name}`;
  return auditedRequests(auditLog).filter((request) => request.user === user);
}

/**
 * Every request of any service account, with who made it. An impersonated request is its
 * impersonated user's (whose rights the API server checked), and its maker's `impersonate` of a
 * ServiceAccount, the right the maker used.
 */
function auditedRequests(auditLog: string): (AuditedRequest & { user: string })[] {
  // A watch is recorded when its response starts and again when it ends: one request, counted once.
  const byId = new Map<string, AuditEvent>();
  for (const line of readFileSync(auditLog, 'utf8').split('\n')) {
    if (line.length === 0) continue;
    const event = JSON.parse(line) as AuditEvent;
    if (!byId.has(event.auditID)) byId.set(event.auditID, event);
  }
  return [...byId.values()].flatMap((event) => {
    const request = {
      user: event.impersonatedUser?.username ?? event.user.username,
      verb: event.verb,
      group: event.objectRef?.apiGroup ?? '',
      resource: event.objectRef?.resource ?? '',
      ...(event.objectRef?.subresource ? { subresource: event.objectRef.subresource } : {}),
      ...(event.objectRef?.namespace ? { namespace: event.objectRef.namespace } : {}),
      uri: event.requestURI,
      forbidden: event.annotations?.['authorization.k8s.io/decision'] === 'forbid',
    };
    if (!event.impersonatedUser) return [request];
    const impersonation = {
      user: event.user.username,
      verb: 'impersonate',
      group: '',
      resource: 'serviceaccounts',
      uri: event.requestURI,
      forbidden: false,
    };
    return [impersonation, request];
  });
}

/** One kind of request (a verb on a resource), how often it was made and how often refused. */
export interface RequestKind {
  verb: string;
  group: string;
  /** With its subresource, as RBAC names it: deployments/scale. */
  resource: string;
  count: number;
  /** By the authorizer. */
  refused: number;
}

/** The kinds of request every controller installation made: the service accounts the chart names. */
export function controllerRequestKinds(auditLog: string): RequestKind[] {
  const kinds = new Map<string, RequestKind>();
  for (const request of auditedRequests(auditLog)) {
    if (!/^system:serviceaccount:[^:]+:.*temporal-worker-controller$/.test(request.user)) continue;
    if (request.resource === '') continue; // discovery (/api, /version...), which every user may read
    const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
    const key = `${request.verb} ${request.group} ${resource}`;
    const kind = kinds.get(key) ?? { verb: request.verb, group: request.group, resource, count: 0, refused: 0 };
    kind.count++;
    if (request.forbidden) kind.refused++;
    kinds.set(key, kind);
  }
  return [...kinds.values()].sort((a, b) =>
    `${a.group} ${a.resource} ${a.verb}`.localeCompare(`${b.group} ${b.resource} ${b.verb}`),
  );
}
