// Each build's state as the worker deployment's status last said it: what an owned resource's
// copies follow (spec.buildStates, spec.stateOverrides). Read before the plan, so a copy changes
// in the reconcile after the one that changed its build's state, before any sunset of the build,
// which waits for it to be drained. Pure.
import { BUILD_STATES, type BuildState } from '../api/temporal-worker-owned-resource.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';

/** By build ID; a build the status does not list yet is NotRegistered, as Temporal has not been seen to list it. */
export function buildStates(status: TemporalWorkerDeployment['status']): (buildId: string) => BuildState {
  const said = [status?.currentVersion, status?.targetVersion, ...(status?.deprecatedVersions ?? [])];
  const states = new Map(said.flatMap((v) => (v && isBuildState(v.status) ? [[v.buildID, v.status] as const] : [])));
  return (buildId) => states.get(buildId) ?? 'NotRegistered';
}

function isBuildState(status: string): status is BuildState {
  return (BUILD_STATES as readonly string[]).includes(status);
}
