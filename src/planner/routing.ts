// Which routing change, if any, moves new workflows toward the target build. Pure: Temporal's
// routing, the target's state and `now` come in; one decision with its reason goes out.
import { durationSeconds } from '../api/schema.ts';
import type { Rollout } from '../api/temporal-worker-deployment.ts';

import { count } from '../domain/count.ts';
import type { TemporalDeploymentState, TemporalVersion, VersionStatus } from '../domain/snapshot.ts';

export interface RoutingInput {
  now: Date;
  rollout: Rollout;
  target: {
    buildId: string;
    status: VersionStatus;
    /** Every Deployment of the build is available. */
    healthy: boolean;
    /** When Temporal last saw this build current, if ever. */
    lastCurrentAt?: Date;
    /** The gate that stands before the next routing change: passed (or none), still pending, or failed. */
    gate: 'passed' | 'pending' | 'failed';
    /** What a pending gate waits for, in its own words. */
    gateWaiting?: string;
    /** spec.rollout.analysis of the step the target ramps at, or of its AllAtOnce promotion; absent when there is none. */
    analysis?: {
      state: 'passed' | 'pending' | 'failed';
      reason: string;
      onFailure: 'Abort' | 'Pause';
      recheckAt?: Date;
      /** The build current before the target (within the rollback window, and that did not fail), which an AllAtOnce promotion that failed its analysis goes back to. */
      rollBackTo?: { buildId: string; healthy: boolean };
    };
  };
  routing: {
    currentBuildId?: string;
    rampingBuildId?: string;
    rampPercentage?: number;
    /** When Temporal last changed the ramp percentage: the clock of a Progressive pause. */
    rampChangedAt?: Date;
    /** Unversioned workers poll every task queue of the target, so there is traffic to ramp from; undefined while that cannot be told yet. */
    unversionedPollersConfirmed: boolean | undefined;
  };
  /** A target that was current this recently is promoted at once: a rollback. */
  rollbackWindowMs: number;
}

export type RoutingDecision =
  | { action: 'none'; reason: string }
  | { action: 'wait'; reason: string; recheckAt?: Date }
  | { action: 'setCurrent'; buildId: string; reason: string }
  | { action: 'setRamp'; buildId: string; percentage: number; reason: string }
  | { action: 'clearRamp'; reason: string };

export function decideRouting(input: RoutingInput): RoutingDecision {
  const decision = decideUnpaused(input);
  return input.rollout.paused ? held(input, decision) : decision;
}

/**
 * spec.rollout.paused: a change that moves new workflows toward the target waits; one that takes
 * them away from it (an abort, a failed analysis going back, a ramp snapping down) does not.
 */
function held({ target, routing }: RoutingInput, decision: RoutingDecision): RoutingDecision {
  // The target's own ramp: another build's (a stale ramp) says nothing of what the target takes.
  const ramp = routing.rampingBuildId === target.buildId ? (routing.rampPercentage ?? 0) : 0;
  const toward =
    (decision.action === 'setCurrent' && decision.buildId === target.buildId) ||
    (decision.action === 'setRamp' && decision.buildId === target.buildId && decision.percentage > ramp);
  if (!toward) return decision;
  const at =
    routing.rampingBuildId === target.buildId
      ? `its ramp holds at ${routing.rampPercentage ?? 0}%`
      : 'it takes no new workflows yet';
  return {
    action: 'none',
    reason: `the rollout of build ${target.buildId} is paused (spec.rollout.paused): ${at}; resume it to go on (next: ${decision.reason})`,
  };
}

function decideUnpaused(input: RoutingInput): RoutingDecision {
  const { now, rollout, target, routing } = input;
  const build = `build ${target.buildId}`;
  const promoted = rollout.promote === target.buildId;
  if (rollout.strategy === 'Manual' && !promoted)
    return { action: 'none', reason: 'the Manual strategy leaves routing to you' };
  if (rollout.abort === target.buildId && routing.currentBuildId !== target.buildId) {
    const back = routing.currentBuildId ? `build ${routing.currentBuildId}` : 'unversioned workers';
    return routing.rampingBuildId === target.buildId
      ? {
          action: 'clearRamp',
          reason: `the rollout of ${build} is aborted (spec.rollout.abort): its ramp is cleared, new workflows go to ${back} again`,
        }
      : {
          action: 'none',
          reason: `the rollout of ${build} is aborted (spec.rollout.abort): it takes no new workflows until the template names another build`,
        };
  }
  if (target.gate === 'failed' && routing.currentBuildId !== target.buildId) {
    const back = routing.currentBuildId ? `build ${routing.currentBuildId}` : 'unversioned workers';
    return routing.rampingBuildId === target.buildId
      ? {
          action: 'clearRamp',
          reason: `a gate of ${build} failed: aborting its ramp, new workflows go to ${back} again`,
        }
      : {
          action: 'none',
          reason: `a gate of ${build} failed: its rollout stops until that gate changes in the spec or is retried`,
        };
  }
  const analysis = target.analysis;
  if (analysis?.state === 'failed' && routing.currentBuildId === target.buildId && rollout.strategy === 'AllAtOnce')
    return goBack(analysis);
  if (analysis?.state === 'failed' && routing.currentBuildId !== target.buildId) {
    if (routing.rampingBuildId !== target.buildId)
      return {
        action: 'none',
        reason: `${analysis.reason}: its rollout stops; a new template, or spec.rollout.promote naming the build, goes on`,
      };
    return analysis.onFailure === 'Pause'
      ? {
          action: 'none',
          reason: `${analysis.reason}: its ramp holds at ${routing.rampPercentage ?? 0}% (onFailure: Pause) until spec.rollout.promote names the build or the rollout is aborted`,
        }
      : {
          action: 'clearRamp',
          reason: `${analysis.reason}: aborting its ramp, new workflows go to ${routing.currentBuildId ? `build ${routing.currentBuildId}` : 'unversioned workers'} again`,
        };
  }
  if (target.status === 'NotRegistered')
    return { action: 'wait', reason: `waiting for ${build} to register in Temporal: its workers have not polled yet` };
  if (!target.healthy) return { action: 'wait', reason: `waiting for the Deployments of ${build} to become available` };
  if (routing.currentBuildId === target.buildId) {
    return routing.rampingBuildId
      ? {
          action: 'clearRamp',
          reason: `${build} is current: clearing the leftover ramp of build ${routing.rampingBuildId}`,
        }
      : { action: 'none', reason: `${build} is current` };
  }
  const lastCurrentAt = target.lastCurrentAt;
  if (lastCurrentAt && isRollback(now, lastCurrentAt, input.rollbackWindowMs))
    return {
      action: 'setCurrent',
      buildId: target.buildId,
      reason: `rolling back to ${build}, current ${minutesAgo(now, lastCurrentAt)}: promoting it at once, without steps or gates`,
    };
  // While the target ramps, a step's pause runs beside the gate of the next step (see progressive).
  const ramps = rollout.strategy === 'Progressive' && routing.rampingBuildId === target.buildId;
  if (target.gate === 'pending' && !ramps)
    return {
      action: 'wait',
      reason: target.gateWaiting
        ? `waiting for the gate of ${build}: ${target.gateWaiting}`
        : `waiting for the gate workflows of ${build} to complete`,
    };
  if (!routing.currentBuildId && routing.unversionedPollersConfirmed === undefined) {
    return {
      action: 'wait',
      reason: `waiting for ${build} to register its task queues, to tell whether unversioned workers poll them`,
    };
  }
  if (!routing.currentBuildId && !routing.unversionedPollersConfirmed) {
    return {
      action: 'setCurrent',
      buildId: target.buildId,
      reason: `no build is current and no unversioned workers poll: promoting ${build} directly`,
    };
  }
  if (rollout.strategy === 'AllAtOnce')
    return {
      action: 'setCurrent',
      buildId: target.buildId,
      reason: `${build} is registered and available: promoting it (AllAtOnce)`,
    };
  if (rollout.strategy === 'Manual')
    return {
      action: 'setCurrent',
      buildId: target.buildId,
      reason: `${build} is registered and available: promoting it, as spec.rollout.promote asks`,
    };
  return progressive(input);
}

/** An AllAtOnce promotion that failed its analysis: the build current before it takes new workflows again, once it can. */
function goBack(analysis: NonNullable<RoutingInput['target']['analysis']>): RoutingDecision {
  const back = analysis.rollBackTo;
  if (analysis.onFailure === 'Pause')
    return {
      action: 'none',
      reason: `${analysis.reason}: the build stays current (onFailure: Pause) until the template changes`,
    };
  if (!back)
    return {
      action: 'none',
      reason: `${analysis.reason}: no build was current before it within the rollback window without failing itself, so it stays current`,
    };
  if (!back.healthy)
    return {
      action: 'none',
      reason: `${analysis.reason}: build ${back.buildId}, current before it, has no available Deployment to go back to, so it stays current`,
    };
  return {
    action: 'setCurrent',
    buildId: back.buildId,
    reason: `${analysis.reason}: going back to build ${back.buildId}, current before it`,
  };
}

function progressive({ now, rollout, target, routing }: RoutingInput): RoutingDecision {
  const steps = rollout.steps ?? [];
  const build = `build ${target.buildId}`;
  const promoted = rollout.promote === target.buildId;
  const first = steps[0];
  if (!first) return { action: 'none', reason: 'a Progressive rollout without steps changes nothing' };
  const ramp = routing.rampingBuildId === target.buildId ? routing.rampPercentage : undefined;
  // Promoted: pauses and analysis no longer hold it, gates still do; with none to come it is current at once.
  if (promoted) {
    const from = ramp === undefined ? 0 : stepAtOrBelow(steps, ramp) + 1;
    if (target.gate !== 'pending' && !steps.slice(from).some((s) => s.gate !== undefined))
      return {
        action: 'setCurrent',
        buildId: target.buildId,
        reason: `promoting ${build} at once, as spec.rollout.promote asks: no gate is left to pass`,
      };
  }
  if (ramp === undefined)
    return {
      action: 'setRamp',
      buildId: target.buildId,
      percentage: first.rampPercentage,
      reason: `starting the ramp of ${build} at step 1: ${first.rampPercentage}%`,
    };
  // A ramp changed by hand snaps back to a step; up to it only once the step's gate passed.
  const index = stepAtOrBelow(steps, ramp);
  const step = steps[index] ?? first;
  if (ramp < step.rampPercentage && target.gate === 'pending')
    return { action: 'wait', reason: `waiting for the gate of step ${index + 1} of ${build} before its ramp` };
  if (step.rampPercentage !== ramp) {
    return {
      action: 'setRamp',
      buildId: target.buildId,
      percentage: step.rampPercentage,
      reason: `the ramp of ${build} is ${ramp}%, not a step: back to step ${index + 1} (${step.rampPercentage}%)`,
    };
  }
  if (!promoted && !routing.rampChangedAt)
    return { action: 'wait', reason: `waiting for Temporal to report when the ramp of ${build} changed` };
  const endsAt = new Date((routing.rampChangedAt?.getTime() ?? 0) + durationSeconds(step.pauseDuration) * 1000);
  if (!promoted && now < endsAt)
    return {
      action: 'wait',
      reason: `${build} at step ${index + 1} (${step.rampPercentage}%) until ${endsAt.toISOString()}`,
      recheckAt: endsAt,
    };
  if (!promoted && target.analysis?.state === 'pending')
    return {
      action: 'wait',
      reason: `step ${index + 1} of ${build} is over, waiting for the ${target.analysis.reason}`,
      ...(target.analysis.recheckAt ? { recheckAt: target.analysis.recheckAt } : {}),
    };
  const next = steps[index + 1];
  // With no step ahead, a gate still pending stands behind the ramp (one whose spec changed mid-rollout).
  if (!next && target.gate === 'pending')
    return {
      action: 'wait',
      reason: `the last step of ${build} is over: ${
        target.gateWaiting
          ? `waiting for the gate of ${build} before promoting it: ${target.gateWaiting}`
          : `waiting for the gate workflows of ${build} to complete before promoting it`
      }`,
    };
  if (!next)
    return { action: 'setCurrent', buildId: target.buildId, reason: `the last step of ${build} is over: promoting it` };
  if (target.gate === 'pending') {
    const reason = `step ${index + 1} of ${build} is over: waiting for the gate of step ${index + 2} before its ramp of ${next.rampPercentage}%`;
    return { action: 'wait', reason };
  }
  return {
    action: 'setRamp',
    buildId: target.buildId,
    percentage: next.rampPercentage,
    reason: promoted
      ? `promoting ${build}, as spec.rollout.promote asks: step ${index + 2} at ${next.rampPercentage}% without the pause of step ${index + 1}, its gate passed`
      : `step ${index + 1} of ${build} is over: step ${index + 2} at ${next.rampPercentage}%`,
  };
}

/** A target that was current this recently is promoted at once, without steps or gates. */
export function isRollback(now: Date, lastCurrentAt: Date | undefined, rollbackWindowMs: number): boolean {
  return lastCurrentAt !== undefined && now.getTime() - lastCurrentAt.getTime() <= rollbackWindowMs;
}

/** The greatest step at or below a ramp percentage; the first step below them all. */
export function stepAtOrBelow(steps: NonNullable<Rollout['steps']>, ramp: number): number {
  return Math.max(
    0,
    steps.findLastIndex((s) => s.rampPercentage <= ramp),
  );
}

function minutesAgo(now: Date, then: Date): string {
  return `${count(Math.round((now.getTime() - then.getTime()) / 60_000), 'minute')} ago`;
}

export function managedElsewhere(temporalName: string, holder: string): string {
  return (
    `Worker Deployment ${temporalName} is managed by "${holder}", so the controller does not change its routing; ` +
    `release it with \`temporal worker deployment manager-identity unset --deployment-name ${temporalName}\``
  );
}

export interface PollersMatterInput {
  strategy: Rollout['strategy'];
  currentBuildId?: string | undefined;
  target?: { status: VersionStatus; healthy: boolean } | undefined;
}

/**
 * Whether Temporal must be asked if unversioned workers poll the target's task queues (one read
 * per queue). Only a Progressive rollout with no current build and a registered, available target
 * decides differently with them: Manual never routes, AllAtOnce promotes either way, with a
 * current build the question does not arise, and an unready target waits either way.
 */
export function unversionedPollersMatter({ strategy, currentBuildId, target }: PollersMatterInput): boolean {
  return (
    strategy === 'Progressive' &&
    !currentBuildId &&
    target !== undefined &&
    target.status !== 'NotRegistered' &&
    target.healthy
  );
}

/**
 * Temporal's state once a routing change succeeded, without reading it again: a change made with
 * the conflict token of `state` leaves exactly this routing (a promotion clears any ramp, see
 * RoutingChange). A build that stops being current or ramping starts draining.
 */
export function routedState(
  state: TemporalDeploymentState,
  decision: RoutingDecision,
  managerIdentity: string,
): TemporalDeploymentState {
  if (decision.action === 'none' || decision.action === 'wait') return state;
  const current = decision.action === 'setCurrent' ? decision.buildId : state.currentBuildId;
  const ramping =
    decision.action === 'setRamp'
      ? { buildId: decision.buildId, percentage: decision.percentage }
      : decision.action === 'clearRamp' || decision.action === 'setCurrent'
        ? undefined
        : state.rampingBuildId
          ? { buildId: state.rampingBuildId, percentage: state.rampPercentage ?? 0 }
          : undefined;
  const statusOf = (v: TemporalVersion): TemporalVersion['status'] => {
    if (v.buildId === current) return 'Current';
    if (v.buildId === ramping?.buildId) return 'Ramping';
    return v.status === 'Current' || v.status === 'Ramping' ? 'Draining' : v.status;
  };
  const next: TemporalDeploymentState = {
    exists: state.exists,
    versions: state.versions.map((v) => ({
      ...v,
      status: statusOf(v),
      everActive: v.everActive || statusOf(v) !== v.status,
    })),
    managerIdentity: state.managerIdentity ?? managerIdentity,
    lastModifierIdentity: managerIdentity,
  };
  if (current) next.currentBuildId = current;
  // Temporal's own time of a new current build is known at the next read, as a new ramp's is.
  if (current && current === state.currentBuildId && state.currentChangedAt)
    next.currentChangedAt = state.currentChangedAt;
  if (ramping) {
    next.rampingBuildId = ramping.buildId;
    next.rampPercentage = ramping.percentage;
    // Temporal's own time of a new ramp is known at the next read (see reportOutcome).
    if (decision.action !== 'setRamp' && state.rampChangedAt) next.rampChangedAt = state.rampChangedAt;
  }
  return next;
}
