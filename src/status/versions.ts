// Joins what Kubernetes runs with what Temporal knows, per build: the input of the planners and
// the versions of the TemporalWorkerDeployment's status. Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { LadderStatus } from '../domain/ladder.ts';
import type { TaskQueueRef } from '../domain/pollers.ts';
import type { ObservedDeployment, TemporalDeploymentState } from '../domain/snapshot.ts';
import { eligibleForDeletion, type VersionState } from '../domain/versions.ts';
import { pinnedWorkflowsStatus } from './pinned-workflows.ts';
import type { RampStep } from './ramp-history.ts';

export interface JoinedVersion extends VersionState {
  /**
   * Routable: every Deployment of the build (one per pool, at least one) wants more than 0
   * replicas and has them all available. A Deployment at 0 replicas counts as available to
   * Kubernetes, but no worker would take what is routed to it.
   */
  healthy: boolean;
  lastCurrentAt?: Date;
}

/** `targetPools`: the pools the target must run (undefined for the single Deployment without pools). */
/** `remembered`: when builds were last current, as the status recorded it (see `rememberedCurrentTimes`). */
export function joinVersions(
  deployments: ObservedDeployment[],
  temporal: TemporalDeploymentState,
  targetBuildId: string,
  targetPools: (string | undefined)[] = [undefined],
  remembered: Record<string, Date> = {},
): JoinedVersion[] {
  const buildIds = new Set([
    targetBuildId,
    ...deployments.map((d) => d.buildId),
    ...temporal.versions.map((v) => v.buildId),
  ]);
  return [...buildIds].sort().map((buildId) => {
    const own = deployments.filter((d) => d.buildId === buildId);
    const known = temporal.versions.find((v) => v.buildId === buildId);
    const isTarget = buildId === targetBuildId;
    const complete = !isTarget || targetPools.every((pool) => own.some((d) => d.pool === pool));
    // The target runs the spec's pools; a Deployment of a pool the spec no longer has takes no part.
    const serving = isTarget ? own.filter((d) => targetPools.includes(d.pool)) : own;
    const healthy = complete && serving.length > 0 && serving.every((d) => d.available && (d.replicas ?? 1) > 0);
    const healthySince = healthy
      ? new Date(Math.max(...serving.map((d) => d.availableSince?.getTime() ?? 0)))
      : undefined;
    return {
      buildId,
      status: known?.status ?? 'NotRegistered',
      everActive: known?.everActive ?? false,
      deployments: own.map((d) => ({
        name: d.name,
        ...(d.replicas === undefined ? {} : { replicas: d.replicas }),
        ...(d.pool ? { pool: d.pool } : {}),
        ...(d.drift ? { drift: d.drift } : {}),
      })),
      healthy,
      ...(healthySince && healthySince.getTime() > 0 ? { healthySince } : {}),
      ...(known?.drainedSince ? { drainedSince: known.drainedSince } : {}),
      ...((known?.lastCurrentAt ?? remembered[buildId])
        ? { lastCurrentAt: known?.lastCurrentAt ?? remembered[buildId] }
        : {}),
    };
  });
}

type Status = NonNullable<TemporalWorkerDeployment['status']>;

/**
 * When each build was last current, as the status remembers it (Temporal 1.29 does not report
 * it): what the status recorded, and the build the status last called current if it no longer is.
 */
export function rememberedCurrentTimes(
  previous: TemporalWorkerDeployment['status'],
  currentBuildId: string | undefined,
  now: Date,
): Record<string, Date> {
  const times: Record<string, Date> = {};
  for (const v of [previous?.targetVersion, ...(previous?.deprecatedVersions ?? [])])
    if (v?.lastCurrentTime) times[v.buildID] = new Date(v.lastCurrentTime);
  const was = previous?.currentVersion?.buildID;
  if (was && was !== currentBuildId) times[was] = now;
  return times;
}

/**
 * The builds that never took traffic and are no longer the target, each with since when, as the
 * status remembers it or else from now (a lost status write only delays the delete).
 */
export function withSupersededTimes(
  versions: JoinedVersion[],
  previous: TemporalWorkerDeployment['status'],
  targetBuildId: string,
  now: Date,
): JoinedVersion[] {
  const recorded = new Map(
    (previous?.deprecatedVersions ?? []).flatMap((v) =>
      v.supersededAt ? [[v.buildID, new Date(v.supersededAt)]] : [],
    ),
  );
  return versions.map((v) =>
    v.status === 'Inactive' && !v.everActive && v.buildId !== targetBuildId && v.deployments.length > 0
      ? { ...v, supersededAt: recorded.get(v.buildId) ?? now }
      : v,
  );
}

/**
 * What the status says of builds beyond the join: when old builds were deactivated and what became
 * of their pinned workflows (see status/pinned-workflows.ts), the workers polling each build and
 * its task queues.
 */
export interface BuildsStatusFacts {
  deactivatedAt: Record<string, Date>;
  ladder: Record<string, LadderStatus>;
  /** The workers of each build that Temporal last said polled (absent: not read, said of no build). */
  pollers?: Record<string, number>;
  /** Each build's task queues, where known (see status/task-queues.ts). */
  taskQueues?: Record<string, TaskQueueRef[]>;
  /** The target's ramp as it went (see status/ramp-history.ts). */
  rampHistory?: RampStep[];
}

/** The versions part of the status: target, current, and every other build that still has Deployments. */
export function versionsStatus(
  versions: JoinedVersion[],
  temporal: TemporalDeploymentState,
  targetBuildId: string,
  facts: BuildsStatusFacts = { deactivatedAt: {}, ladder: {} },
): Pick<
  Status,
  'targetVersion' | 'currentVersion' | 'deprecatedVersions' | 'versionCount' | 'managerIdentity' | 'failedBuilds'
> {
  const base = (v: JoinedVersion) => {
    const ladder = facts.ladder[v.buildId];
    return {
      buildID: v.buildId,
      status: v.status,
      ...(v.healthySince ? { healthySince: v.healthySince.toISOString() } : {}),
      ...(v.deployments.length ? { deployments: v.deployments.map((d) => d.name) } : {}),
      ...(facts.pollers ? { pollers: facts.pollers[v.buildId] ?? 0 } : {}),
      ...(facts.taskQueues?.[v.buildId] ? { taskQueues: facts.taskQueues[v.buildId] } : {}),
      ...(v.lastCurrentAt && v.buildId !== temporal.currentBuildId
        ? { lastCurrentTime: v.lastCurrentAt.toISOString() }
        : {}),
      // On any build, current and target included: a batch is remembered until Temporal says it ended.
      ...(ladder ? { pinnedWorkflows: pinnedWorkflowsStatus(ladder) } : {}),
    };
  };
  const target = versions.find((v) => v.buildId === targetBuildId);
  const current = versions.find((v) => v.buildId === temporal.currentBuildId);
  const deprecated = versions.filter(
    (v) => v.buildId !== targetBuildId && v.buildId !== temporal.currentBuildId && v.deployments.length > 0,
  );
  const targetRamps = temporal.rampingBuildId === targetBuildId;
  return {
    ...(target
      ? {
          targetVersion: {
            ...base(target),
            ...(targetRamps ? { rampPercentage: temporal.rampPercentage ?? 0 } : {}),
            ...(targetRamps && temporal.rampChangedAt
              ? { rampLastModifiedAt: temporal.rampChangedAt.toISOString() }
              : {}),
            ...(facts.rampHistory?.length ? { rampHistory: facts.rampHistory } : {}),
          },
        }
      : {}),
    ...(current
      ? {
          currentVersion: {
            ...base(current),
            ...(temporal.currentChangedAt ? { currentSince: temporal.currentChangedAt.toISOString() } : {}),
          },
        }
      : {}),
    ...(deprecated.length
      ? {
          deprecatedVersions: deprecated.map((v) => {
            const deactivatedAt = facts.deactivatedAt[v.buildId];
            return {
              ...base(v),
              ...(v.drainedSince ? { drainedSince: v.drainedSince.toISOString() } : {}),
              eligibleForDeletion: eligibleForDeletion(v),
              ...(deactivatedAt ? { deactivatedAt: deactivatedAt.toISOString() } : {}),
              ...(v.supersededAt ? { supersededAt: v.supersededAt.toISOString() } : {}),
            };
          }),
        }
      : {}),
    versionCount: temporal.versions.length,
    ...(temporal.managerIdentity ? { managerIdentity: temporal.managerIdentity } : {}),
  };
}
