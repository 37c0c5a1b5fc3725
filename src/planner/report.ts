// What the status says after a reconcile: the builds as Temporal and Kubernetes left them, the
// conditions of the plan and of its execution, and when to look again. Pure.
import type { Observation } from '../domain/observation.ts';
import type { RoutingChange } from '../domain/routing-change.ts';
import {
  type Condition,
  MANUAL_PROMOTION,
  PAUSED,
  progressing,
  ROLLOUT_ABORTED,
  stalled,
} from '../status/conditions.ts';
import { CONFIGURATION_MISSING, missingConfigurationSays } from '../status/missing-configuration.ts';
import { describePods, PODS_FAILING, podsSay } from '../status/pods-say.ts';
import { deactivationTimes } from '../status/pinned-workflows.ts';
import { rampHistory } from '../status/ramp-history.ts';
import {
  type JoinedVersion,
  joinVersions,
  rememberedCurrentTimes,
  versionsStatus,
  withSupersededTimes,
} from '../status/versions.ts';
import type { Plan } from './plan.ts';
import type { Execution } from './planned-action.ts';

export interface Report {
  versions: ReturnType<typeof versionsStatus> &
    Pick<NonNullable<Observation['workerDeployment']['status']>, 'certificates'>;
  conditions: Condition[];
  /** Warning events of what is wrong but waits for no one's action yet (a failing Pod), or changed (a certificate expiring). */
  warnings: { reason: string; message: string }[];
  requeueAfterMs: number;
  /** The next look is when something falls due (see Plan), not a routine one. */
  requeueFallsDue: boolean;
}

export function reportOutcome(observation: Observation, plan: Plan, execution: Execution): Report {
  const { now, buildId, workerDeployment, deployments } = observation;
  const temporal = stateAfter(observation, plan, execution);
  const conditions: Condition[] = [];
  if (execution.failed) conditions.push(execution.failed.condition);
  conditions.push(...plan.conditions);
  const done = temporal.currentBuildId === buildId && !temporal.rampingBuildId;
  const stuck = deployments.filter((d) => d.buildId === buildId && d.stuck);
  const pods = done ? undefined : podsSay(observation.podProblems ?? [], buildId);
  const metadata = workerDeployment.metadata;
  const missing = done
    ? undefined
    : missingConfigurationSays(observation.missingConfiguration, metadata.namespace ?? '', buildId);
  const describe = describePods(metadata.namespace ?? '', metadata.name ?? '', buildId);
  if (stuck.length > 0 && !done) {
    const why = stuck.map((d) => `Deployment ${d.name}: ${d.stuck}`).join('; ');
    conditions.push(
      stalled(
        'BuildNotAvailable',
        `build ${buildId} cannot become available (${why}); ${missing ? `${missing.text}; ` : ''}its Pods say why: ${pods ? `${pods.text}; ` : ''}${describe}`,
      ),
    );
  } else if (missing) {
    // Before the progress deadline: the rollout waits for the object, and says which.
    const text = `${missing.text}${pods ? `; its Pods say: ${pods.text}` : ''}; ${describe}`;
    conditions.push({ type: 'Ready', status: 'False', reason: CONFIGURATION_MISSING, message: text });
    conditions.push(progressing('True', CONFIGURATION_MISSING, text));
  } else if (pods) {
    // Before the progress deadline the Deployment may still make it (a Secret created, an image
    // pushed): the rollout waits, and says on what.
    const text = `build ${buildId} cannot run yet: ${pods.text}; ${describe}`;
    conditions.push({ type: 'Ready', status: 'False', reason: PODS_FAILING, message: text });
    conditions.push(progressing('True', PODS_FAILING, text));
  }
  const joined = withSupersededTimes(
    joinVersions(
      deployments,
      temporal,
      buildId,
      observation.wanted.map((w) => w.pool),
      rememberedCurrentTimes(workerDeployment.status, temporal.currentBuildId, now),
    ),
    workerDeployment.status,
    buildId,
    now,
  );
  // After what the rollout says (a certificate expired is the stall said last), before its summary.
  if (plan.certificates) conditions.push(...plan.certificates.conditions);
  conditions.push(...summary(observation, plan, joined, done));
  const versions: Report['versions'] = versionsStatus(joined, temporal, buildId, {
    deactivatedAt: deactivationTimes(workerDeployment.status, temporal, now),
    ladder: withStartedBatches(plan, execution, now),
    ...(observation.pollers ? { pollers: observation.pollers.workers } : {}),
    taskQueues: plan.taskQueues,
    rampHistory: rampHistory(workerDeployment.status?.targetVersion, buildId, temporal, now),
  });
  const previous = workerDeployment.status?.targetVersion;
  const madeRoom = execution.done.some((a) => a.action === 'deleteTemporalVersion' && a.makesRoom);
  const madeRoomAt = madeRoom ? now.toISOString() : previous?.buildID === buildId ? previous.madeRoomAt : undefined;
  if (plan.failedBuilds.length > 0) versions.failedBuilds = plan.failedBuilds;
  if (plan.certificates?.records.length) versions.certificates = plan.certificates.records;
  if (versions.targetVersion) {
    versions.targetVersion = {
      ...versions.targetVersion,
      ...startedGates(plan, execution),
      ...(plan.analysis ? { analysis: plan.analysis } : {}),
      ...(madeRoomAt ? { madeRoomAt } : {}),
    };
  }
  // After a routing change, look again at once while the next decision waits on Temporal's own
  // account of it (a ramp's change time, which a step's pause counts from; a promotion's, which an
  // analysis window starts at). A promotion that ends the rollout waits for nothing: the change
  // carried the conflict token, so Temporal holds the planned state, and the next look comes when
  // the plan says (its own times, currentSince and the old build's drainage, are written then).
  const routed = execution.done.some((a) => a.action === 'route' && !endsRollout(a.change, observation));
  const requeueAfterMs = execution.failed?.requeueAfterMs ?? (routed ? 0 : plan.requeueAfterMs);
  const requeueFallsDue = !execution.failed && !routed && plan.requeueFallsDue;
  const warnings = [...(missing?.events ?? []), ...(pods?.events ?? []), ...(plan.certificates?.events ?? [])];
  return { versions, conditions, warnings, requeueAfterMs, requeueFallsDue };
}

/** Temporal's state after the execution, not read again: a routing change made with the conflict token leaves exactly the planned state. */
export function stateAfter(observation: Observation, plan: Plan, execution: Execution): Observation['temporal'] {
  return execution.done.some((a) => a.action === 'route') ? plan.routed : observation.temporal;
}

/** A routing change that promotes the target of a rollout without analysis: nothing more to decide on it. */
function endsRollout(change: RoutingChange, observation: Observation): boolean {
  return (
    change.action === 'setCurrent' &&
    change.buildId === observation.buildId &&
    !observation.workerDeployment.spec.rollout?.analysis
  );
}

/** Ready and Progressing when nothing went wrong: current, waiting for people (Manual), or rolling out. */
function summary(observation: Observation, plan: Plan, joined: JoinedVersion[], done: boolean): Condition[] {
  const { buildId, workerDeployment } = observation;
  if (done) {
    const text = `build ${buildId} is current`;
    // An AllAtOnce promotion under analysis: current, and still judged.
    const judged = plan.analysis?.verdict === 'Pending' ? plan.analysis.message : undefined;
    return [
      { type: 'Ready', status: 'True', reason: 'TargetCurrent', message: text },
      judged ? progressing('True', 'AnalysisPending', `${text}; ${judged}`) : progressing('False', 'Done', text),
    ];
  }
  const target = joined.find((v) => v.buildId === buildId);
  const rollout = workerDeployment.spec.rollout ?? workerDeployment.spec.cutover;
  const held = plan.routing.action === 'none' || plan.routing.action === 'wait';
  if (rollout?.abort === buildId && held) return [stalled(ROLLOUT_ABORTED, plan.routing.reason)];
  if (rollout?.paused && plan.routing.action === 'none')
    return [
      { type: 'Ready', status: 'False', reason: PAUSED, message: plan.routing.reason },
      progressing('False', PAUSED, plan.routing.reason),
    ];
  if (
    rollout?.strategy === 'Manual' &&
    rollout.promote !== buildId &&
    target?.healthy &&
    target.status !== 'NotRegistered'
  ) {
    const text = `build ${buildId} runs and is registered in Temporal; the Manual strategy leaves routing to you: twc promote ${workerDeployment.metadata.name ?? ''} -n ${workerDeployment.metadata.namespace ?? ''}, or temporal worker deployment set-current-version --deployment-name ${observation.temporalName} --build-id ${buildId}`;
    return [
      { type: 'Ready', status: 'False', reason: MANUAL_PROMOTION, message: text },
      progressing('False', MANUAL_PROMOTION, text),
    ];
  }
  const reason = plan.routing.reason;
  return [
    { type: 'Ready', status: 'False', reason: 'RollingOut', message: reason },
    progressing('True', 'RollingOut', reason),
  ];
}

/** The ladder of each old build, with the batches, replay checks and moves started by this execution. */
function withStartedBatches(plan: Plan, execution: Execution, now: Date): Plan['ladder'] {
  const ladder = { ...plan.ladder };
  for (const a of execution.done) {
    // A round is remembered as far as its starts went: the last one done says what it left.
    if (a.action === 'startReplayCheck' || a.action === 'startMoveBatch')
      ladder[a.buildId] = { ...(ladder[a.buildId] ?? { step: 'Waiting' }), move: a.move };
    const entry = a.action === 'startBatch' ? ladder[a.buildId] : undefined;
    if (a.action !== 'startBatch' || !entry) continue;
    const batch = { jobId: a.jobId, operation: a.operation, state: 'Running' as const, startTime: now };
    ladder[a.buildId] = { ...entry, batch: { ...batch, total: entry.running ?? 0, completed: 0, failed: 0 } };
  }
  return ladder;
}

/**
 * The gate memory, without runs whose start was planned but not carried out, with the run ID of
 * each run started, and with each run it meant to end that is still running: ended next time.
 */
function startedGates(plan: Plan, execution: Execution): Plan['gates'] {
  const notDone = plan.actions.filter((a) => !execution.done.includes(a));
  const notStarted = new Set(notDone.flatMap((a) => (a.action === 'startGate' ? [a.start.workflowId] : [])));
  const notEnded = notDone.flatMap((a) => (a.action === 'terminateGate' && a.remembered ? [a.remembered] : []));
  const { gates = [], ...rest } = plan.gates;
  // Each run started is known by its run ID from now on: only that run may pass the gate.
  const runIds = execution.startedGateRuns ?? {};
  const started = gates
    .filter((g) => !notStarted.has(g.workflowID))
    .map((g) => (runIds[g.workflowID] === undefined ? g : { ...g, runID: runIds[g.workflowID] }));
  const remembered = [...started, ...notEnded];
  return remembered.length > 0 ? { ...rest, gates: remembered } : rest;
}
