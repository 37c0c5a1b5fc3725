// What deleting a worker deployment does, decided from one observation. New workflows stop going
// to its builds at once (routing back to unversioned workers); a build whose pinned workflows may
// still run keeps its Deployments until Temporal reports it drained and none is counted running
// there (Temporal's drained comes from visibility, which can lag); every other build goes with
// its version record; once nothing is left, Temporal's Worker Deployment goes, then the finalizers.
// Temporal's answer that its Worker Deployment does not exist is believed once it has stood a while
// where the status lists builds it registered (see domain/temporal-not-found.ts): their Deployments
// wait. The force annotation skips every wait, and says what that strands. Pure.
import { FORCE_DELETE_ANNOTATION } from '../domain/annotations.ts';
import type { DeletionObservation } from '../domain/observation.ts';
import { mayHoldPinnedWorkflows } from '../domain/pinned-workflows.ts';
import { NOT_FOUND_GRACE_MS, notFoundDoubtedUntil } from '../domain/temporal-not-found.ts';
import type { TemporalVersion } from '../domain/snapshot.ts';
import { runningWorkflowsQuery } from '../domain/visibility.ts';
import { type Condition, progressing, stalled } from '../status/conditions.ts';
import type { PlannerConfig } from './plan.ts';
import type { PlannedAction } from './planned-action.ts';
import { managedElsewhere } from './routing.ts';

export interface DeletionPlan {
  actions: PlannedAction[];
  conditions: Condition[];
  /** Said as a Warning event before acting, once: only when it differs from what the status already says. */
  warning?: { reason: string; message: string };
  /** Once every action is done; a record Temporal would not delete yet makes it a poll interval. */
  requeueAfterMs: number;
}

/**
 * The builds whose running workflows the deletion counts: those Temporal may still dispatch pinned
 * workflows to, the drained ones it is about to delete the Deployments of, and those with a
 * Deployment it does not list. Temporal can call a build drained while a workflow pinned to it
 * runs (it counts them in visibility, which may lag the workflow's first task), and can leave out
 * a build it knows (see domain/temporal-not-found.ts): a count that finds one keeps the build.
 */
export function workflowsToCount(observation: Pick<DeletionObservation, 'temporal' | 'deployments'>): string[] {
  const deployed = new Set(observation.deployments.map((d) => d.buildId));
  const listed = new Set(observation.temporal.versions.map((v) => v.buildId));
  return [
    ...observation.temporal.versions
      .filter((v) => mayHoldPinnedWorkflows(v) || (v.status === 'Drained' && deployed.has(v.buildId)))
      .map((v) => v.buildId),
    ...[...deployed].filter((b) => !listed.has(b)),
  ];
}

/**
 * Its connection is gone (someone removed the finalizer that kept it while we needed it), so
 * Temporal is out of reach: the finalizer comes off, and the user is told what is left there.
 */
export function planDeletionWithoutConnection(where: {
  namespace: string;
  connectionName: string;
  temporalName: string;
  temporalNamespace: string;
}): DeletionPlan {
  const { namespace, connectionName, temporalName, temporalNamespace } = where;
  return {
    actions: [
      {
        action: 'removeFinalizer',
        kind: 'TemporalWorkerDeployment',
        reason: `TemporalConnection ${namespace}/${connectionName} does not exist: Temporal cannot be reached to clean up`,
      },
    ],
    conditions: [],
    warning: {
      reason: 'TemporalCleanupSkipped',
      message: `TemporalConnection ${namespace}/${connectionName} does not exist, so Worker Deployment ${temporalName} is left in Temporal namespace ${temporalNamespace}; remove it with \`temporal worker deployment delete --name ${temporalName}\``,
    },
    requeueAfterMs: 0,
  };
}

/**
 * How long Temporal's report that a build which took traffic is drained must stand before the
 * deletion believes it. The report and the count that confirms it both read visibility, which a
 * loaded server can leave behind a running workflow for longer than Temporal's own grace period
 * (a test environment's is a second): a CI run saw a draining build's Deployment deleted under its
 * pinned workflow. The sunset of old builds waits its own delays after the report.
 */
export const DRAINED_REPORT_GRACE_MS = 30_000;

export function planDeletion(observation: DeletionObservation, config: PlannerConfig): DeletionPlan {
  const { temporal, deployments, temporalName, now } = observation;
  const force = observation.workerDeployment.metadata.annotations?.[FORCE_DELETE_ANNOTATION] === 'true';
  const busy = temporal.versions.filter((v) => mayHoldPinnedWorkflows(v)).map((v) => v.buildId);
  const stillRunning = workflowsToCount(observation).filter(
    (b) => !busy.includes(b) && observation.runningWorkflows[b] !== 0,
  );
  const justDrained = temporal.versions
    .filter(
      (v) =>
        v.status === 'Drained' &&
        v.everActive &&
        v.drainedSince !== undefined &&
        now.getTime() - v.drainedSince.getTime() < DRAINED_REPORT_GRACE_MS,
    )
    .map((v) => v.buildId);
  const registered = observation.notFound?.registered ?? [];
  const doubtedUntil = observation.notFound && !force ? notFoundDoubtedUntil(observation.notFound, now) : undefined;
  const doubted = doubtedUntil
    ? [...new Set(deployments.map((d) => d.buildId))].filter((b) => registered.includes(b))
    : [];
  const keep = new Set(force ? [] : [...busy, ...stillRunning, ...justDrained, ...doubted]);
  const holder =
    temporal.managerIdentity && temporal.managerIdentity !== config.identity ? temporal.managerIdentity : undefined;
  const actions: PlannedAction[] = [];
  const conditions: Condition[] = [];
  const token = temporal.conflictToken ? { conflictToken: temporal.conflictToken } : {};

  if (holder) {
    const text = `cannot route new workflows away from its builds nor delete it from Temporal: ${managedElsewhere(temporalName, holder)}`;
    conditions.push(stalled('ManagedElsewhere', text));
  } else if (temporal.currentBuildId) {
    actions.push({
      action: 'route',
      change: {
        action: 'setUnversioned',
        ...(temporal.rampingBuildId ? { clearingRampOf: temporal.rampingBuildId } : {}),
        claimManager: false,
        ...token,
      },
      reason: `the worker deployment is being deleted: new workflows go to unversioned workers instead of build ${temporal.currentBuildId}`,
    });
  } else if (temporal.rampingBuildId) {
    actions.push({
      action: 'route',
      change: { action: 'clearRamp', claimManager: false, ...token },
      reason: `the worker deployment is being deleted: new workflows no longer ramp to build ${temporal.rampingBuildId}`,
    });
  }

  const versionOf = (buildId: string) => temporal.versions.find((v) => v.buildId === buildId);
  for (const d of deployments.filter((d) => !keep.has(d.buildId)))
    actions.push({
      action: 'delete',
      buildId: d.buildId,
      deployment: d.name,
      reason: `the worker deployment is being deleted and build ${d.buildId} ${leavesBecause(versionOf(d.buildId), force, registered.includes(d.buildId))}`,
    });
  const records = temporal.versions.filter((v) => !keep.has(v.buildId));
  for (const v of records)
    actions.push({
      action: 'deleteTemporalVersion',
      buildId: v.buildId,
      reason: `the worker deployment is being deleted and build ${v.buildId} ${leavesBecause(v, force)}`,
      ...(mayHoldPinnedWorkflows(v) ? { skipDrainage: true } : {}),
    });

  let said: Condition | undefined;
  let warn = false;
  if (keep.size > 0) {
    // What needs a person: the builds with workflows counted (or that could not be counted). A
    // build with none goes by itself once Temporal confirms it, after its visibility grace period.
    const waiting = [...keep].filter((b) => observation.runningWorkflows[b] !== 0);
    warn = waiting.length > 0;
    const kept = warn ? waiting : doubted.length > 0 ? doubted : [...keep];
    const builds = `build${kept.length === 1 ? '' : 's'} ${kept.join(', ')}`;
    const them = kept.length === 1 ? 'it' : 'them';
    said = warn
      ? progressing(
          'True',
          'DeletionWaitsForWorkflows',
          `deletion waits for ${workflowsOn(observation, kept)} to finish: the Deployments of ${builds} stay until none runs there and Temporal reports ${them} drained. Let the workflows finish, cancel or terminate them (\`temporal workflow terminate --query "${runningWorkflowsQuery(temporalName, kept)}"\`), or annotate the worker deployment ${FORCE_DELETE_ANNOTATION}=true to delete it now and strand them`,
        )
      : doubted.length > 0
        ? progressing(
            'True',
            'DeletionWaitsForTemporal',
            `deletion waits for Temporal to list ${builds}: it has answered since ${observation.notFound?.since.toISOString() ?? ''} that Worker Deployment ${temporalName} does not exist, though it registered ${them} (see the status), as it does for a moment after each change it makes. The Deployments of ${builds} stay until it lists ${them} again or its answer has stood ${NOT_FOUND_GRACE_MS / 1000} s`,
          )
        : progressing(
            'True',
            'DeletionWaitsForDrainage',
            `deletion waits for Temporal to report ${builds} drained: no running workflow is counted on ${them}, and Temporal confirms that after its visibility grace period; a report is believed once it has stood ${DRAINED_REPORT_GRACE_MS / 1000} s`,
          );
  } else if (force && busy.length + stillRunning.length > 0) {
    warn = true;
    said = progressing(
      'True',
      'ForcedDeletion',
      `deleting now, as the annotation ${FORCE_DELETE_ANNOTATION} asks: ${workflowsOn(observation, [...busy, ...stillRunning])} are left without workers`,
    );
  }
  if (said) conditions.push(said);

  const leftovers = [
    ...deployments.map((d) => `Deployment ${d.name}`),
    ...records.map((v) => `the record of build ${v.buildId}`),
  ];
  if (keep.size === 0 && leftovers.length === 0 && !holder) {
    if (temporal.exists)
      actions.push({
        action: 'deleteTemporalDeployment',
        reason: `deleted Worker Deployment ${temporalName} from Temporal: it has no version left`,
      });
    else if (registered.length > 0)
      actions.push({
        action: 'deleteTemporalDeployment',
        reason: `deleted Worker Deployment ${temporalName} from Temporal, which answered that it does not exist but registered builds of this worker deployment: the answer may have come while it changed`,
      });
    actions.push(
      {
        action: 'removeFinalizer',
        kind: 'TemporalConnection',
        reason: 'the worker deployment no longer needs its connection to reach Temporal',
      },
      {
        action: 'removeFinalizer',
        kind: 'TemporalWorkerDeployment',
        reason: 'nothing of the worker deployment is left in Kubernetes or Temporal',
      },
    );
  } else if (!said && !holder) {
    conditions.push(progressing('True', 'Deleting', `the worker deployment is being deleted: ${leftovers.join(', ')}`));
  }

  const before = observation.workerDeployment.status?.conditions?.find((c) => c.type === 'Progressing');
  return {
    actions,
    conditions,
    ...(said && warn && before?.message !== said.message
      ? { warning: { reason: said.reason, message: said.message } }
      : {}),
    // Records deleted, the Worker Deployment can go at once; drainage and pollers are the poll's to see.
    requeueAfterMs:
      records.length > 0 && keep.size === 0
        ? 0
        : Math.min(config.pollIntervalMs, doubtedUntil ? doubtedUntil.getTime() - now.getTime() : Infinity),
  };
}

function leavesBecause(version: TemporalVersion | undefined, force: boolean, registered = false): string {
  if (!version && registered)
    return force
      ? `is not listed by Temporal, and ${FORCE_DELETE_ANNOTATION} is set`
      : 'is no longer listed by Temporal, and no workflow is counted running there';
  if (!version) return 'never registered with Temporal';
  if (force && mayHoldPinnedWorkflows(version))
    return `${version.status === 'Inactive' ? 'may still hold pinned workflows' : `is ${version.status}`}, but ${FORCE_DELETE_ANNOTATION} is set`;
  return version.status === 'Drained' ? 'is drained' : 'never took traffic';
}

/** "3 running workflows on build b1, 1 running workflow on build b2", as far as they were counted. */
function workflowsOn(observation: DeletionObservation, buildIds: string[]): string {
  return buildIds
    .map((buildId) => {
      const count = observation.runningWorkflows[buildId];
      return count === undefined
        ? `the workflows pinned to build ${buildId} (their number could not be read)`
        : `${count} running workflow${count === 1 ? '' : 's'} on build ${buildId}`;
    })
    .join(', ');
}
