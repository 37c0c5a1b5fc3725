// Whether a worker deployment of a namespace may use a TemporalClusterConnection, which a cluster
// admin writes and any namespace editor may name. Its workers' credentials are copied into the
// worker deployment's namespace, where that namespace's editors read them, so:
// - a connection's own namespaces (those of the Secrets it names) may always use it: the copy
//   gives them nothing they could not read already;
// - any other namespace only if `spec.allowedNamespaces` selects it (absent or empty: none), and
//   only for `workerAuth` credentials: the connection's own, which may change routing, never leave
//   its own namespaces.
// Pure.
import type { NamespaceSelector, TemporalConnection } from '../api/temporal-connection.ts';

/** Why a namespace may not use a cluster connection: its copies there are deleted too. */
const REFUSALS = ['ClusterConnectionNotAllowed', 'ClusterConnectionWithoutWorkerAuth'] as const;

export type ClusterConnectionUse =
  { allowed: true } | { allowed: false; reason: (typeof REFUSALS)[number]; message: string };

/** Whether a Stalled reason is a namespace refused its cluster connection. */
export function refusedClusterConnection(reason: string): boolean {
  return (REFUSALS as readonly string[]).includes(reason);
}

/** A cluster connection, as the controller holds either kind: its spec may carry allowedNamespaces. */
interface ClusterConnection {
  spec: TemporalConnection['spec'] & { allowedNamespaces?: NamespaceSelector };
}

/**
 * `labels`: the namespace's, undefined when they could not be read (only the connection's own
 * namespaces may then use it).
 */
export function clusterConnectionUse(
  connection: ClusterConnection,
  namespace: string,
  labels: Readonly<Record<string, string>> | undefined,
): ClusterConnectionUse {
  if (ownNamespaces(connection.spec).has(namespace)) return { allowed: true };
  const selector = connection.spec.allowedNamespaces;
  if (!labels || !selects(selector, labels))
    return {
      allowed: false,
      reason: 'ClusterConnectionNotAllowed',
      message: `namespace ${namespace} may not use it: its spec.allowedNamespaces ${selector && !emptySelector(selector) ? 'does not select it' : 'is empty'} (a cluster admin adds the namespace there; or use a TemporalConnection of this namespace); nothing of the connection is copied here, and the copies made before are deleted`,
    };
  const { spec } = connection;
  if (!spec.workerAuth && (spec.mutualTLSSecretRef || spec.apiKeySecretRef))
    return {
      allowed: false,
      reason: 'ClusterConnectionWithoutWorkerAuth',
      message: `it has no spec.workerAuth, and its own ${spec.mutualTLSSecretRef ? 'mutualTLSSecretRef' : 'apiKeySecretRef'}, which may change routing, is copied only into the namespaces of its Secrets, not into ${namespace}, and the copies made before are deleted (a cluster admin sets spec.workerAuth)`,
    };
  return { allowed: true };
}

/** The namespaces of the Secrets the connection names. */
function ownNamespaces(spec: TemporalConnection['spec']): Set<string> {
  const refs = [
    spec.mutualTLSSecretRef,
    spec.apiKeySecretRef,
    spec.tls?.caCertSecretRef,
    spec.workerAuth?.mutualTLSSecretRef,
    spec.workerAuth?.apiKeySecretRef,
  ];
  return new Set(refs.flatMap((ref) => (ref?.namespace ? [ref.namespace] : [])));
}

function emptySelector(selector: NamespaceSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

/** A label selector as the API server matches it, but an empty one selects nothing here. */
export function selects(selector: NamespaceSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (!selector || emptySelector(selector)) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return (
    byLabel &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      const value = labels[key];
      switch (operator) {
        case 'In':
          return value !== undefined && values.includes(value);
        case 'NotIn':
          return value === undefined || !values.includes(value);
        case 'Exists':
          return value !== undefined;
        case 'DoesNotExist':
          return value === undefined;
      }
    })
  );
}
