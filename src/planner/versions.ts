// What to do with the Kubernetes Deployments of each build: create the target's, keep the
// current and ramping ones at their replicas, and retire old builds only when no pinned workflow
// can need them. Pure: states and `now` in, plain actions with reasons out.
import { durationSeconds } from '../api/schema.ts';
import { mayHoldPinnedWorkflows } from '../domain/pinned-workflows.ts';
import { eligibleForDeletion, type VersionState } from '../domain/versions.ts';

/** spec.sunset with its defaults. */
export interface Sunset {
  scaledownDelay: string;
  deleteDelay: string;
  unusedBuildDeleteDelay: string;
}

/** The builds a refusal at the version limit names; the rest are counted. */
const NAMED = 5;

/** Workers poll within seconds of starting: a target available this long but unregistered is refused by Temporal. */
export const REGISTRATION_GRACE_MS = 30_000;
/**
 * Within the grace, a target available but not listed yet is looked at again this soon: its
 * workers' polls register it within seconds, and a look due within a poll interval is a change's
 * (the queue's high lane, a read before routine ones), where a routine look can wait long for a
 * read on a busy budget.
 */
export const REGISTRATION_RECHECK_MS = 5_000;

export interface VersionsInput {
  now: Date;
  targetBuildId: string;
  currentBuildId?: string;
  /** spec.replicas, or undefined when an autoscaler owns replica counts. */
  replicas?: number;
  /** spec.pools: each build runs one Deployment per pool; without pools, one Deployment. */
  pools?: { name: string; replicas?: number }[];
  sunset: Sunset;
  versions: VersionState[];
  /** Temporal lists the deployment, so a build it does not list was removed or never polled. */
  temporalKnowsDeployment: boolean;
  /** Stop creating builds while this many versions are not yet eligible for deletion. */
  maxIneligibleVersions: number;
  /** The server's cap of versions per deployment (its matching.maxVersionsInDeployment), as configured for the controller. */
  maxVersionsInDeployment: number;
  /** When a record was last deleted to make room for this target: its workers need a moment to register before another goes. */
  madeRoomAt?: Date;
  /**
   * Pinned workflows visibility counted running, per build (see sunsetCounts): a drained build
   * with one counted keeps its Deployments; undefined where the count could not be read.
   */
  pinnedRunning?: Record<string, number | undefined>;
  /**
   * Builds whose pinned workflows a round of moves is checking or moving (pinned-moves.ts): kept
   * until the round ends, so that it reads and reports what it moved and what it left.
   */
  moving?: ReadonlySet<string>;
}

export type VersionAction =
  | { action: 'create'; buildId: string; pool?: string; reason: string }
  | { action: 'update'; deployment: string; buildId: string; reason: string }
  | { action: 'scale'; deployment: string; buildId: string; replicas: number; reason: string }
  | { action: 'delete'; deployment: string; buildId: string; reason: string }
  /** Remove Temporal's record of a build whose Deployments are gone, so the server's cap of versions is not filled by leftovers. */
  | { action: 'deleteTemporalVersion'; buildId: string; reason: string; makesRoom?: true }
  /** Nothing the controller may do moves the build on: `condition` is the Stalled reason. */
  | { action: 'blocked'; buildId: string; condition: 'VersionLimitReached' | 'BuildNotRegistered'; reason: string };

export interface VersionsPlan {
  actions: VersionAction[];
  /** When a delay runs out and the plan would change: reconcile again then. */
  recheckAt?: Date;
}

export function planVersions(input: VersionsInput): VersionsPlan {
  const actions: VersionAction[] = [];
  let recheckAt: Date | undefined;
  const later = (at: Date): void => void (recheckAt = recheckAt && recheckAt < at ? recheckAt : at);
  const scaleDownAfter = durationSeconds(input.sunset.scaledownDelay) * 1000;
  const deleteAfter = scaleDownAfter + durationSeconds(input.sunset.deleteDelay) * 1000;

  const target = input.versions.find((v) => v.buildId === input.targetBuildId);
  const pools: { name?: string; replicas?: number }[] = input.pools ?? [{}];
  if (!target || target.deployments.length === 0) {
    // A build that never took traffic goes by itself (spec.sunset.unusedBuildDeleteDelay): it is not counted.
    const ineligible = input.versions
      .filter((v) => v.buildId !== input.targetBuildId && !eligibleForDeletion(v) && !neverTookTraffic(v))
      .map((v) => v.buildId);
    if (ineligible.length >= input.maxIneligibleVersions) {
      const named =
        ineligible.length > NAMED
          ? `${ineligible.slice(0, NAMED).join(', ')} and ${ineligible.length - NAMED} more`
          : ineligible.join(', ');
      actions.push({
        action: 'blocked',
        buildId: input.targetBuildId,
        condition: 'VersionLimitReached',
        reason: `not creating build ${input.targetBuildId}: ${ineligible.length} older builds took traffic and are not yet drained and scaled down (limit ${input.maxIneligibleVersions}): ${named}; shorten spec.sunset or finish their pinned workflows`,
      });
    }
  }
  if (!actions.some((a) => a.action === 'blocked')) {
    for (const pool of pools) {
      if (target?.deployments.some((d) => d.pool === pool.name)) continue;
      actions.push({
        action: 'create',
        buildId: input.targetBuildId,
        ...(pool.name ? { pool: pool.name } : {}),
        reason: `build ${input.targetBuildId} has no Deployment${pool.name ? ` for pool ${pool.name}` : ''} yet`,
      });
    }
  }

  // Temporal at its cap of versions refuses a new build's workers. The server would delete a
  // drained version without pollers to make room, but not while a manager identity (ours) is
  // set (server 1.29): the controller deletes the record itself, one per reconcile, oldest drained
  // first, and only when the cap is positively the cause: workers run and the server holds its cap.
  if (target?.status === 'NotRegistered' && target.deployments.length > 0 && runsNoWorkers(input)) {
    const reason = `build ${input.targetBuildId} runs no workers (the spec gives it 0 replicas), so it cannot register in Temporal: give it replicas (spec.replicas or the pools' replicas)`;
    actions.push({ action: 'blocked', buildId: input.targetBuildId, condition: 'BuildNotRegistered', reason });
  } else if (target?.status === 'NotRegistered' && target.healthySince) {
    const verdict = registrationVerdict(input, target.healthySince);
    if (verdict.recheckAt) later(verdict.recheckAt);
    if (verdict.action) actions.push(verdict.action);
  }

  for (const version of input.versions) {
    const build = `build ${version.buildId}`;
    const scaleAll = (replicas: number, reason: string): void => {
      for (const d of version.deployments)
        if (d.replicas !== replicas)
          actions.push({ action: 'scale', deployment: d.name, buildId: version.buildId, replicas, reason });
    };
    const active =
      version.buildId === input.targetBuildId ||
      version.buildId === input.currentBuildId ||
      version.status === 'Ramping' ||
      version.status === 'Current';
    if (!deleted(version, input, deleteAfter)) {
      for (const d of version.deployments)
        if (d.drift)
          actions.push({
            action: 'update',
            deployment: d.name,
            buildId: version.buildId,
            reason: `Deployment ${d.name} of ${build} is rolled in place: ${d.drift}`,
          });
    }
    if (active) {
      for (const d of version.deployments) {
        // A pool removed from the spec keeps what it has until its build retires.
        const pool = pools.find((p) => p.name === d.pool);
        if (!pool) continue;
        const wanted = pool.replicas ?? input.replicas;
        if (wanted !== undefined) {
          if (d.replicas !== wanted)
            actions.push({
              action: 'scale',
              deployment: d.name,
              buildId: version.buildId,
              replicas: wanted,
              reason: `${build} is ${roleOf(version, input)} and ${pool.replicas === undefined ? 'spec.replicas' : `pool ${pool.name ?? ''}`} says ${wanted}`,
            });
        } else if (d.replicas === 0) {
          // Without a replica count an autoscaler owns it, but it cannot scale up from zero.
          actions.push({
            action: 'scale',
            deployment: d.name,
            buildId: version.buildId,
            replicas: 1,
            reason: `${build} is ${roleOf(version, input)} and was at 0 replicas: 1 for the autoscaler to start from`,
          });
        }
      }
      continue;
    }
    const counted = input.pinnedRunning?.[version.buildId];
    const mayHold = mayHoldPinnedWorkflows(version, counted);
    if (!mayHold && input.moving?.has(version.buildId)) continue; // as it is until the round ends
    const retired = !mayHold && version.status !== 'NotRegistered';
    if (retired && version.deployments.length === 0) {
      actions.push({
        action: 'deleteTemporalVersion',
        buildId: version.buildId,
        reason: `${build} has no Deployment left`,
      });
      continue;
    }
    // Temporal's drained comes from visibility, which can lag a workflow's first task: what is due
    // is done only once a count of its own says no pinned workflow runs there.
    if (retired && sunsetDue(version, input) && input.pinnedRunning && counted === undefined) {
      continue;
    }
    if (retired && version.status === 'Drained' && version.drainedSince) {
      const drainedFor = input.now.getTime() - version.drainedSince.getTime();
      const scaledDown = version.deployments.every((d) => d.replicas === 0);
      if (drainedFor >= deleteAfter && scaledDown) {
        for (const d of version.deployments)
          actions.push({
            action: 'delete',
            deployment: d.name,
            buildId: version.buildId,
            reason: `${build} has been drained since ${version.drainedSince.toISOString()}: past scaledownDelay + deleteDelay`,
          });
      } else if (drainedFor >= scaleDownAfter) {
        scaleAll(0, `${build} has been drained for longer than scaledownDelay (${input.sunset.scaledownDelay})`);
        if (version.deployments.length > 0) later(new Date(version.drainedSince.getTime() + deleteAfter));
      } else {
        later(new Date(version.drainedSince.getTime() + scaleDownAfter));
      }
      continue;
    }
    if (version.status === 'NotRegistered') {
      if (input.temporalKnowsDeployment)
        for (const d of version.deployments)
          actions.push({
            action: 'delete',
            deployment: d.name,
            buildId: version.buildId,
            reason: `${build} is superseded and Temporal does not list it: no workflow can be pinned to it`,
          });
      continue;
    }
    // A build that never took traffic goes: scaled to 0 at once, deleted after its delay, each once
    // a count says no workflow is pinned to it (a versioning override can pin one to any build).
    if (neverTookTraffic(version) && !(counted !== undefined && counted > 0)) {
      if (input.pinnedRunning && counted === undefined && unusedBuildCountDue(version, input)) continue;
      const dueAt = unusedDeleteAt(version, input.sunset);
      if (dueAt && dueAt <= input.now) {
        for (const d of version.deployments)
          actions.push({
            action: 'delete',
            deployment: d.name,
            buildId: version.buildId,
            reason: `${build} never took traffic and has not been the target since ${version.supersededAt?.toISOString() ?? ''}, longer than spec.sunset.unusedBuildDeleteDelay (${input.sunset.unusedBuildDeleteDelay}), and no workflow is pinned to it`,
          });
        continue;
      }
      scaleAll(0, `${build} was superseded before it ever took traffic`);
      if (dueAt && version.deployments.length > 0) later(dueAt);
      continue;
    }
    // Draining, Inactive after having been active (drainage not yet known), or drained with pinned
    // workflows counted running: they may need it, so it gets back its pool's count, and at least
    // one replica even where the spec says 0.
    for (const d of version.deployments) {
      if (d.replicas !== 0) continue;
      const replicas = Math.max(1, pools.find((p) => p.name === d.pool)?.replicas ?? input.replicas ?? 1);
      const state =
        version.status === 'Draining'
          ? 'draining'
          : version.status === 'Drained' || neverTookTraffic(version)
            ? `${version.status === 'Drained' ? 'drained' : 'never took traffic'}, but ${counted ?? 0} counted running in visibility`
            : 'drainage not yet known';
      actions.push({
        action: 'scale',
        deployment: d.name,
        buildId: version.buildId,
        replicas,
        reason: `${build} may still have pinned workflows (${state})`,
      });
    }
  }
  return recheckAt ? { actions, recheckAt } : { actions };
}

/** The spec gives every pool 0 replicas (without a count an autoscaler owns it, and the target is held at 1 or more). */
function runsNoWorkers(input: VersionsInput): boolean {
  const pools: { replicas?: number }[] = input.pools ?? [{}];
  return pools.every((p) => (p.replicas ?? input.replicas) === 0);
}

interface RegistrationVerdict {
  action?: VersionAction;
  recheckAt?: Date;
}

/**
 * What to do about a target that is available but that Temporal does not list. Its workers may not
 * have polled yet (the grace), it may run none, the server may refuse it at its cap of versions (make
 * room, one record at a time, each given the grace) or of worker deployments in the namespace (only
 * its operator can raise that), or the workers are misconfigured: each is said apart.
 */
function registrationVerdict(input: VersionsInput, availableSince: Date): RegistrationVerdict {
  const build = `build ${input.targetBuildId}`;
  const unregisteredFor = input.now.getTime() - availableSince.getTime();
  const ranFor = `has run for ${Math.round(unregisteredFor / 1000)}s without registering in Temporal`;
  if (unregisteredFor < REGISTRATION_GRACE_MS) {
    const graceEnds = availableSince.getTime() + REGISTRATION_GRACE_MS;
    return { recheckAt: new Date(Math.min(input.now.getTime() + REGISTRATION_RECHECK_MS, graceEnds)) };
  }
  if (!input.temporalKnowsDeployment) {
    return {
      action: {
        action: 'blocked',
        buildId: input.targetBuildId,
        condition: 'BuildNotRegistered',
        reason: `${build} ${ranFor}, and Temporal does not list its worker deployment at all: the workers are misconfigured or cannot reach Temporal, or the Temporal namespace already holds as many worker deployments as the server allows (matching.maxDeployments, 100 by default; the workers' polls then fail with "reached maximum deployments in namespace"); check the workers' logs`,
      },
    };
  }
  const recorded = input.versions.filter((v) => v.status !== 'NotRegistered').length;
  const cap = input.maxVersionsInDeployment;
  if (recorded < cap) {
    return {
      action: {
        action: 'blocked',
        buildId: input.targetBuildId,
        condition: 'BuildNotRegistered',
        reason: `${build} ${ranFor}, and Temporal records ${recorded} versions of this deployment, below its cap of ${cap}: the workers are misconfigured or cannot reach Temporal; check their logs, deployment name, build ID and versioning options (if the server's matching.maxVersionsInDeployment is lower than ${cap}, set --temporal-max-versions-in-deployment to it)`,
      },
    };
  }
  // Workers refused at the cap retry with backoff: one record at a time, each given the grace.
  const madeRoomFor = input.madeRoomAt ? input.now.getTime() - input.madeRoomAt.getTime() : Infinity;
  if (input.madeRoomAt && madeRoomFor < REGISTRATION_GRACE_MS)
    return { recheckAt: new Date(input.madeRoomAt.getTime() + REGISTRATION_GRACE_MS) };
  const room = input.versions
    .filter(
      (v) => v.buildId !== input.targetBuildId && eligibleForDeletion(v) && v.deployments.length > 0 && v.drainedSince,
    )
    .sort((a, b) => (a.drainedSince?.getTime() ?? 0) - (b.drainedSince?.getTime() ?? 0))[0];
  const atCap = `Temporal records ${recorded} versions of this deployment, its cap of ${cap} (matching.maxVersionsInDeployment)`;
  if (room) {
    return {
      action: {
        action: 'deleteTemporalVersion',
        makesRoom: true,
        buildId: room.buildId,
        reason: `${build} ${ranFor} and ${atCap}: the record of build ${room.buildId} (drained and scaled down) is deleted to make room`,
      },
    };
  }
  return {
    action: {
      action: 'blocked',
      buildId: input.targetBuildId,
      condition: 'BuildNotRegistered',
      reason: `${build} ${ranFor}: ${atCap}, and no older build is drained and scaled down to make room; shorten spec.sunset or finish the pinned workflows of older builds`,
    },
  };
}

/** Its Deployments are deleted by this plan (the same rules as below): nothing to roll in place. */
function deleted(version: VersionState, input: VersionsInput, deleteAfter: number): boolean {
  if (version.status === 'NotRegistered')
    return input.temporalKnowsDeployment && version.buildId !== input.targetBuildId;
  const unusedDeleteDue = unusedDeleteAt(version, input.sunset);
  if (unusedDeleteDue && unusedDeleteDue <= input.now) return input.pinnedRunning?.[version.buildId] === 0;
  return (
    version.status === 'Drained' &&
    version.drainedSince !== undefined &&
    input.now.getTime() - version.drainedSince.getTime() >= deleteAfter &&
    version.deployments.every((d) => d.replicas === 0)
  );
}

/**
 * A drained build's sunset falls due: scaling it to zero after scaledownDelay, or deleting it after
 * deleteDelay. Its pinned workflows are counted first (see VersionsInput.pinnedRunning).
 */
export function sunsetDue(
  version: VersionState,
  input: { now: Date; sunset: { scaledownDelay: string; deleteDelay: string } },
): boolean {
  if (version.status !== 'Drained' || !version.drainedSince || version.deployments.length === 0) return false;
  const drainedFor = input.now.getTime() - version.drainedSince.getTime();
  const scaleDownAfter = durationSeconds(input.sunset.scaledownDelay) * 1000;
  const deleteAfter = scaleDownAfter + durationSeconds(input.sunset.deleteDelay) * 1000;
  const scaledDown = version.deployments.every((d) => d.replicas === 0);
  return scaledDown ? drainedFor >= deleteAfter : drainedFor >= scaleDownAfter;
}

/** Temporal lists it and never made it current nor ramping (the target aside, it was superseded). */
function neverTookTraffic(version: VersionState): boolean {
  return version.status === 'Inactive' && !version.everActive;
}

/** When a build that never took traffic is deleted (spec.sunset.unusedBuildDeleteDelay after it was superseded). */
function unusedDeleteAt(version: VersionState, sunset: Sunset): Date | undefined {
  if (!neverTookTraffic(version) || version.supersededAt === undefined) return undefined;
  return new Date(version.supersededAt.getTime() + durationSeconds(sunset.unusedBuildDeleteDelay) * 1000);
}

/**
 * A build that never took traffic is counted before it is scaled to 0 or deleted: a versioning
 * override may have pinned a workflow to it.
 */
export function unusedBuildCountDue(version: VersionState, input: { now: Date; sunset: Sunset }): boolean {
  if (!neverTookTraffic(version) || version.deployments.length === 0) return false;
  const dueAt = unusedDeleteAt(version, input.sunset);
  return version.deployments.some((d) => d.replicas !== 0) || (dueAt !== undefined && dueAt <= input.now);
}

function roleOf(version: VersionState, input: VersionsInput): string {
  if (version.buildId === input.targetBuildId) return 'the target';
  return version.status === 'Ramping' ? 'ramping' : 'current';
}
