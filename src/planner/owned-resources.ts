// What becomes of each copy of a worker deployment's owned resources (k8s/owned-resource-copies.ts
// renders them): applied when new or changed, left alone when rendered as last applied, refused
// alone when it cannot be rendered, and, for an autoscaler of a build at zero replicas, not made or
// deleted, so that nothing scales a build that pinned workflows may still need back up from zero
// behind the controller's back; nor for a build whose state the twor's spec.buildStates leaves out.
// Pure.
import type { BuildState } from '../api/temporal-worker-owned-resource.ts';
import { AUTOSCALER_KINDS, type OwnedResourceFacts, type RenderedCopy } from '../domain/owned-resources.ts';

export interface CopyKey {
  twor: string;
  buildId: string;
  pool?: string;
  /** The copy's name. */
  name: string;
}

export type PlannedCopy =
  | (CopyKey & { outcome: 'apply'; object: Record<string, unknown>; hash: string; reason: string })
  /** Rendered as last applied: nothing to write. */
  | (CopyKey & { outcome: 'unchanged'; hash: string })
  /** An autoscaler of a build at zero replicas, or a build of a state not asked for: it must not exist, and goes if it was applied. */
  | (CopyKey & { outcome: 'absent'; delete: boolean; reason: string })
  | (CopyKey & { outcome: 'refused'; message: string });

/** `applied`: per twor, per copy name, what its status says was applied (the hash, when known). */
export function planOwnedResources(
  copies: readonly RenderedCopy[],
  applied: Record<string, Record<string, { hash?: string }>>,
  /** spec.buildStates: the states whose builds get a copy; all when undefined. */
  buildStates?: readonly BuildState[],
): PlannedCopy[] {
  return copies.map((copy): PlannedCopy => {
    const { target } = copy;
    const key: CopyKey = {
      twor: copy.twor,
      buildId: target.buildId,
      ...(target.pool ? { pool: target.pool } : {}),
      name: copy.name,
    };
    const before = applied[copy.twor] ?? {};
    if (AUTOSCALER_KINDS.includes(copy.kind) && target.replicas === 0)
      return {
        ...key,
        outcome: 'absent',
        delete: copy.name in before,
        reason: `${copy.kind} ${copy.name} is not kept for build ${target.buildId}: its Deployment ${target.deployment} is scaled to zero, and nothing may scale it back up`,
      };
    if (buildStates && !buildStates.includes(target.state))
      return {
        ...key,
        outcome: 'absent',
        delete: copy.name in before,
        reason: `${copy.kind} ${copy.name} is not kept for build ${target.buildId}: it is ${target.state}, and spec.buildStates of ${copy.twor} names ${buildStates.join(', ')}`,
      };
    if ('refused' in copy) return { ...key, outcome: 'refused', message: copy.refused };
    if (before[copy.name]?.hash === copy.hash) return { ...key, outcome: 'unchanged', hash: copy.hash };
    return {
      ...key,
      outcome: 'apply',
      object: copy.object,
      hash: copy.hash,
      reason: `${copy.kind} ${copy.name} of ${copy.twor} for build ${target.buildId} (Deployment ${target.deployment}) ${copy.name in before ? 'changed' : 'is new'}`,
    };
  });
}

/**
 * One twor's copies, carried out by the executor as one action. Independent: nothing after it in the
 * plan depends on it, so its failure is its own (said in the twor's status) and the plan goes on.
 */
export interface OwnedResourceAction {
  action: 'syncOwnedResource';
  facts: OwnedResourceFacts;
  copies: PlannedCopy[];
  independent: true;
  reason: string;
}

/** Planned at every reconcile: the twor's status is written only when what it says changed. */
export function ownedResourceAction(facts: OwnedResourceFacts): OwnedResourceAction {
  const name = facts.twor.metadata.name ?? '';
  const applied = Object.fromEntries(
    (facts.twor.status?.versions ?? [])
      .filter((v) => v.applied || v.appliedHash)
      .map((v) => [v.resourceName, v.appliedHash ? { hash: v.appliedHash } : {}]),
  );
  const copies = planOwnedResources(facts.copies, { [name]: applied }, facts.twor.spec.buildStates);
  const counted = (outcome: PlannedCopy['outcome'], what: string) => {
    const n = copies.filter((c) => c.outcome === outcome && (c.outcome !== 'absent' || c.delete)).length;
    return n > 0 ? [`${n === 1 ? 'one copy' : `${n} copies`} ${what}`] : [];
  };
  const said = facts.refusal
    ? [facts.refusal]
    : 'missing' in facts.account
      ? [facts.account.missing]
      : [...counted('apply', 'to apply'), ...counted('absent', 'to delete'), ...counted('refused', 'refused')];
  return {
    action: 'syncOwnedResource',
    facts,
    copies,
    independent: true,
    reason: `TemporalWorkerOwnedResource ${name}: ${said.join(', ') || 'its copies as last applied'}`,
  };
}
