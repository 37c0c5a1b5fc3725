// The words the owned-resource renderer (k8s/owned-resource-copies.ts), the planner
// (planner/owned-resources.ts), the webhook and the controller share: which Deployment a copy is
// for, the copy as rendered, the kinds no copy may be of, the kinds that set a Deployment's
// replicas, and whose rights the copies are written with.
import type { BuildState, TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import type { ServiceAccountRef } from './token-policy.ts';

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
  /** The build's state, as the worker deployment's status last said it. */
  state: BuildState;
}

export interface CopyOf {
  twor: string;
  kind: string;
  target: CopyTarget;
  /** The copy's name. */
  name: string;
}

export type RenderedCopy = CopyOf & ({ object: Record<string, unknown>; hash: string } | { refused: string });

/** One twor of a worker deployment as Kubernetes shows it: what the plan's first phase decides its copies from. */
export interface OwnedResourceFacts {
  twor: TemporalWorkerOwnedResource;
  /** Why no copy of its kind may be made (refusedKind); none is rendered then. */
  refusal?: string;
  /** Whose rights its copies are written with (copyAccount). */
  account: ServiceAccountRef | { missing: string };
  /** Its copies, one per build's Deployment. */
  copies: RenderedCopy[];
  /** The uids of the worker deployment's Deployments: a copy is ours only if one of them owns it. */
  owners: string[];
}

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

/** A kind refused by refusedKind, met where only the API server could tell (a cluster-scoped kind). */
export class KindRefusedError extends Error {
  override name = 'KindRefusedError';
}

/**
 * The ServiceAccount of the twor's own namespace whose rights its copies are written (applied,
 * listed, deleted) with, by impersonation: `spec.serviceAccountName`, else the operator's default
 * (--owned-resources-service-account). Never the controller's own rights: with neither, why not.
 */
export function copyAccount(
  twor: { namespace: string; serviceAccountName?: string | undefined },
  fallback: string | undefined,
): ServiceAccountRef | { missing: string } {
  const name = twor.serviceAccountName || fallback;
  if (name) return { namespace: twor.namespace, name };
  return {
    missing:
      "spec.serviceAccountName: unset, and the controller has no default (--owned-resources-service-account, chart value controller.ownedResourcesServiceAccount): copies are written only with the rights of a ServiceAccount of the namespace, never the controller's",
  };
}

/** Kinds that set a Deployment's replicas: their copies go before their build is scaled to zero. */
export const AUTOSCALER_KINDS: readonly string[] = ['HorizontalPodAutoscaler', 'ScaledObject'];
