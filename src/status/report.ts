// What the status says after a reconcile: the builds as Temporal and Kubernetes left them, the
// conditions of the plan and of its execution, and when to look again. Pure.
import type { Observation } from '../domain/observation.ts';
import { LABELS } from '../domain/labels.ts';
import type { Execution, Plan } from '../planner/plan.ts';
import { type Condition, progressing, stalled } from './conditions.ts';
import { joinVersions, rememberedCurrentTimes, versionsStatus } from './versions.ts';

export interface Report {
  versions: ReturnType<typeof versionsStatus>;
  conditions: Condition[];
  requeueAfterMs: number;
}

export function reportOutcome(observation: Observation, plan: Plan, execution: Execution): Report {
  const { now, buildId, workerDeployment, deployments } = observation;
  // Nothing read again: a routing change made with the conflict token leaves exactly the planned state.
  const temporal = execution.done.some((a) => a.action === 'route') ? plan.routed : observation.temporal;
  const conditions: Condition[] = [];
  if (execution.failed) conditions.push(execution.failed.condition);
  conditions.push(...plan.conditions);
  const done = temporal.currentBuildId === buildId && !temporal.rampingBuildId;
  const stuck = deployments.filter((d) => d.buildId === buildId && d.stuck);
  if (stuck.length > 0 && !done) {
    const why = stuck.map((d) => `Deployment ${d.name}: ${d.stuck}`).join('; ');
    conditions.push(
      stalled(
        'BuildNotAvailable',
        `build ${buildId} cannot become available (${why}); its Pods say why: kubectl describe pods -l ${LABELS.buildId}=${buildId}`,
      ),
    );
  }
  const reason = plan.routing.reason;
  conditions.push(
    done
      ? { type: 'Ready', status: 'True', reason: 'TargetCurrent', message: `build ${buildId} is current` }
      : { type: 'Ready', status: 'False', reason: 'RollingOut', message: reason },
    done ? progressing('False', 'Done', `build ${buildId} is current`) : progressing('True', 'RollingOut', reason),
  );

  const joined = joinVersions(
    deployments,
    temporal,
    buildId,
    observation.wanted.map((w) => w.pool),
    rememberedCurrentTimes(workerDeployment.status, temporal.currentBuildId, now),
  );
  const versions = versionsStatus(joined, temporal, buildId);
  const previous = workerDeployment.status?.targetVersion;
  const madeRoom = execution.done.some((a) => a.action === 'deleteTemporalVersion' && a.makesRoom);
  const madeRoomAt = madeRoom ? now.toISOString() : previous?.buildID === buildId ? previous.madeRoomAt : undefined;
  if (versions.targetVersion) {
    versions.targetVersion = {
      ...versions.targetVersion,
      ...startedGates(plan, execution),
      ...(madeRoomAt ? { madeRoomAt } : {}),
    };
  }
  return { versions, conditions, requeueAfterMs: execution.failed?.requeueAfterMs ?? plan.requeueAfterMs };
}

/** The gate memory, without runs whose start was planned but not carried out. */
function startedGates(plan: Plan, execution: Execution): Plan['gates'] {
  const notStarted = new Set(
    plan.actions
      .filter((a) => a.action === 'startGate' && !execution.done.includes(a))
      .map((a) => (a.action === 'startGate' ? a.start.workflowId : '')),
  );
  if (notStarted.size === 0 || !plan.gates.gates) return plan.gates;
  const { gates, ...rest } = plan.gates;
  const started = gates.filter((g) => !notStarted.has(g.workflowID));
  return started.length > 0 ? { ...rest, gates: started } : rest;
}
