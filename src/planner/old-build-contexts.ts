// Which builds the pinned-workflow ladder and the moves of pinned workflows act on, read from one
// observation and the routing a plan leaves: each with what the status remembers of it, its
// count, and the field that asks for its moves. Pure.
import type { Observation } from '../domain/observation.ts';
import type { TaskQueueRef } from '../domain/pollers.ts';
import { mayHoldPinnedWorkflows } from '../domain/pinned-workflows.ts';
import type { TemporalDeploymentState } from '../domain/snapshot.ts';
import { deactivationTimes, ladderMemories } from '../status/pinned-workflows.ts';
import type { JoinedVersion } from '../status/versions.ts';
import { type MoveBuild, type MoveContext, roundUnderWay } from './pinned-moves.ts';
import type { LadderContext } from './pinned-workflows.ts';

/**
 * The builds the ladder acts on, on `routing` (Temporal's, or as this plan leaves it): pinned
 * workflows may still run there (or their batch still runs), and none is current, ramping or the
 * target.
 */
export function ladderContext(
  observation: Omit<Observation, 'target'>,
  versions: JoinedVersion[],
  routing: TemporalDeploymentState,
): LadderContext {
  const { now, buildId, workerDeployment } = observation;
  const stored = workerDeployment.status;
  const deactivated = deactivationTimes(stored, routing, now);
  const memories = ladderMemories(stored);
  const active = (b: string): boolean => b === buildId || b === routing.currentBuildId || b === routing.rampingBuildId;
  const builds = versions.flatMap((v) => {
    const deactivatedAt = deactivated[v.buildId];
    const memory = memories[v.buildId];
    // A build drained by its batch or its round of moves (its workflows moved on) keeps its ladder until their end is read.
    const mayRunPinned = mayHoldPinnedWorkflows(v) || memory?.batch?.state === 'Running' || roundUnderWay(memory?.move);
    if (active(v.buildId) || !mayRunPinned || !deactivatedAt || v.deployments.length === 0) return [];
    return [{ buildId: v.buildId, deactivatedAt, ...(memory ? { memory } : {}) }];
  });
  const reactivated = Object.entries(memories).flatMap(([b, memory]) =>
    active(b) && memory.batch?.state === 'Running' ? [{ buildId: b, batch: memory.batch }] : [],
  );
  // A target once active, neither current nor ramping as Temporal was read: its batches are looked
  // for whatever its memory says (a 409 can lose the write that remembered one), as this plan may
  // route to it. One current or ramping was looked at by the plan that routed to it.
  const { temporal } = observation;
  const target = temporal.versions.find((v) => v.buildId === buildId);
  const routed = temporal.currentBuildId === buildId || temporal.rampingBuildId === buildId;
  const suspect = target?.everActive && !routed && !memories[buildId]?.batch;
  const move = memories[buildId]?.move;
  const moving = roundUnderWay(move) ? move?.batch?.jobId : undefined;
  return {
    now,
    ladder: workerDeployment.spec.sunset?.pinnedWorkflows,
    temporalName: observation.temporalName,
    builds,
    reactivated,
    ...(suspect ? { suspect: buildId } : {}),
    ...(suspect && moving ? { suspectMoving: moving } : {}),
  };
}

/**
 * The builds the moves act on, each with the field that asks for its moves, its last round and its
 * count: the ladder's old builds, the target of an aborted rollout (twc abort, a failed gate or
 * analysis) once nothing ramps, and any other whose round is under way (active again, or without
 * workers: the round stops). They move onto the current build once the rollout has `ended` (the
 * target current, its analysis done) or was aborted, on the workflow task queues its workers poll.
 */
export function moveContext(
  observation: Omit<Observation, 'target'>,
  laddering: LadderContext,
  routing: TemporalDeploymentState,
  ended: boolean,
  failedBefore: Set<string>,
  taskQueues: Record<string, TaskQueueRef[]>,
): MoveContext {
  const { now, buildId, workerDeployment } = observation;
  const { spec } = workerDeployment;
  const pinned = spec.sunset?.pinnedWorkflows;
  const rollout = spec.rollout ?? spec.cutover;
  const { currentBuildId, rampingBuildId } = routing;
  const aborted =
    currentBuildId !== buildId &&
    rampingBuildId !== buildId &&
    (rollout?.abort === buildId || failedBefore.has(buildId)) &&
    routing.versions.some((v) => v.buildId === buildId);
  const askedBy = (b: string): string | undefined => {
    if (pinned?.moveFrom === b) return 'spec.sunset.pinnedWorkflows.moveFrom';
    if (b === buildId)
      return rollout?.onAbort === 'MoveToPrevious' ? 'spec.rollout.onAbort: MoveToPrevious' : undefined;
    return pinned?.moveToCurrent ? 'spec.sunset.pinnedWorkflows.moveToCurrent' : undefined;
  };
  const memories = ladderMemories(workerDeployment.status);
  const source = (b: string, ladderBatchRunning: boolean): MoveBuild => {
    const running = observation.pinned?.running[b];
    const asked = askedBy(b);
    const memory = memories[b]?.move;
    return {
      buildId: b,
      source: true,
      ...(asked ? { askedBy: asked } : {}),
      ...(memory ? { memory } : {}),
      ...(running === undefined ? {} : { running }),
      ladderBatchRunning,
    };
  };
  const builds = laddering.builds.map((b) => source(b.buildId, b.memory?.batch?.state === 'Running'));
  if (aborted) builds.push(source(buildId, false));
  const sources = new Set(builds.map((b) => b.buildId));
  for (const [b, memory] of Object.entries(memories))
    if (!sources.has(b) && memory.move && roundUnderWay(memory.move))
      builds.push({ buildId: b, source: false, memory: memory.move, ladderBatchRunning: false });
  const settled = currentBuildId !== undefined && !rampingBuildId && !failedBefore.has(currentBuildId);
  const queues = (taskQueues[currentBuildId ?? ''] ?? []).filter((q) => q.type === 'workflow').map((q) => q.name);
  return {
    now,
    temporalName: observation.temporalName,
    ...(currentBuildId ? { currentBuildId } : {}),
    ...(currentBuildId && settled && (ended || aborted) && queues.length > 0
      ? { onto: { buildId: currentBuildId, workflowTaskQueues: queues } }
      : {}),
    builds,
  };
}
