// The words the owned-resource renderer (k8s/owned-resource-copies.ts) and the planner
// (planner/owned-resources.ts) share: which Deployment a copy is for, and the copy as rendered.

/** One Kubernetes Deployment of one build: what its copies are made for. */
export interface CopyTarget {
  deployment: string;
  uid: string;
  buildId: string;
  pool?: string;
  /** The pool's task queue, where pools exist. */
  taskQueue?: string;
  /** spec.replicas; undefined when unset. */
  replicas?: number;
}

export interface CopyOf {
  twor: string;
  kind: string;
  target: CopyTarget;
  /** The copy's name. */
  name: string;
}

export type RenderedCopy = CopyOf & ({ object: Record<string, unknown>; hash: string } | { refused: string });

/** The API group whose kinds (Roles, RoleBindings, ClusterRoles...) no owned resource may make. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * Why the controller never makes copies of a kind, whatever the author's rights; undefined when it
 * may. Every kind of the RBAC group is refused (a copy made with the controller's rights would
 * grant what its author may not), and so is a cluster-scoped one (a copy per build is of the
 * build's namespace). `namespaced` is what discovery said, undefined when not known: the RBAC rule
 * needs no discovery. Shared by the webhook and the controller, so both refuse the same kinds.
 */
export function refusedKind(apiVersion: string, kind: string, namespaced?: boolean): string | undefined {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (group === RBAC_GROUP)
    return `spec.object.kind: ${kind} of ${apiVersion} is an RBAC kind: owned resources never make objects of ${RBAC_GROUP}, whatever their author's rights`;
  if (namespaced === false)
    return `spec.object.kind: ${kind} of ${apiVersion} is cluster-scoped; an owned resource must be namespaced`;
  return undefined;
}
