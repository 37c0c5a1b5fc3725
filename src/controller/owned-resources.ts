// The copies of a worker deployment's owned resources: rendered as Kubernetes shows the twor and
// its builds (ownedResourceFacts, read before the plan), and carried out for the executor, one
// twor per action of the plan's first phase (planner/kubernetes-phase.ts). Every copy is written
// (applied, listed, deleted) as a ServiceAccount of the twor's own namespace (copyAccount), so the
// API server's RBAC decides what the namespace may make, never the controller's rights. Each copy
// goes on its own: one the API server refuses is said in its twor's status and a Warning event and
// tried again with backoff, while the other copies, the other twor and the rollout go on. Each
// twor's status is written once, when it changed.
import type { V1Deployment } from '@kubernetes/client-node';
import { API_VERSION, KINDS } from '../api/kinds.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import { isBeingDeleted } from '../domain/finalizer.ts';
import { LABELS } from '../domain/labels.ts';
import {
  type CopyTarget,
  copyAccount,
  KindRefusedError,
  type OwnedResourceFacts,
  refusedKind,
} from '../domain/owned-resources.ts';
import type { ServiceAccountRef } from '../domain/token-policy.ts';
import { errorMessage, httpStatus } from '../runtime/kube/api-errors.ts';
import { KindNotServedError } from '../k8s/api-resources.ts';
import type { AnyObject, ClusterClient, OwnerReference } from '../k8s/cluster-client.ts';
import { renderCopies } from '../k8s/owned-resource-copies.ts';
import type { OwnedResourceAction, PlannedCopy } from '../planner/owned-resources.ts';
import type { RetrySchedule } from '../runtime/backoff.ts';
import type { Logger } from '../runtime/logger.ts';
import { buildStates } from '../status/build-states.ts';
import { type Condition, nextStatus, stalled } from '../status/conditions.ts';
import type { RecordEvent } from './events.ts';
import { deleteCopies } from './copy-deletion.ts';
import { addFinalizer } from './finalizers.ts';
import { byCodeUnits } from '../domain/text-order.ts';

/** What rendering the copies reads. */
export interface OwnedResourceSources {
  /** The TemporalWorkerOwnedResources of a namespace, as cached. */
  ownedResources(namespace: string): readonly TemporalWorkerOwnedResource[];
  /** The ServiceAccount copies are written as where a twor names none (--owned-resources-service-account). */
  ownedResourcesServiceAccount?: string | undefined;
}

/** What carrying the copies out needs. */
export interface OwnedResourceDependencies {
  cluster: ClusterClient;
  recordEvent: RecordEvent;
  now(): Date;
  log: Logger;
  /** Per copy (`namespace/twor/copy name`): when a refused one is tried again. */
  copyRetries: RetrySchedule<string>;
  /** A write of a copy that its ServiceAccount may not make (403): twc_owned_resource_copies_forbidden_total. */
  countCopyForbidden?(namespace: string, kind: string, verb: string): void;
}

type CopyStatus = NonNullable<NonNullable<TemporalWorkerOwnedResource['status']>['versions']>[number];

/** The field manager of one twor's copies: two twor never take each other's fields. */
export function fieldManager(namespace: string, twor: string): string {
  return `twc/${namespace}/${twor}`;
}

/**
 * The worker deployment's twor, each with its copies rendered for the builds' Deployments. A kind
 * no owned resource may make (RBAC) is refused here too, whatever admission let through (the
 * webhook off, or the object stored before it was registered): no copy of it is rendered.
 */
export function ownedResourceFacts(
  sources: OwnedResourceSources,
  workerDeployment: TemporalWorkerDeployment,
  live: readonly V1Deployment[],
): OwnedResourceFacts[] {
  const { name = '', namespace = '' } = workerDeployment.metadata;
  const owners = live.flatMap((d) => (d.metadata?.uid ? [d.metadata.uid] : []));
  const targets = copyTargets(workerDeployment, live);
  return sources
    .ownedResources(namespace)
    .filter((t) => t.spec.workerRef.name === name && !isBeingDeleted(t))
    .map((twor) => {
      const account = copyAccount(
        { namespace, serviceAccountName: twor.spec.serviceAccountName },
        sources.ownedResourcesServiceAccount,
      );
      const refusal = refusedKind(twor.spec.object.apiVersion, twor.spec.object.kind);
      if (refusal) return { twor, refusal, account, copies: [], owners };
      const copies = renderCopies({
        workerDeployment: { name, namespace, temporalNamespace: workerDeployment.spec.workerOptions.temporalNamespace },
        twors: [
          {
            name: twor.metadata.name ?? '',
            object: twor.spec.object,
            ...(twor.spec.stateOverrides ? { stateOverrides: twor.spec.stateOverrides } : {}),
          },
        ],
        targets,
      });
      return { twor, account, copies, owners };
    });
}

/** Carries out one twor's planned copies, as its ServiceAccount, and writes its status when it changed. */
export async function syncOwnedResource(
  deps: OwnedResourceDependencies,
  workerDeployment: TemporalWorkerDeployment,
  { facts, copies }: OwnedResourceAction,
): Promise<void> {
  const { twor, account, refusal } = facts;
  const owners = new Set(facts.owners);
  const adopted = await adopt(deps, workerDeployment, twor);
  if (refusal) return refuseKind(deps, adopted, refusal, 'missing' in account ? undefined : account, owners);
  if ('missing' in account) {
    await writeStatus(deps, adopted, [stalled('ServiceAccountMissing', account.missing)], twor.status?.versions ?? []);
    return;
  }
  const left = await deleteCopiesOfAnotherKind(deps, twor, owners, account);
  let entries: (CopyStatus | undefined)[];
  try {
    entries = await Promise.all(copies.map((copy) => carryOut(deps, twor, copy, account)));
  } catch (error) {
    // A kind only discovery tells refused (cluster-scoped): refused as an RBAC kind is.
    if (!(error instanceof KindRefusedError)) throw error;
    return refuseKind(deps, adopted, error.message, account, owners);
  }
  const versions = entries.flatMap((e) => (e ? [e] : []));
  await writeCopiesStatus(deps, workerDeployment, adopted, versions, account, left);
}

/**
 * A twor of a kind no copy may be of: none is applied, and the copies an earlier controller made
 * of it (the twor's status says some were applied) are deleted, as its ServiceAccount, by
 * ownership. Stalled=True/KindRefused says why, and what of those copies remains.
 */
async function refuseKind(
  deps: OwnedResourceDependencies,
  twor: TemporalWorkerOwnedResource,
  refusal: string,
  account: ServiceAccountRef | undefined,
  owners: ReadonlySet<string>,
): Promise<void> {
  const made = (twor.status?.versions ?? []).filter((v) => v.applied || v.appliedHash);
  let left = '';
  if (made.length > 0) {
    const { apiVersion, kind } = twor.spec.object;
    try {
      if (!account) throw new Error('no ServiceAccount to delete them as (spec.serviceAccountName)');
      await deleteCopies(
        deps.cluster,
        { apiVersion, kind },
        twor.metadata.namespace ?? '',
        twor.metadata.name ?? '',
        owners,
        account,
      );
      deps.log.info({ twor: twor.metadata.name }, `deleted the copies of ${kind} an earlier controller made`);
    } catch (error) {
      left = `; its copies an earlier controller made remain (${made.map((v) => v.resourceName).join(', ')}): ${errorMessage(error)}`;
    }
  }
  const said = stalled('KindRefused', refusal + left);
  if (await writeStatus(deps, twor, [said], left ? made : []))
    await deps.recordEvent(
      { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerOwnedResource.kind, metadata: twor.metadata },
      { type: 'Warning', reason: 'KindRefused', message: said.message },
    );
}

/**
 * A twor whose kind changed: its copies of the old kind go (an old HPA would fight a new KEDA
 * ScaledObject). Resolves with the kind whose copies are still there, when they could not go.
 */
async function deleteCopiesOfAnotherKind(
  deps: OwnedResourceDependencies,
  twor: TemporalWorkerOwnedResource,
  owners: ReadonlySet<string>,
  account: ServiceAccountRef,
): Promise<{ apiVersion: string; kind: string } | undefined> {
  const before = twor.status?.appliedKind;
  const { apiVersion, kind } = twor.spec.object;
  if (!before || (before.apiVersion === apiVersion && before.kind === kind)) return undefined;
  try {
    await deleteCopies(deps.cluster, before, twor.metadata.namespace ?? '', twor.metadata.name ?? '', owners, account);
    deps.log.info(
      { twor: twor.metadata.name },
      `deleted its copies of ${before.kind} (${before.apiVersion}): it now makes ${kind}`,
    );
    return undefined;
  } catch (error) {
    if (error instanceof KindNotServedError) return undefined;
    deps.log.warn(
      { twor: twor.metadata.name, error: errorMessage(error) },
      `could not delete its copies of ${before.kind}`,
    );
    return before;
  }
}

function copyTargets(workerDeployment: TemporalWorkerDeployment, live: readonly V1Deployment[]): CopyTarget[] {
  const stateOf = buildStates(workerDeployment.status);
  return live.flatMap((d) => {
    const uid = d.metadata?.uid;
    const buildId = d.metadata?.labels?.[LABELS.buildId];
    // A Deployment created in this reconcile has no uid yet: its event brings the copies.
    if (!uid || !buildId) return [];
    const pool = d.metadata?.labels?.[LABELS.pool];
    const taskQueue = workerDeployment.spec.pools?.find((p) => p.name === pool)?.taskQueue;
    return [
      {
        deployment: d.metadata?.name ?? '',
        uid,
        buildId,
        ...(pool ? { pool } : {}),
        ...(taskQueue ? { taskQueue } : {}),
        ...(d.spec?.replicas === undefined ? {} : { replicas: d.spec.replicas }),
        state: stateOf(buildId),
      },
    ];
  });
}

/**
 * The twor is owned by its worker deployment (deleting one deletes the other) and holds our
 * finalizer (its copies go before it does); each written once. Resolves with the object as written.
 */
async function adopt(
  deps: OwnedResourceDependencies,
  workerDeployment: TemporalWorkerDeployment,
  twor: TemporalWorkerOwnedResource,
): Promise<TemporalWorkerOwnedResource> {
  const plural = KINDS.TemporalWorkerOwnedResource.plural;
  const uid = workerDeployment.metadata.uid ?? '';
  try {
    let written = twor;
    const owners = (twor.metadata.ownerReferences ?? []) as OwnerReference[];
    if (!owners.some((o) => o.controller && o.uid === uid)) {
      const owner: OwnerReference = {
        apiVersion: API_VERSION,
        kind: KINDS.TemporalWorkerDeployment.kind,
        name: workerDeployment.metadata.name ?? '',
        uid,
        controller: true,
        blockOwnerDeletion: true,
      };
      const ownerReferences = [...owners.filter((o) => !o.controller), owner];
      const resourceVersion = await deps.cluster.setOwnerReferences(plural, twor, ownerReferences);
      written = { ...twor, metadata: { ...twor.metadata, ownerReferences, resourceVersion } };
    }
    return await addFinalizer(deps.cluster, plural, written);
  } catch (error) {
    // A conflict: the twor changed since the cache was read, and its event brings this back.
    deps.log.warn({ twor: twor.metadata.name, error: errorMessage(error) }, 'could not adopt the owned resource');
    return twor;
  }
}

/** The key of a copy in copyRetries. */
function copyRetryKey(namespace: string, twor: string, copy: string): string {
  return `${namespace}/${twor}/${copy}`;
}

/** Whether a key of copyRetries is of a copy of this twor. */
export function ofOwnedResource(namespace: string, twor: string): (key: string) => boolean {
  return (key) => key.startsWith(copyRetryKey(namespace, twor, ''));
}

/**
 * Carries out the plan of one copy, as the twor's ServiceAccount; resolves with what the status
 * says of it then, undefined when it is not to exist. Rejects with KindRefusedError alone.
 */
async function carryOut(
  deps: OwnedResourceDependencies,
  twor: TemporalWorkerOwnedResource,
  copy: PlannedCopy,
  account: ServiceAccountRef,
): Promise<CopyStatus | undefined> {
  const namespace = twor.metadata.namespace ?? '';
  const key = copyRetryKey(namespace, copy.twor, copy.name);
  const previous = twor.status?.versions?.find((v) => v.resourceName === copy.name);
  const entry = { buildID: copy.buildId, ...(copy.pool ? { pool: copy.pool } : {}), resourceName: copy.name };
  const object = twor.spec.object as { apiVersion: string; kind: string };
  const target: AnyObject = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name: copy.name, namespace },
  };
  const now = deps.now().getTime();
  const refused = async (message: string, forbiddenTo?: string): Promise<CopyStatus> => {
    await deps.recordEvent(
      { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerOwnedResource.kind, metadata: twor.metadata },
      { type: 'Warning', reason: 'CopyNotApplied', message: `build ${copy.buildId}: ${message}` },
    );
    return {
      ...entry,
      applied: false,
      message,
      ...(forbiddenTo ? { forbiddenTo } : {}),
      ...(previous?.appliedHash ? { appliedHash: previous.appliedHash } : {}),
      ...(previous?.appliedGeneration === undefined ? {} : { appliedGeneration: previous.appliedGeneration }),
    };
  };
  /** A write that failed: one its ServiceAccount may not make is said as such, and counted. */
  const failed = async (error: unknown, operation: string, retry = ''): Promise<CopyStatus> => {
    if (error instanceof KindRefusedError) throw error;
    if (httpStatus(error) !== 403) return refused(`${errorMessage(error)}${retry}`);
    // The API server's message names the verb RBAC refused (an apply is a create where the copy is new).
    const verb = /cannot (\w+) resource/.exec(errorMessage(error))?.[1] ?? operation;
    deps.countCopyForbidden?.(namespace, object.kind, verb);
    const name = `${account.namespace}/${account.name}`;
    return refused(
      `ServiceAccount ${name} may not ${verb} ${object.kind} ${copy.name}: ${errorMessage(error)}${retry}`,
      name,
    );
  };
  switch (copy.outcome) {
    case 'unchanged':
      return {
        ...entry,
        applied: true,
        appliedHash: copy.hash,
        ...(previous?.appliedGeneration === undefined ? {} : { appliedGeneration: previous.appliedGeneration }),
      };
    case 'refused':
      return refused(copy.message);
    case 'absent':
      if (!copy.delete) return undefined;
      try {
        await deps.cluster.deleteObject(target, account);
        deps.log.info({ twor: copy.twor, copy: copy.name }, copy.reason);
        return undefined;
      } catch (error) {
        return failed(error, 'delete');
      }
    case 'apply': {
      // Not due: the last refusal stands until its backoff passes.
      if (!deps.copyRetries.due(key, now) && previous) return previous;
      try {
        await deps.cluster.apply(copy.object as unknown as AnyObject, fieldManager(namespace, copy.twor), account);
      } catch (error) {
        if (error instanceof KindRefusedError) throw error;
        const delayMs = deps.copyRetries.failed(key, now);
        return failed(error, 'patch', ` (tried again in ${Math.round(delayMs / 1000)}s)`);
      }
      deps.copyRetries.succeeded(key);
      deps.log.info({ twor: copy.twor, copy: copy.name }, `applied: ${copy.reason}`);
      return {
        ...entry,
        applied: true,
        appliedHash: copy.hash,
        ...(twor.metadata.generation === undefined ? {} : { appliedGeneration: twor.metadata.generation }),
      };
    }
  }
}

/**
 * The twor's status after its copies were carried out: Ready=True/Applied when all were,
 * Stalled=True/CopyForbidden when its ServiceAccount may not make some (naming it, the kind and the
 * verb), Stalled=True/CopiesNotApplied otherwise; a Warning event on the worker deployment when
 * some are not applied.
 */
async function writeCopiesStatus(
  deps: OwnedResourceDependencies,
  workerDeployment: TemporalWorkerDeployment,
  twor: TemporalWorkerOwnedResource,
  versions: CopyStatus[],
  account: ServiceAccountRef,
  /** A kind whose copies could not be deleted yet: remembered, so that the next reconcile tries again. */
  left: { apiVersion: string; kind: string } | undefined,
): Promise<void> {
  versions.sort((a, b) => byCodeUnits(`${a.buildID}/${a.pool ?? ''}`, `${b.buildID}/${b.pool ?? ''}`));
  const failed = versions.filter((v) => !v.applied);
  const forbidden = failed.filter((v) => v.forbiddenTo);
  const said: Condition = forbidden.length
    ? stalled(
        'CopyForbidden',
        `${forbidden.map((v) => v.message ?? '').join('; ')}: the controller writes copies only with the rights of ServiceAccount ${account.namespace}/${account.name} (spec.serviceAccountName); grant it create, patch, list and delete on ${twor.spec.object.kind} in this namespace`,
      )
    : failed.length
      ? stalled(
          'CopiesNotApplied',
          failed.map((v) => `build ${v.buildID} (${v.resourceName}): ${v.message ?? ''}`).join('; '),
        )
      : {
          type: 'Ready',
          status: 'True',
          reason: 'Applied',
          message: `one copy per build applied: ${versions.map((v) => v.resourceName).join(', ') || 'no build has a Deployment yet'}`,
        };
  const written = await writeStatus(deps, twor, [said], versions, left);
  if (!written || failed.length === 0) return;
  if (forbidden.length > 0)
    await deps.recordEvent(
      { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerOwnedResource.kind, metadata: twor.metadata },
      { type: 'Warning', reason: 'CopyForbidden', message: said.message },
    );
  await deps.recordEvent(
    { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerDeployment.kind, metadata: workerDeployment.metadata },
    {
      type: 'Warning',
      reason: 'OwnedResourceNotApplied',
      message: `TemporalWorkerOwnedResource ${twor.metadata.name ?? ''}: ${failed.length} of ${versions.length} copies not applied; kubectl describe twor ${twor.metadata.name ?? ''} says why`,
    },
  );
}

/**
 * Writes the twor's status when it changed, with `appliedKind` the kind its copies are of (or
 * `left`, a kind whose copies could not be deleted yet). Resolves with whether it changed.
 */
async function writeStatus(
  deps: OwnedResourceDependencies,
  twor: TemporalWorkerOwnedResource,
  said: Condition[],
  versions: CopyStatus[],
  left?: { apiVersion: string; kind: string },
): Promise<boolean> {
  const { apiVersion, kind } = twor.spec.object;
  const status = nextStatus(twor, said, deps.now(), { appliedKind: left ?? { apiVersion, kind }, versions });
  if (!status) return false;
  try {
    await deps.cluster.replaceOwnedResourceStatus({ ...twor, status });
    return true;
  } catch (error) {
    // A conflict: the twor changed since it was read, and its event brings this back.
    if (httpStatus(error) === 409) return false;
    throw error;
  }
}
