// One reconcile's decisions, from one observation: which Kubernetes and Temporal actions to take,
// in the order the executor takes them, each with its reason, and what the status will say.
// Pure: the observation and the configuration in, the plan out.
import { SUNSET_DEFAULTS } from '../api/defaults.ts';
import type { LadderStatus } from '../domain/ladder.ts';
import type { Observation } from '../domain/observation.ts';
import type { RoutingChange } from '../domain/routing-change.ts';
import type { BuildTaskQueues, TemporalDeploymentState } from '../domain/snapshot.ts';
import { type Condition, progressing, stalled } from '../status/conditions.ts';
import type { JoinedVersion } from '../status/versions.ts';
import { type FailedBuild, failedBuildsAfter } from './failed-builds.ts';
import {
  abandonedGates,
  decideGates,
  type GateMemory,
  type GateQueues,
  type GateStage,
  gateToRead,
  gateTaskQueues,
} from './gates.ts';
import {
  decideRouting,
  isRollback,
  managedElsewhere,
  type RoutingDecision,
  routedState,
  unversionedPollersMatter,
} from './routing.ts';
import { ladderReads, type LadderReads, planLadder } from './pinned-workflows.ts';
import { ladderContext, moveContext } from './old-build-contexts.ts';
import { type MovePlan, moveReads, type MoveReads, planMoves } from './pinned-moves.ts';
import { planVersions, REGISTRATION_GRACE_MS, type Sunset, sunsetDue, unusedBuildCountDue } from './versions.ts';
import { type AnalysisMemory, analysisReads, type AnalysisReads, planAnalysis } from './analysis.ts';
import { poolQueues, situation } from './situation.ts';
import { finalizers, kubernetesActions, secretCopyActions } from './kubernetes-actions.ts';
import type { PlannedAction } from './planned-action.ts';
import { workerDeploymentCertificates } from './certificates.ts';
import type { CertificateVerdict } from '../status/certificates.ts';
import { noPollersCondition, silentQueues } from './no-pollers.ts';
import { knownTaskQueues } from '../status/task-queues.ts';
import type { TaskQueueRef } from '../domain/pollers.ts';

export interface PlannerConfig {
  /** This installation's identity: the manager identity it claims in Temporal. */
  identity: string;
  pollIntervalMs: number;
  maxIneligibleVersions: number;
  maxVersionsInDeployment: number;
  rollbackWindowMs: number;
  /** How long before a certificate of the connection expires it is said (default: DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS). */
  certificateExpiryWarningMs?: number;
  /** The server's matching.PollerHistoryTTL: how long Ready Pods may poll nothing before their build says NoPollers. */
  pollerHistoryMs: number;
}

export interface Plan {
  actions: PlannedAction[];
  /** What holds whatever the execution: what blocks the rollout, a gate's verdict. */
  conditions: Condition[];
  /** What was learned rather than done, for events (Normal unless said). */
  notes: { type?: 'Warning'; reason: string; message: string }[];
  /** Each build's task queues, where known (see status/task-queues.ts). */
  taskQueues: Record<string, TaskQueueRef[]>;
  /** The builds that take traffic and said NoPollers (see planner/no-pollers.ts); absent: not judged. */
  buildsWithoutPollers?: number;
  /** What the status remembers of the target's gates. */
  gates: GateMemory;
  /** The pinned-workflow ladder of each old build, with its moves (see planner/pinned-workflows.ts, pinned-moves.ts). */
  ladder: Record<string, LadderStatus>;
  /** What the rounds of moves that ended moved and left, for the metric; absent: none ended. */
  moveOutcomes?: MovePlan['outcomes'];
  /** What the status remembers of the analysis of the target's step, if it has one. */
  analysis?: AnalysisMemory;
  /** Builds that failed a gate or an analysis (see planner/failed-builds.ts). */
  failedBuilds: FailedBuild[];
  /** A verdict of that analysis the status did not hold yet. */
  analysisReached?: 'Passed' | 'Failed';
  routing: RoutingDecision;
  /** Temporal's state once every action succeeded. */
  routed: TemporalDeploymentState;
  requeueAfterMs: number;
  /** The requeue is when something the plan waits for falls due (a pause's end, a sunset delay), not a routine look. */
  requeueFallsDue: boolean;
  /** What to say of the certificates of the connection's Secrets (none: nothing to say). */
  certificates?: CertificateVerdict;
}

/** What the planner must know beyond Temporal's description of the deployment, asked of Temporal only when it changes a decision. */
export interface ReadsNeeded {
  unversionedPollers: boolean;
  /** The stage whose gate runs must be read. */
  gateStage?: GateStage;
  /** What the pinned-workflow ladder must count and read. */
  ladder: LadderReads;
  /** What the moves of pinned workflows must list and read. */
  moves: MoveReads;
  /** The target's task queues, which a round of moves onto it needs and no one recorded yet. */
  targetTaskQueues?: boolean;
  /** The counts spec.rollout.analysis judges the target's step by. */
  analysis?: AnalysisReads;
}

export function readsNeeded(observation: Omit<Observation, 'target'>, config: PlannerConfig): ReadsNeeded {
  const { versions, target, gate, rollout, analysis, failedBefore } = situation(observation, config);
  const read = gateToRead(gate);
  const { temporal, buildId } = observation;
  const laddering = ladderContext(observation, versions, temporal);
  const laddered = ladderReads(laddering);
  const ended = temporal.currentBuildId === buildId && analysisReads(analysis) === undefined;
  const taskQueues = knownTaskQueues(observation.workerDeployment.status, observation.pollers?.taskQueues);
  const moving = moveContext(observation, laddering, temporal, ended, failedBefore, taskQueues);
  const moves = moveReads(moving);
  // A round onto the target just promoted waits for its queues, which no gate may have read.
  const queuesUnknown = !(taskQueues[buildId] ?? []).some((q) => q.type === 'workflow');
  const movesWaitOnQueues = ended && queuesUnknown && moving.builds.some((b) => b.source && b.askedBy);
  // A build whose scale-down or deletion falls due is counted first (see planVersions).
  const sunset = sunsetOf(observation.workerDeployment.spec);
  const timing = { now: observation.now, sunset };
  const superseded = versions.filter((v) => v.buildId !== observation.buildId);
  const due = superseded.filter((v) => sunsetDue(v, timing) || unusedBuildCountDue(v, timing)).map((v) => v.buildId);
  const counted = [...laddered.count, ...due, ...moves.list.map((l) => l.buildId)];
  const ladder = { ...laddered, count: [...new Set(counted)] };
  const registered = target !== undefined && target.status !== 'NotRegistered';
  const counts = analysisReads(analysis);
  return {
    ...(counts ? { analysis: counts } : {}),
    unversionedPollers: unversionedPollersMatter({
      strategy: rollout.strategy,
      currentBuildId: observation.temporal.currentBuildId,
      target: versions.find((v) => v.buildId === observation.buildId),
    }),
    ...(registered && read ? { gateStage: read } : {}),
    ladder,
    moves,
    ...(movesWaitOnQueues ? { targetTaskQueues: true } : {}),
  };
}

/** Whether the plan asks Temporal for nothing beyond the Worker Deployment's description. */
export function readsNothingMore(needs: ReadsNeeded): boolean {
  const { ladder, moves } = needs;
  return (
    !needs.unversionedPollers &&
    !needs.gateStage &&
    !needs.targetTaskQueues &&
    !needs.analysis &&
    ladder.count.length + ladder.batches.length + ladder.listed.length === 0 &&
    moves.list.length + moves.checks.length + moves.batches.length === 0
  );
}

/**
 * The task queues the target's gates run on (see gateTaskQueues): the observer reads their runs,
 * the planner judges them. None until every Deployment the spec makes (each pool's) is available
 * and Temporal lists its queue: a gate that passed on one pool's queue says nothing of another
 * pool's workers, nor of the workers of a Deployment that replaced the pools.
 */
export function gateQueues(observation: Omit<Observation, 'target'>, taskQueues: BuildTaskQueues): GateQueues {
  // The Deployments of the spec's pools: until each is available, its workers' queues may not be listed yet.
  const pools = observation.wanted.map((w) => w.pool);
  const serving = observation.deployments.filter((d) => d.buildId === observation.buildId && pools.includes(d.pool));
  const unavailable = pools.filter((pool) => !serving.some((d) => d.pool === pool && d.available));
  if (unavailable.length > 0)
    return {
      taskQueues: [],
      unavailable: unavailable.map((pool) => (pool === undefined ? 'the build' : `pool ${pool}`)),
    };
  const since = serving.map((d) => d.availableSince?.getTime());
  const lastAvailable = since.every((t) => t !== undefined) ? Math.max(...since) : undefined;
  const pastGrace = lastAvailable !== undefined && observation.now.getTime() - lastAvailable >= REGISTRATION_GRACE_MS;
  const queues = gateTaskQueues(taskQueues, pastGrace);
  const missing = poolQueues(observation).filter((q) => !queues.includes(q));
  return missing.length > 0 ? { taskQueues: [], missing } : { taskQueues: queues };
}

export function planReconcile(observation: Observation, config: PlannerConfig): Plan {
  const { now, buildId, temporal, workerDeployment } = observation;
  const spec = workerDeployment.spec;
  const { versions, target, gate, rollout, previousTarget, analysis, failedBefore } = situation(observation, config);
  const conditions: Condition[] = [];
  const notes: Plan['notes'] = [];

  const registered = target !== undefined && target.status !== 'NotRegistered';
  const observedGate = observation.target;
  const gateDecision = decideGates(
    gate,
    registered && observedGate?.gateRuns && observedGate.gateStage
      ? {
          stage: observedGate.gateStage,
          ...gateQueues(observation, observedGate.taskQueues),
          runs: observedGate.gateRuns,
        }
      : undefined,
  );
  const gateState = observedGate?.gateReadFailure ? 'pending' : gateDecision.gate;
  const analysisPlan = planAnalysis(analysis, observation.analysis);

  const pollersMatter = unversionedPollersMatter({
    strategy: rollout.strategy,
    currentBuildId: temporal.currentBuildId,
    target,
  });
  const routing = decideRouting({
    now,
    rollout,
    target: {
      buildId,
      status: target?.status ?? 'NotRegistered',
      healthy: target?.healthy ?? false,
      gate: gateState,
      ...(gateState === 'pending' && gateDecision.waiting ? { gateWaiting: gateDecision.waiting } : {}),
      // A build that failed a gate or an analysis is never promoted by the rollback shortcut.
      ...(target?.lastCurrentAt && !failedBefore.has(buildId) ? { lastCurrentAt: target.lastCurrentAt } : {}),
      ...(analysis.analysis
        ? {
            analysis: {
              state: analysisPlan.state,
              reason: analysisPlan.reason,
              onFailure: analysisPlan.onFailure,
              ...(analysisPlan.recheckAt ? { recheckAt: analysisPlan.recheckAt } : {}),
              ...rollBackTo(versions, buildId, failedBefore, (at) => isRollback(now, at, config.rollbackWindowMs)),
            },
          }
        : {}),
    },
    routing: {
      ...(temporal.currentBuildId ? { currentBuildId: temporal.currentBuildId } : {}),
      ...(temporal.rampingBuildId
        ? { rampingBuildId: temporal.rampingBuildId, rampPercentage: temporal.rampPercentage ?? 0 }
        : {}),
      ...(temporal.rampChangedAt ? { rampChangedAt: temporal.rampChangedAt } : {}),
      unversionedPollersConfirmed: pollersMatter ? observedGate?.unversionedPollers : false,
    },
    rollbackWindowMs: config.rollbackWindowMs,
  });
  const change = routingChange(routing, temporal);
  const holder = temporal.managerIdentity;
  const heldElsewhere = change !== undefined && holder !== undefined && holder !== config.identity;
  const routes = change !== undefined && !heldElsewhere;

  // Everything below decides on the routing as this plan leaves it, computed once: a build it
  // routes to is active (never scaled down, deleted, nor laddered), one it routes away from drains.
  const routed = routes ? routedState(temporal, routing, config.identity) : temporal;
  const routedVersions = asRouted(versions, routed);
  const taskQueues = knownTaskQueues(
    workerDeployment.status,
    observation.pollers?.taskQueues,
    observedGate ? { buildId, taskQueues: observedGate.taskQueues } : undefined,
  );
  // Moves first: a round they start holds the ladder's steps and the sunset of its build in this same plan.
  const laddering = ladderContext(observation, routedVersions, routed);
  const ended =
    routed.currentBuildId === buildId && analysisReads(analysis) === undefined && analysisPlan.state === 'passed';
  const moves = planMoves(
    moveContext(observation, laddering, routed, ended, failedBefore, taskQueues),
    observation.moves ?? { runs: {}, checks: {}, batches: {} },
  );
  const versionsPlan = planVersions({
    now,
    targetBuildId: buildId,
    ...(routed.currentBuildId ? { currentBuildId: routed.currentBuildId } : {}),
    ...(spec.replicas === undefined ? {} : { replicas: spec.replicas }),
    ...(spec.pools
      ? {
          pools: spec.pools.map((p) => ({
            name: p.name,
            ...(p.replicas === undefined ? {} : { replicas: p.replicas }),
          })),
        }
      : {}),
    sunset: sunsetOf(spec),
    versions: routedVersions,
    temporalKnowsDeployment: temporal.exists,
    maxIneligibleVersions: config.maxIneligibleVersions,
    maxVersionsInDeployment: config.maxVersionsInDeployment,
    ...(previousTarget?.madeRoomAt ? { madeRoomAt: new Date(previousTarget.madeRoomAt) } : {}),
    pinnedRunning: observation.pinned?.running ?? {},
    moving: moves.underWay,
  });
  const ladder = planLadder(
    {
      ...laddering,
      builds: laddering.builds.map((b) => (moves.holdsLadder.has(b.buildId) ? { ...b, heldByMove: true } : b)),
    },
    observation.pinned ?? { running: {}, batches: {} },
  );
  for (const [b, move] of Object.entries(moves.status))
    ladder.status[b] = { ...(ladder.status[b] ?? { step: 'Waiting' }), move };

  if (gateDecision.failure) conditions.push(stalled(gateDecision.failure.reason, gateDecision.failure.message));
  if (gateDecision.foreign) conditions.push(stalled('GateRunForeign', gateDecision.foreign));
  if (gateDecision.passed) notes.push({ reason: 'GatePassed', message: gateDecision.passed });
  if (observedGate?.gateReadFailure)
    conditions.push(progressing('False', 'GateCheckFailed', observedGate.gateReadFailure));
  for (const a of versionsPlan.actions) if (a.action === 'blocked') conditions.push(stalled(a.condition, a.reason));
  if (analysisPlan.state === 'failed') conditions.push(stalled('AnalysisFailed', analysisPlan.reason));
  if (analysisPlan.note) notes.push(analysisPlan.note);
  notes.push(...ladder.notes, ...moves.notes);
  if (heldElsewhere && holder)
    conditions.push(
      stalled('ManagedElsewhere', `${routing.reason}: ${managedElsewhere(observation.temporalName, holder)}`),
    );
  const silent = silentQueues({
    now,
    pollerHistoryMs: config.pollerHistoryMs,
    pollers: observation.pollers,
    versions,
    taskQueues,
  });
  const noPollers = silent && noPollersCondition(silent, { ...observation, ...config });
  if (noPollers) {
    conditions.push(noPollers);
    // A Warning event when it starts (or names other builds or queues), not at every reconcile.
    const before = workerDeployment.status?.conditions?.find((c) => c.type === noPollers.type);
    if (before?.status !== 'True' || before.reason !== noPollers.reason || before.message !== noPollers.message)
      notes.push({ type: 'Warning', reason: noPollers.reason, message: noPollers.message });
  }

  const actions: PlannedAction[] = [
    ...finalizers(observation),
    ...secretCopyActions(observation),
    ...kubernetesActions(versionsPlan.actions, observation),
    ...ladder.actions.filter((a) => a.action === 'stopBatch'),
    ...moves.actions.filter((a) => a.action === 'stopBatch'),
    ...abandonedGates(workerDeployment.status?.targetVersion, buildId).map((g) => ({
      action: 'terminateGate' as const,
      buildId: g.buildId,
      workflowId: g.workflowId,
      runId: g.runId,
      reason: `terminated gate ${g.stage} of build ${g.buildId} on task queue ${g.taskQueue}: build ${g.buildId} is no longer the target, so the gate judges no rollout`,
    })),
    ...(gateDecision.ended ?? []).map(({ run, why }) => ({
      action: 'terminateGate' as const,
      buildId,
      workflowId: run.workflowID,
      runId: run.runID ?? '',
      remembered: run,
      reason: `terminated gate ${run.stage} of build ${buildId} on task queue ${run.taskQueue} (workflow ${run.workflowID}): ${why}`,
    })),
    ...gateDecision.starts.flatMap((start) =>
      start.replaces
        ? [
            {
              action: 'terminateGate' as const,
              buildId,
              workflowId: start.workflowId,
              runId: start.replaces.runId,
              reason: `terminated gate ${start.stage} of build ${buildId} on task queue ${start.taskQueue} (run ${start.replaces.runId}): ${start.replaces.why}`,
            },
          ]
        : [],
    ),
    ...gateDecision.starts.map((start) => ({
      action: 'startGate' as const,
      buildId,
      start,
      reason: `started gate ${start.stage} (${start.gate.workflowType}) of build ${buildId} on task queue ${start.taskQueue}, pinned to the build`,
    })),
    ...(routes ? [{ action: 'route' as const, change, reason: routeReason(routing, change) }] : []),
    ...versionsPlan.actions.filter((a) => a.action === 'deleteTemporalVersion'),
    ...ladder.actions.filter((a) => a.action === 'startBatch'),
    ...moves.actions.filter((a) => a.action !== 'stopBatch'),
  ];
  const recheck = [
    versionsPlan.recheckAt,
    routing.action === 'wait' ? routing.recheckAt : undefined,
    ladder.recheckAt,
    moves.recheckAt,
    gateDecision.recheckAt,
  ]
    .filter((d): d is Date => d !== undefined)
    .map((d) => Math.max(0, d.getTime() - now.getTime()));
  return {
    actions,
    conditions,
    notes,
    taskQueues,
    ...(silent ? { buildsWithoutPollers: new Set(silent.map((q) => q.buildId)).size } : {}),
    gates: gateDecision.memory,
    ladder: ladder.status,
    ...(Object.values(moves.outcomes).some((n) => n > 0) ? { moveOutcomes: moves.outcomes } : {}),
    ...(analysisPlan.memory ? { analysis: analysisPlan.memory } : {}),
    ...(analysisPlan.reached ? { analysisReached: analysisPlan.reached } : {}),
    failedBuilds: failedBuildsAfter({
      now,
      stored: workerDeployment.status?.failedBuilds ?? [],
      target: buildId,
      ...(gateDecision.failure ? { gateFailure: gateDecision.failure.message } : {}),
      ...(analysisPlan.state === 'failed' ? { analysisFailure: analysisPlan.reason } : {}),
      settledCurrent:
        routed.currentBuildId === buildId &&
        !routed.rampingBuildId &&
        gateState === 'passed' &&
        analysisPlan.state === 'passed',
    }),
    routing,
    routed,
    requeueAfterMs: Math.min(config.pollIntervalMs, ...recheck),
    requeueFallsDue: recheck.some((ms) => ms <= config.pollIntervalMs),
    ...(observation.certificates
      ? {
          certificates: workerDeploymentCertificates(
            workerDeployment,
            observation.connection,
            observation.certificates,
            now,
            config.certificateExpiryWarningMs,
          ),
        }
      : {}),
  };
}

/** The builds with the status each has once the routing change is made (see routedState). */
function asRouted(versions: JoinedVersion[], routed: TemporalDeploymentState): JoinedVersion[] {
  return versions.map((v) => {
    const after = routed.versions.find((r) => r.buildId === v.buildId);
    if (!after || after.status === v.status) return v;
    // A drained build routed to again is no longer drained.
    const routedTo: JoinedVersion = { ...v, status: after.status, everActive: after.everActive };
    delete routedTo.drainedSince;
    return routedTo;
  });
}

function sunsetOf(spec: Observation['workerDeployment']['spec']): Sunset {
  return {
    scaledownDelay: spec.sunset?.scaledownDelay ?? SUNSET_DEFAULTS.scaledownDelay,
    deleteDelay: spec.sunset?.deleteDelay ?? SUNSET_DEFAULTS.deleteDelay,
    unusedBuildDeleteDelay: spec.sunset?.unusedBuildDeleteDelay ?? SUNSET_DEFAULTS.unusedBuildDeleteDelay,
  };
}

function routeReason(routing: RoutingDecision, change: RoutingChange): string {
  const cleared = change.action === 'setCurrent' && change.clearingRampOf;
  return cleared ? `${routing.reason}; the ramp of build ${cleared} is cleared in the same change` : routing.reason;
}

function routingChange(routing: RoutingDecision, temporal: TemporalDeploymentState): RoutingChange | undefined {
  const common = {
    claimManager: !temporal.managerIdentity,
    ...(temporal.conflictToken ? { conflictToken: temporal.conflictToken } : {}),
  };
  switch (routing.action) {
    case 'setCurrent': {
      const abandoned = temporal.rampingBuildId && temporal.rampingBuildId !== routing.buildId;
      return {
        action: 'setCurrent',
        buildId: routing.buildId,
        ...(abandoned ? { clearingRampOf: temporal.rampingBuildId } : {}),
        ...common,
      };
    }
    case 'setRamp':
      return { action: 'setRamp', buildId: routing.buildId, percentage: routing.percentage, ...common };
    case 'clearRamp':
      return { action: 'clearRamp', ...common };
    default:
      return undefined;
  }
}

/**
 * The build current last before the target, which a failed AllAtOnce analysis goes back to: one
 * that failed too is passed over, and one current longer ago than the rollback window is not gone
 * back to (its gates and analysis were of another time, as for the rollback shortcut).
 */
function rollBackTo(
  versions: JoinedVersion[],
  buildId: string,
  failedBefore: Set<string>,
  recent: (lastCurrentAt: Date) => boolean,
): { rollBackTo?: { buildId: string; healthy: boolean } } {
  const earlier = versions
    .filter((v) => v.buildId !== buildId && v.lastCurrentAt !== undefined && !failedBefore.has(v.buildId))
    .sort((a, b) => (b.lastCurrentAt?.getTime() ?? 0) - (a.lastCurrentAt?.getTime() ?? 0))[0];
  if (!earlier?.lastCurrentAt || !recent(earlier.lastCurrentAt)) return {};
  return { rollBackTo: { buildId: earlier.buildId, healthy: earlier.healthy } };
}
