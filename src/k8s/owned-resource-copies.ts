// The copies of a worker deployment's owned resources (TemporalWorkerOwnedResource, `twor`), as
// objects: one per twor and Kubernetes Deployment of a build, named to fit and unique, labelled,
// owned by that Deployment, with `scaleTargetRef: {}` and `matchLabels: {}` filled in for it and
// the placeholders of its strings replaced, and a hash to tell a changed copy from one already
// applied. A copy that cannot be rendered says why instead. Pure.
import { createHash } from 'node:crypto';
import { BUILD_STATES, type BuildState } from '../api/temporal-worker-owned-resource.ts';
import { LABELS, MANAGED_BY } from '../domain/labels.ts';
import type { CopyOf, CopyTarget, RenderedCopy } from '../domain/owned-resources.ts';
import { mergePatch } from './merge-patch.ts';
import { temporalDeploymentName } from './names.ts';

/** At most this long, as the versioned Deployments: safe for every kind, Deployments' Pods included. */
const MAX_COPY_NAME_LENGTH = 47;

/** Labels on every copy, besides the worker deployment, build and pool ones. */
const OWNED_RESOURCE_LABEL = 'temporal.io/owned-resource';

export interface OwnedResourceSource {
  name: string;
  /** spec.object, as stored. */
  object: Record<string, unknown>;
  /** spec.stateOverrides: per build state, a merge patch over `object`. */
  stateOverrides?: Partial<Record<BuildState, Record<string, unknown>>>;
}

export interface CopiesInput {
  workerDeployment: { name: string; namespace: string; temporalNamespace: string };
  twors: OwnedResourceSource[];
  targets: CopyTarget[];
}

export function renderCopies({ workerDeployment, twors, targets }: CopiesInput): RenderedCopy[] {
  return twors.flatMap((twor) =>
    targets.map((target): RenderedCopy => {
      const name = copyName(workerDeployment.name, twor.name, target.buildId, target.pool);
      const kind = typeof twor.object.kind === 'string' ? twor.object.kind : '';
      const of: CopyOf = { twor: twor.name, kind, target, name };
      const override = twor.stateOverrides?.[target.state];
      const object = override ? (mergePatch(twor.object, override) as Record<string, unknown>) : twor.object;
      const rendered = renderCopy({ ...twor, object }, target, workerDeployment, name);
      if ('refused' in rendered)
        return {
          ...of,
          refused: override
            ? `as spec.stateOverrides.${target.state} leaves it: ${rendered.refused}`
            : rendered.refused,
        };
      const hash = createHash('sha256').update(JSON.stringify(rendered.object)).digest('hex').slice(0, 16);
      return { ...of, object: rendered.object, hash };
    }),
  );
}

/**
 * `<worker deployment>-<twor>-<build>[-<pool>]` cut to fit, then 8 hex characters of a hash of
 * all four: unique per copy even when the readable part is cut short.
 */
export function copyName(workerDeployment: string, twor: string, buildId: string, pool?: string): string {
  const hash = createHash('sha256')
    .update([workerDeployment, twor, buildId, pool ?? ''].join('\n'))
    .digest('hex')
    .slice(0, 8);
  const readable = [workerDeployment, twor, buildId, ...(pool ? [pool] : [])]
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, MAX_COPY_NAME_LENGTH - hash.length - 1)
    .replace(/^-+|-+$/g, '');
  return `${readable}-${hash}`;
}

/** Selects every copy of one twor, whatever its build, that the controller made: to delete them together. */
export function copiesOf(twor: string): string {
  return `${OWNED_RESOURCE_LABEL}=${ownedResourceLabel(twor)},${MANAGED_BY.label}=${MANAGED_BY.value}`;
}

/** An object as listed: enough to tell whose it is. */
export interface ListedCopy {
  metadata: { labels?: Record<string, string>; ownerReferences?: { uid: string }[] };
}

/**
 * Whether an object is a copy the controller made of `twor`: its labels say so, and it is owned by
 * one of `owners` (the uids of its worker deployment's Deployments). Anyone may put the labels on
 * an object of their own; only the controller makes a Deployment of the worker deployment its owner.
 */
export function isCopyOf(object: ListedCopy, twor: string, owners: ReadonlySet<string>): boolean {
  const labels = object.metadata.labels ?? {};
  return (
    labels[OWNED_RESOURCE_LABEL] === ownedResourceLabel(twor) &&
    labels[MANAGED_BY.label] === MANAGED_BY.value &&
    (object.metadata.ownerReferences ?? []).some((owner) => owners.has(owner.uid))
  );
}

/** The twor's name as a label value, which may not pass 63 characters where a name may. */
export function ownedResourceLabel(twor: string): string {
  if (twor.length <= 63) return twor;
  const hash = createHash('sha256').update(twor).digest('hex').slice(0, 8);
  return `${twor.slice(0, 54).replace(/[-.]+$/, '')}-${hash}`;
}

const PLACEHOLDER = /\{\{\s*\.(\w+)\s*\}\}/g;

/** Where an object points at the workload it acts on: an HPA's or KEDA's scaleTargetRef, a VPA's targetRef. */
const TARGET_REFS = ['scaleTargetRef', 'targetRef'];

function renderCopy(
  twor: OwnedResourceSource,
  target: CopyTarget,
  workerDeployment: CopiesInput['workerDeployment'],
  name: string,
): { object: Record<string, unknown> } | { refused: string } {
  const values: Record<string, string | undefined> = {
    DeploymentName: target.deployment,
    WorkerDeploymentName: temporalDeploymentName(workerDeployment.namespace, workerDeployment.name),
    BuildID: target.buildId,
    State: target.state,
    TemporalNamespace: workerDeployment.temporalNamespace,
    ...(target.taskQueue ? { TaskQueue: target.taskQueue } : {}),
  };
  const selector = {
    [LABELS.deploymentName]: workerDeployment.name,
    [LABELS.buildId]: target.buildId,
    ...(target.pool ? { [LABELS.pool]: target.pool } : {}),
  };
  const problems: string[] = [];
  const fill = (value: unknown, path: string): unknown => {
    if (typeof value === 'string')
      return value.replace(PLACEHOLDER, (whole, key: string) => {
        const filled = values[key];
        if (filled === undefined)
          problems.push(`${path}: ${whole} is not a placeholder (${Object.keys(values).join(', ')} are)`);
        return filled ?? whole;
      });
    if (Array.isArray(value)) return value.map((item, i) => fill(item, `${path}[${i}]`));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        const at = `${path}.${key}`;
        if (TARGET_REFS.includes(key) && isEmptyObject(item))
          return [key, { apiVersion: 'apps/v1', kind: 'Deployment', name: target.deployment }];
        if (key === 'matchLabels' && isEmptyObject(item)) return [key, selector];
        return [key, fill(item, at)];
      }),
    );
  };
  const { metadata, ...rest } = twor.object as { metadata?: { labels?: object; annotations?: object } };
  const body = fill(rest, 'spec.object') as Record<string, unknown>;
  const labels = fill(metadata?.labels ?? {}, 'spec.object.metadata.labels') as Record<string, string>;
  const annotations = fill(metadata?.annotations ?? {}, 'spec.object.metadata.annotations') as Record<string, string>;
  const spec = (rest as { spec?: Record<string, unknown> & { selector?: { matchLabels?: unknown } } }).spec;
  // Where the copy points at its build, only the controller knows what to write.
  for (const ref of TARGET_REFS)
    if (spec?.[ref] !== undefined && !isEmptyObject(spec[ref]))
      problems.push(`spec.object.spec.${ref}: must be {}, which the controller fills in with each build's Deployment`);
  // The user's own labels narrow the selector; the build's are always in it, so a copy never selects another build's Pods.
  const matchLabels = spec?.selector?.matchLabels;
  if (matchLabels !== undefined && !isEmptyObject(matchLabels)) {
    const own = (body.spec as { selector: { matchLabels: Record<string, unknown> } }).selector;
    own.matchLabels = { ...own.matchLabels, ...selector };
  }
  const floor = body.spec as { minReplicas?: unknown; minReplicaCount?: unknown } | undefined;
  if (body.kind === 'HorizontalPodAutoscaler' && floor?.minReplicas === 0)
    problems.push(
      'spec.object.spec.minReplicas: 0 would let the autoscaler take a build that pinned workflows need to zero',
    );
  // KEDA scales to zero unless told otherwise.
  if (body.kind === 'ScaledObject' && !(typeof floor?.minReplicaCount === 'number' && floor.minReplicaCount >= 1))
    problems.push(
      `spec.object.spec.minReplicaCount: ${floor?.minReplicaCount === undefined ? "unset (KEDA's default is 0)" : JSON.stringify(floor.minReplicaCount)} would let the autoscaler take a build that pinned workflows need to zero: set at least 1`,
    );
  if (problems.length > 0) return { refused: problems.join('; ') };
  return {
    object: {
      ...body,
      metadata: {
        name,
        namespace: workerDeployment.namespace,
        labels: {
          ...labels,
          ...selector,
          [OWNED_RESOURCE_LABEL]: ownedResourceLabel(twor.name),
          [MANAGED_BY.label]: MANAGED_BY.value,
        },
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        // No blockOwnerDeletion: where the API server checks owner references, it would need the
        // right to update the Deployment's finalizers, which the copy's ServiceAccount need not have;
        // Deployments are deleted in the background, so nothing waits on their copies anyway.
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: target.deployment, uid: target.uid, controller: true },
        ],
      },
    },
  };
}

/** What keeps an object from being rendered for a build of any state: the same refusals a copy gets, said at admission. */
export function ownedObjectProblems(
  object: Record<string, unknown>,
  stateOverrides?: OwnedResourceSource['stateOverrides'],
): string[] {
  const copies = renderCopies({
    workerDeployment: { name: 'w', namespace: 'n', temporalNamespace: 't' },
    twors: [{ name: 'o', object, ...(stateOverrides ? { stateOverrides } : {}) }],
    targets: BUILD_STATES.map((state) => ({
      deployment: 'd',
      uid: 'u',
      buildId: 'b',
      pool: 'p',
      taskQueue: 'q',
      state,
    })),
  });
  const refusals = copies.flatMap((copy) => ('refused' in copy ? copy.refused.split('; ') : []));
  return [...new Set(refusals)];
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}
