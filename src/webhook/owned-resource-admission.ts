// Whether a TemporalWorkerOwnedResource may be created, changed or deleted, judged as the validating
// webhook judges it: first on the object alone (a banned or missing kind, the fields the
// controller fills in, placeholders, a changed workerRef, an RBAC kind), then on what the API
// server says of its embedded kind (not served: refused, fail closed; cluster-scoped: refused) and
// of who may do what with it (the requesting user, and the ServiceAccount every copy is written as). Every refusal names the field. Pure: the answers of
// discovery and of the SubjectAccessReviews come in as data.
import canonicalize from 'canonicalize';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import { AUTOSCALER_KINDS, refusedKind } from '../domain/owned-resources.ts';
import { ownedObjectProblems } from '../k8s/owned-resource-copies.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

/** Kinds no twor may make by default: a copy of a workload would run Pods beside the build's own. */
export const DEFAULT_BANNED_KINDS: readonly string[] = [
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Pod',
  'Job',
  'CronJob',
];

export type Verdict = { allowed: true; warnings: string[] } | { allowed: false; message: string };

/** Refusals that need no API call; empty when the object may go on to the API checks. */
export function objectProblems(
  operation: Operation,
  twor: TemporalWorkerOwnedResource,
  old: TemporalWorkerOwnedResource | undefined,
  bannedKinds: readonly string[],
): string[] {
  if (operation === 'DELETE') return [];
  const object = (twor.spec.object ?? {}) as Record<string, unknown> & { metadata?: Record<string, unknown> };
  const problems: string[] = [];
  if (typeof object.apiVersion !== 'string' || object.apiVersion === '')
    problems.push('spec.object.apiVersion: required, e.g. autoscaling/v2');
  if (typeof object.kind !== 'string' || object.kind === '')
    problems.push('spec.object.kind: required, e.g. HorizontalPodAutoscaler');
  else if (typeof object.apiVersion === 'string' && refusedKind(object.apiVersion, object.kind))
    // RBAC kinds: refused before any access review, whatever the author may do.
    problems.push(refusedKind(object.apiVersion, object.kind) ?? '');
  else if (bannedKinds.includes(object.kind))
    problems.push(
      `spec.object.kind: ${object.kind} may not be owned (the controller refuses ${bannedKinds.join(', ')}): a copy per build would run workloads beside the build's own`,
    );
  for (const field of ['name', 'namespace'] as const)
    if (object.metadata?.[field] !== undefined)
      problems.push(`spec.object.metadata.${field}: the controller sets it for each copy; remove it`);
  if (old && old.spec.workerRef.name !== twor.spec.workerRef.name)
    problems.push(
      `spec.workerRef.name: immutable (was ${old.spec.workerRef.name}); create a new TemporalWorkerOwnedResource instead`,
    );
  return [...problems, ...ownedObjectProblems(object, twor.spec.stateOverrides)];
}

/**
 * An update that leaves the spec as it was (finalizers, owner references, labels: the controller's
 * own adoption and release among them) changes no copy: it needs no access check.
 */
export function changesCopies(
  operation: Operation,
  twor: TemporalWorkerOwnedResource,
  old: TemporalWorkerOwnedResource | undefined,
): boolean {
  return operation !== 'UPDATE' || !old || canonicalize(old.spec) !== canonicalize(twor.spec);
}

/** What the API server said of the embedded kind and of who may act on it. */
export interface AccessFacts {
  operation: Operation;
  kind: string;
  apiVersion: string;
  namespace: string;
  /** Undefined when the API server does not serve the kind. */
  served?: { namespaced: boolean; resource: string };
  /** The requesting user's SubjectAccessReview for the operation's verb on the kind. */
  user?: { name: string; allowed: boolean; verb: string };
  /** The SubjectAccessReviews of the ServiceAccount the copies are written as, one per verb a copy needs; only on create and update. */
  account?: { name: string; denied: string[] };
}

export function accessVerdict(facts: AccessFacts): Verdict {
  const { kind, apiVersion, namespace } = facts;
  if (!facts.served)
    // Fail closed: who may make a kind the API server does not serve cannot be asked, and once its
    // CRD is installed the controller would make its copies without asking again.
    return facts.operation === 'DELETE'
      ? { allowed: true, warnings: [] }
      : {
          allowed: false,
          message: `spec.object.kind: the API server does not serve ${kind} of ${apiVersion} yet, so who may make it cannot be checked: install its CustomResourceDefinition (or API) first, then create or change this TemporalWorkerOwnedResource (a CRD just installed is seen within a minute)`,
        };
  const refused = refusedKind(apiVersion, kind, facts.served.namespaced);
  if (refused) return { allowed: false, message: refused };
  const resource = `${facts.served.resource}${apiVersion.includes('/') ? `.${apiVersion.split('/')[0] ?? ''}` : ''}`;
  if (facts.user && !facts.user.allowed)
    return {
      allowed: false,
      message: `spec.object.kind: ${facts.user.name} may not ${facts.user.verb} ${resource} in namespace ${namespace}, so may not ${facts.operation === 'DELETE' ? 'delete' : 'have the controller make'} copies of them`,
    };
  if (facts.account && facts.account.denied.length > 0)
    return {
      allowed: false,
      message: `spec.serviceAccountName: ServiceAccount ${facts.account.name}, which the controller writes the copies as, may not ${facts.account.denied.join(', ')} ${resource} in namespace ${namespace}: grant it with a RoleBinding, then try again`,
    };
  return { allowed: true, warnings: [] };
}

/** The verb the requesting user needs on the embedded kind for the operation. */
export function userVerb(operation: Operation): string {
  return operation === 'CREATE' ? 'create' : operation === 'UPDATE' ? 'update' : 'delete';
}

/**
 * What the controller does with every copy, as the copy's ServiceAccount: server-side apply
 * (`patch`, and `create` when absent), and `list` and `delete` to delete copies by ownership
 * (copy-deletion.ts).
 */
export const COPY_VERBS: readonly string[] = ['create', 'patch', 'list', 'delete'];

/**
 * The warning for an autoscaler of a worker deployment that sets its replicas itself: the
 * controller holds current and ramping builds at that count, so the two would fight.
 */
export function replicaFightWarnings(
  kind: string,
  workerDeployment: { name: string; replicas?: number; pools?: { name: string; replicas?: number }[] } | undefined,
): string[] {
  if (!workerDeployment || !AUTOSCALER_KINDS.includes(kind)) return [];
  const counts = [
    ...(workerDeployment.replicas === undefined ? [] : [`spec.replicas (${workerDeployment.replicas})`]),
    ...(workerDeployment.pools ?? []).flatMap((pool) =>
      pool.replicas === undefined ? [] : [`the replicas of pool ${pool.name} (${pool.replicas})`],
    ),
  ];
  return counts.length === 0
    ? []
    : [
        `spec.object.kind: worker deployment ${workerDeployment.name} sets ${counts.join(' and ')}, which the controller holds its current and ramping builds at, undoing what this ${kind} sets: leave them unset for the ${kind} to own the replicas`,
      ];
}
