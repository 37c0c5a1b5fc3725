// A worker deployment's status as the numbers of /metrics (see domain/status-figures.ts): each
// condition, its builds per state, the target's ramp, its versions against their limits, and the
// ladder step of each old build. Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { StatusFigures, VersionsFigure } from '../domain/status-figures.ts';

type Status = NonNullable<TemporalWorkerDeployment['status']>;

/** The states a build of the status can be in, each counted even when no build is in it. */
export const BUILD_STATES = ['NotRegistered', 'Inactive', 'Ramping', 'Current', 'Draining', 'Drained'] as const;

export interface VersionLimits {
  maxVersionsInDeployment: number;
  maxIneligibleVersions: number;
}

export function statusFigures(status: Status, limits: VersionLimits): StatusFigures {
  const { targetVersion: target, currentVersion: current, deprecatedVersions: older = [] } = status;
  // The target and the current build are one entry when the target is current.
  const listed = new Map<string, { status: string; eligibleForDeletion?: boolean; supersededAt?: string }>();
  for (const build of [current, target, ...older]) if (build) listed.set(build.buildID, build);
  const builds: Record<string, number> = Object.fromEntries(BUILD_STATES.map((state) => [state, 0]));
  for (const build of listed.values()) builds[build.status] = (builds[build.status] ?? 0) + 1;
  // As planner/versions.ts counts them: a build superseded before it took traffic goes by itself.
  const ineligible = [...listed.entries()].filter(
    ([buildId, b]) =>
      buildId !== target?.buildID && b.eligibleForDeletion !== true && !(b.status === 'Inactive' && b.supersededAt),
  ).length;
  const versions: VersionsFigure[] = [
    ...(status.versionCount === undefined
      ? []
      : [{ counted: 'temporal' as const, count: status.versionCount, limit: limits.maxVersionsInDeployment }]),
    { counted: 'ineligible', count: ineligible, limit: limits.maxIneligibleVersions },
  ];
  const ramping = target?.status === 'Ramping' && target.rampPercentage !== undefined;
  return {
    conditions: (status.conditions ?? []).map((c) => ({ type: c.type, reason: c.reason, true: c.status === 'True' })),
    builds,
    ...(ramping ? { ramp: { buildId: target.buildID, percentage: target.rampPercentage ?? 0 } } : {}),
    versions,
    ladder: older.flatMap((b) => (b.pinnedWorkflows ? [{ buildId: b.buildID, step: b.pinnedWorkflows.step }] : [])),
  };
}
