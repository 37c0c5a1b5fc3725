// What the reads and the plan of one reconcile are both decided on: the builds joined from
// Kubernetes and Temporal, the target among them, the rollout, and what its gates and analysis
// judge. Pure.
import { DEFAULT_STRATEGY } from '../api/defaults.ts';
import { durationSeconds } from '../api/schema.ts';
import { TASK_QUEUE_ENV } from '../api/reserved-env.ts';
import { RETRY_GATE_ANNOTATION } from '../domain/annotations.ts';
import type { Observation } from '../domain/observation.ts';
import type { TemporalDeploymentState } from '../domain/snapshot.ts';
import { type JoinedVersion, joinVersions, rememberedCurrentTimes, withSupersededTimes } from '../status/versions.ts';
import type { AnalysisContext } from './analysis.ts';
import { type GateContext, gateStages } from './gates.ts';
import { isRollback, stepAtOrBelow } from './routing.ts';

/** Temporal stamps a first promotion's activation and routing change alike; an activation earlier than this was another change. */
const SAME_ROUTING_CHANGE_MS = 1000;

/** The task queues the spec's pools name (none without pools: the workers say which they poll). */
export function poolQueues(observation: Pick<Observation, 'wanted'>): string[] {
  return observation.wanted.flatMap(({ deployment }) => {
    const env = deployment.spec?.template.spec?.containers[0]?.env ?? [];
    const queue = env.find((e) => e.name === TASK_QUEUE_ENV)?.value;
    return queue ? [queue] : [];
  });
}

export interface Situation {
  versions: JoinedVersion[];
  target: JoinedVersion | undefined;
  rollout: NonNullable<Observation['workerDeployment']['spec']['rollout']>;
  gate: GateContext;
  analysis: AnalysisContext;
  previousTarget: NonNullable<NonNullable<Observation['workerDeployment']['status']>['targetVersion']> | undefined;
  /** Builds that failed a gate or an analysis before this reconcile. */
  failedBefore: Set<string>;
}

/** What both the reads and the plan are decided on. */
export function situation(observation: Omit<Observation, 'target'>, config: { rollbackWindowMs: number }): Situation {
  const { now, buildId, temporal, workerDeployment, deployments, wanted } = observation;
  const stored = workerDeployment.status;
  const versions = withSupersededTimes(
    joinVersions(
      deployments,
      temporal,
      buildId,
      wanted.map((w) => w.pool),
      rememberedCurrentTimes(stored, temporal.currentBuildId, now),
    ),
    stored,
    buildId,
    now,
  );
  const target = versions.find((v) => v.buildId === buildId);
  const spec = workerDeployment.spec;
  const rollout = spec.rollout ?? spec.cutover ?? { strategy: DEFAULT_STRATEGY };
  const previousTarget = stored?.targetVersion?.buildID === buildId ? stored.targetVersion : undefined;
  const failedBefore = new Set((stored?.failedBuilds ?? []).map((f) => f.buildID));
  const promoted = rollout.promote === buildId;
  const stages =
    isRollback(now, target?.lastCurrentAt, config.rollbackWindowMs) && !failedBefore.has(buildId)
      ? []
      : gateStages({
          rollout,
          targetBuildId: buildId,
          currentBuildId: temporal.currentBuildId,
          rampingBuildId: temporal.rampingBuildId,
          rampPercentage: temporal.rampPercentage,
        });
  return {
    versions,
    target,
    rollout,
    previousTarget,
    failedBefore,
    analysis: {
      now,
      analysis: rollout.analysis,
      namespace: workerDeployment.metadata.namespace ?? '',
      temporalName: observation.temporalName,
      generation: workerDeployment.metadata.generation ?? 0,
      targetBuildId: buildId,
      currentBuildId: temporal.currentBuildId,
      step: analysedStep(now, rollout, temporal, buildId),
      previous: previousTarget?.analysis,
      promoted,
    },
    gate: {
      now,
      stages,
      rollout,
      expectedQueues: poolQueues(observation).sort(),
      buildId,
      temporalName: observation.temporalName,
      generation: workerDeployment.metadata.generation ?? 0,
      previous: previousTarget,
      retry: retryAsked(workerDeployment, previousTarget),
    },
  };
}

/** The retry annotation's value when the status does not say it was acted on. */
function retryAsked(
  workerDeployment: Observation['workerDeployment'],
  previousTarget: Situation['previousTarget'],
): string | undefined {
  const value = workerDeployment.metadata.annotations?.[RETRY_GATE_ANNOTATION];
  return value !== undefined && value !== previousTarget?.gateRetry ? value : undefined;
}

/**
 * What the analysis judges: the step the target ramps at (none unless Temporal ramps it at exactly
 * a step), or the time since an AllAtOnce promotion, while its window and wait last: a build
 * promoted long before this controller saw it (its status lost) is not judged after the fact. Nor
 * is a build that was active before this promotion (a rollback to it): a failure would send new
 * workflows back to the build the spec just left.
 */
function analysedStep(
  now: Date,
  rollout: Situation['rollout'],
  temporal: TemporalDeploymentState,
  buildId: string,
): AnalysisContext['step'] {
  const analysis = rollout.analysis;
  if (rollout.strategy === 'AllAtOnce') {
    const promotedAt = temporal.currentChangedAt;
    if (!analysis?.window || temporal.currentBuildId !== buildId || !promotedAt) return undefined;
    const seconds = durationSeconds(analysis.window);
    const lasts = (seconds + durationSeconds(analysis.maxWait ?? '10m')) * 1000;
    if (now.getTime() - promotedAt.getTime() > lasts) return undefined;
    const firstActiveAt = temporal.versions.find((v) => v.buildId === buildId)?.firstActiveAt;
    if (firstActiveAt && promotedAt.getTime() - firstActiveAt.getTime() > SAME_ROUTING_CHANGE_MS) return undefined;
    return { index: 0, windowStart: promotedAt, pauseSeconds: seconds, bake: true };
  }
  const steps = rollout.steps ?? [];
  const ramp = temporal.rampPercentage;
  if (rollout.strategy !== 'Progressive' || temporal.rampingBuildId !== buildId || ramp === undefined) return undefined;
  const index = stepAtOrBelow(steps, ramp);
  const step = steps[index];
  if (!step || step.rampPercentage !== ramp || !temporal.rampChangedAt) return undefined;
  return { index, windowStart: temporal.rampChangedAt, pauseSeconds: durationSeconds(step.pauseDuration) };
}
