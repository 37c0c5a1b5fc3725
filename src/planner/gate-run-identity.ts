// Which run found under a gate's workflow ID may judge the build. Anyone who may start workflows in
// the Temporal namespace can start (and complete) one under that ID, so the ID proves nothing: a
// run counts only if it is the very run the controller started (its run ID, recorded in the status
// when started), of the gate's workflow type, still pinned to the build it judges. Pure.
import type { GateRun } from '../domain/snapshot.ts';

export interface OwnGateRun {
  /** The run ID the status recorded when the controller started the run; absent when it recorded none. */
  runId: string | undefined;
  workflowType: string;
  deploymentName: string;
  buildId: string;
}

/** Why the run is not the controller's own run of the gate; undefined when it is. */
export function foreignGateRun(run: GateRun, own: OwnGateRun): string | undefined {
  if (own.runId === undefined) return `the status records no run the controller started under that ID`;
  if (run.runId !== own.runId) return `the controller started run ${own.runId}, not this one`;
  if (run.workflowType !== own.workflowType)
    return `its workflow type is ${run.workflowType ?? 'unknown'}, not the gate's ${own.workflowType}`;
  const pinned = run.pinnedTo;
  if (pinned?.deploymentName !== own.deploymentName || pinned.buildId !== own.buildId)
    return `it is not pinned to build ${own.buildId} of Worker Deployment ${own.deploymentName}`;
  return undefined;
}
