// spec.rollout.analysis: whether the ramping build is fit to go on, by the failure rate of the
// workflows it closed in a step's window (against an absolute limit and/or the current build's rate
// over the same window) and by the answers of Prometheus queries (each against its range). Pure: the
// counts, the answers and `now` come in; the reads to make, then a verdict with its reason and what
// the status remembers, go out.
//
// A failure is final as soon as the counts or an answer show it (enough samples and over a limit,
// an answer out of range), even before the window ends: a build failing 30 % of its workflows is
// not left to fail more of them. A pass waits for the window's end, every part judged. A failure
// holds the rollout of its build whatever else of the spec changes (a pause, a replica count):
// only a change of the analysis itself (judged again), a new template or spec.rollout.promote
// naming the build lifts it (see status failedBuilds for the rollback shortcut).
import { ANALYSIS_DEFAULTS } from '../api/defaults.ts';
import { promDuration, renderQuery } from '../api/metric-query.ts';
import { durationSeconds } from '../api/schema.ts';
import type { Rollout, TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { specHash } from '../api/spec-hash.ts';
import type { AnalysisObservation, MetricAnswer, OutcomeCounts } from '../domain/observation.ts';

/** What the spec asks of an analysis (spec.rollout.analysis, durations already in seconds). */
export interface AnalysisPolicy {
  /** The window's length; default: the step's pause. */
  windowSeconds?: number;
  /** Closed workflows on the ramping build before any verdict. */
  minSamples: number;
  /** The highest share of closed workflows that may have failed, 0 to 1. */
  maxFailureRate?: number;
  /** The most the ramping build's failure rate may exceed the current build's, 0 to 1. */
  maxFailureRateIncrease?: number;
  /** Too few samples at the window's end: wait (up to `maxWaitSeconds` more, then fail), pass or fail. */
  tooFewSamples: 'Wait' | 'Pass' | 'Fail';
  maxWaitSeconds?: number;
}

export interface AnalysisInput {
  now: Date;
  policy: AnalysisPolicy;
  /** When the window began: Temporal's time of the step's ramp. */
  windowStart: Date;
  /** The step's pause, the window's length unless the policy sets one. */
  pauseSeconds: number;
  ramping: OutcomeCounts;
  /** The current build's counts over the same window; needed only for maxFailureRateIncrease. */
  current?: OutcomeCounts;
  /** The build judged, in words: the ramping build, unless said otherwise. */
  subject?: string;
  /** spec.rollout.analysis.metrics with their answers (none without). */
  metrics?: MetricReading[];
}

export interface MetricReading {
  name: string;
  min?: number | undefined;
  max?: number | undefined;
  answer: MetricAnswer;
}

export type AnalysisVerdict =
  | { state: 'pending'; reason: string; recheckAt: Date }
  | { state: 'passed'; reason: string }
  | { state: 'failed'; reason: string };

/** The window of a step: from its ramp, for the policy's window or else the step's pause. */
export function analysisWindowEnd(policy: AnalysisPolicy, windowStart: Date, pauseSeconds: number): Date {
  return new Date(windowStart.getTime() + (policy.windowSeconds ?? pauseSeconds) * 1000);
}

export function judgeAnalysis({
  subject = 'the ramping build',
  now,
  policy,
  windowStart,
  pauseSeconds,
  ramping,
  current,
  metrics = [],
}: AnalysisInput): AnalysisVerdict {
  const windowEnd = analysisWindowEnd(policy, windowStart, pauseSeconds);
  const judged: string[] = [];
  const lacking: string[] = [];
  if (policy.maxFailureRate !== undefined || policy.maxFailureRateIncrease !== undefined) {
    const rate = failureRate(ramping);
    const counted = `${ramping.failed} of ${ramping.closed} workflows closed on ${subject} failed (${percent(rate)})`;
    if (ramping.closed >= policy.minSamples) {
      if (policy.maxFailureRate !== undefined && rate > policy.maxFailureRate)
        return { state: 'failed', reason: `${counted}, above maxFailureRate ${percent(policy.maxFailureRate)}` };
      if (policy.maxFailureRateIncrease !== undefined) {
        const baseline = failureRate(current ?? { closed: 0, failed: 0 });
        if (rate - baseline > policy.maxFailureRateIncrease)
          return {
            state: 'failed',
            reason: `${counted}, against ${percent(baseline)} on the current build (${current?.failed ?? 0} of ${current?.closed ?? 0}): more than maxFailureRateIncrease ${percent(policy.maxFailureRateIncrease)} worse`,
          };
      }
      judged.push(counted);
    } else lacking.push(`${counted}: fewer than minSamples (${policy.minSamples})`);
  }
  for (const metric of metrics) {
    if ('noSample' in metric.answer) {
      lacking.push(`metric ${metric.name} has no sample (${metric.answer.noSample})`);
      continue;
    }
    const said = `metric ${metric.name} is ${numberText(metric.answer.value)}`;
    const outside = outOfRange(metric.answer.value, metric);
    if (outside) return { state: 'failed', reason: `${said}, ${outside}` };
    judged.push(said);
  }
  if (lacking.length === 0) {
    const all = judged.join('; ');
    if (now < windowEnd)
      return {
        state: 'pending',
        reason: `${all}; the window ends at ${windowEnd.toISOString()}`,
        recheckAt: windowEnd,
      };
    return { state: 'passed', reason: `${all}, within the limits` };
  }
  const few = [...judged, ...lacking].join('; ');
  if (now < windowEnd)
    return {
      state: 'pending',
      reason: `${few} so far; the window ends at ${windowEnd.toISOString()}`,
      recheckAt: windowEnd,
    };
  switch (policy.tooFewSamples) {
    case 'Pass':
      return { state: 'passed', reason: `${few} by the window's end, which passes (tooFewSamples: Pass)` };
    case 'Fail':
      return { state: 'failed', reason: `${few} by the window's end, which fails (tooFewSamples: Fail)` };
    case 'Wait': {
      const giveUpAt = new Date(windowEnd.getTime() + (policy.maxWaitSeconds ?? 0) * 1000);
      if (now < giveUpAt)
        return {
          state: 'pending',
          reason: `${few} by the window's end: waiting for more until ${giveUpAt.toISOString()} (tooFewSamples: Wait)`,
          recheckAt: giveUpAt,
        };
      return {
        state: 'failed',
        reason: `${few} by ${giveUpAt.toISOString()}, the end of the wait (tooFewSamples: Wait)`,
      };
    }
  }
}

/** Why a metric's answer fails its range; undefined when it passes. */
function outOfRange(value: number, { min, max }: { min?: number | undefined; max?: number | undefined }) {
  if (max !== undefined && value > max) return `above max ${numberText(max)}`;
  if (min !== undefined && value < min) return `below min ${numberText(min)}`;
  return undefined;
}

/** A number as people read it: four significant digits, infinities as PromQL writes them. */
function numberText(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(Number(value.toPrecision(4)));
}

function failureRate({ closed, failed }: OutcomeCounts): number {
  return closed === 0 ? 0 : failed / closed;
}

function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

type TargetStatus = NonNullable<NonNullable<TemporalWorkerDeployment['status']>['targetVersion']>;
/** What the status remembers of the analysis of the target's step. */
export type AnalysisMemory = NonNullable<TargetStatus['analysis']>;
type RolloutAnalysis = NonNullable<Rollout['analysis']>;

/** The spec's analysis as the verdict takes it. */
export function analysisPolicy(analysis: RolloutAnalysis): AnalysisPolicy {
  return {
    minSamples: analysis.minSamples ?? ANALYSIS_DEFAULTS.minSamples,
    tooFewSamples: analysis.tooFewSamples ?? ANALYSIS_DEFAULTS.tooFewSamples,
    maxWaitSeconds: durationSeconds(analysis.maxWait ?? ANALYSIS_DEFAULTS.maxWait),
    ...(analysis.window ? { windowSeconds: durationSeconds(analysis.window) } : {}),
    ...(analysis.maxFailureRate === undefined ? {} : { maxFailureRate: analysis.maxFailureRate }),
    ...(analysis.maxFailureRateIncrease === undefined
      ? {}
      : { maxFailureRateIncrease: analysis.maxFailureRateIncrease }),
  };
}

export interface AnalysisContext {
  now: Date;
  analysis: RolloutAnalysis | undefined;
  /** The worker deployment's Kubernetes namespace and its Worker Deployment's name in Temporal, for the queries. */
  namespace: string;
  temporalName: string;
  generation: number;
  targetBuildId: string;
  currentBuildId?: string | undefined;
  /**
   * What is judged: the step the target ramps at (from Temporal's ramp), or with `bake` the time
   * since an AllAtOnce promotion (from Temporal's); absent when neither.
   */
  step?: { index: number; windowStart: Date; pauseSeconds: number; bake?: boolean } | undefined;
  /** What the status said of the target's analysis, if anything. */
  previous: AnalysisMemory | undefined;
  /**
   * spec.rollout.promote names the target: the user's word, which no analysis holds back. A
   * failure is kept until the promotion is carried out (a promote taken back before leaves it
   * failed), then forgotten.
   */
  promoted?: boolean;
}

/**
 * What the verdict needs: the counts of the target (and of the current build for a relative limit),
 * none without a failure-rate limit; and the metrics' queries, made for this build and this look.
 */
export interface AnalysisReads {
  buildIds: string[];
  since: Date;
  workflowTypes?: string[];
  metrics?: MetricReads;
}

export interface MetricReads {
  prometheus: NonNullable<RolloutAnalysis['prometheus']>;
  /** Each metric's query with its variables filled in. */
  queries: { name: string; query: string }[];
  /** The instant the queries are evaluated at: this reconcile's `now`. */
  at: Date;
}

export interface AnalysisPlan {
  /** For routing: whether the analysis lets the step end (passed, also when there is none). */
  state: 'passed' | 'pending' | 'failed';
  reason: string;
  recheckAt?: Date;
  /** On failure: Pause holds the ramp, Abort removes it. */
  onFailure: 'Abort' | 'Pause';
  memory?: AnalysisMemory;
  /** A verdict the status did not hold yet, for the metric. */
  reached?: 'Passed' | 'Failed';
  /** A pass not said before, for an event. */
  note?: { reason: 'AnalysisPassed'; message: string };
}

/**
 * A verdict the status holds for good, for this same target build and this same analysis: a
 * failure, or a bake that passed. One remembered without a hash (by a controller before them) is
 * taken as of this analysis: a failure then holds until a promote or a new template, never lifted
 * by a guess.
 */
function settled({ previous, step, analysis }: AnalysisContext): AnalysisMemory | undefined {
  if (!previous || !analysis) return undefined;
  if (previous.specHash !== undefined && previous.specHash !== specHash(analysis)) return undefined;
  return previous.verdict === 'Failed' || (previous.verdict === 'Passed' && step?.bake) ? previous : undefined;
}

export function analysisReads(context: AnalysisContext): AnalysisReads | undefined {
  const { analysis, step, targetBuildId, currentBuildId } = context;
  if (!analysis || !step || context.promoted || settled(context)) return undefined;
  const rates = analysis.maxFailureRate !== undefined || analysis.maxFailureRateIncrease !== undefined;
  const relative = analysis.maxFailureRateIncrease !== undefined && currentBuildId !== undefined;
  const metrics = analysis.metrics && analysis.prometheus ? metricReads(context, analysis.prometheus) : undefined;
  return {
    buildIds: !rates ? [] : relative ? [targetBuildId, currentBuildId] : [targetBuildId],
    since: step.windowStart,
    ...(analysis.workflowTypes?.length ? { workflowTypes: analysis.workflowTypes } : {}),
    ...(metrics ? { metrics } : {}),
  };
}

function metricReads(context: AnalysisContext, prometheus: MetricReads['prometheus']): MetricReads {
  const { now, step, targetBuildId, namespace, temporalName } = context;
  const variables = {
    BuildID: targetBuildId,
    DeploymentName: temporalName,
    Namespace: namespace,
    Window: promDuration((now.getTime() - (step?.windowStart ?? now).getTime()) / 1000),
  };
  return {
    prometheus,
    queries: (context.analysis?.metrics ?? []).map((m) => ({ name: m.name, query: renderQuery(m.query, variables) })),
    at: now,
  };
}

export function planAnalysis(context: AnalysisContext, observed: AnalysisObservation | undefined): AnalysisPlan {
  const { now, analysis, step, generation, targetBuildId, currentBuildId, previous } = context;
  const onFailure = analysis?.onFailure ?? ANALYSIS_DEFAULTS.onFailure;
  if (context.promoted) {
    const kept = currentBuildId === targetBuildId || !previous ? {} : { memory: previous };
    return {
      state: 'passed',
      reason: `spec.rollout.promote names build ${targetBuildId}: no analysis holds it`,
      onFailure,
      ...kept,
    };
  }
  const held = settled(context);
  if (held)
    return { state: held.verdict === 'Failed' ? 'failed' : 'passed', reason: held.message, onFailure, memory: held };
  if (!analysis || !step) return { state: 'passed', reason: 'no analysis stands before the next step', onFailure };
  const stepName = step.bake
    ? `build ${targetBuildId} since its promotion`
    : `step ${step.index + 1} of build ${targetBuildId}`;
  if (!observed) return { state: 'pending', reason: `the analysis of ${stepName} has not been read`, onFailure };
  if ('failure' in observed)
    return { state: 'pending', reason: `the analysis of ${stepName} waits: ${observed.failure}`, onFailure };
  const ramping = observed.counts[targetBuildId] ?? { closed: 0, failed: 0 };
  const current = currentBuildId === undefined ? undefined : observed.counts[currentBuildId];
  const counted = analysis.maxFailureRate !== undefined || analysis.maxFailureRateIncrease !== undefined;
  const metrics = (analysis.metrics ?? []).map(({ name, min, max }) => ({
    name,
    min,
    max,
    answer: observed.metrics?.[name] ?? { noSample: 'not read' },
  }));
  const verdict = judgeAnalysis({
    now,
    policy: analysisPolicy(analysis),
    windowStart: step.windowStart,
    pauseSeconds: step.pauseSeconds,
    ramping,
    ...(current ? { current } : {}),
    ...(step.bake ? { subject: 'the promoted build' } : {}),
    metrics,
  });
  const state = verdict.state === 'passed' ? 'Passed' : verdict.state === 'failed' ? 'Failed' : 'Pending';
  const message = `analysis of ${stepName}: ${verdict.reason}`;
  const memory: AnalysisMemory = {
    generation,
    step: step.index + 1,
    verdict: state,
    windowStart: step.windowStart.toISOString(),
    ...(counted ? { closed: ramping.closed, failed: ramping.failed } : {}),
    ...(current ? { currentClosed: current.closed, currentFailed: current.failed } : {}),
    ...(metrics.length > 0
      ? {
          metrics: metrics.map(({ name, answer }) =>
            'value' in answer && Number.isFinite(answer.value) ? { name, value: answer.value } : { name },
          ),
        }
      : {}),
    message,
    checkedAt: now.toISOString(),
    specHash: specHash(analysis),
  };
  const said =
    previous?.step === memory.step &&
    previous.verdict === memory.verdict &&
    previous.windowStart === memory.windowStart;
  const reached = state !== 'Pending' && !said ? state : undefined;
  // A failure is said by its Stalled condition, whose change is a Warning event of its own.
  const note = reached === 'Passed' ? { reason: 'AnalysisPassed' as const, message } : undefined;
  return {
    state: verdict.state,
    reason: message,
    onFailure,
    memory,
    ...(verdict.state === 'pending' ? { recheckAt: verdict.recheckAt } : {}),
    ...(reached ? { reached } : {}),
    ...(note ? { note } : {}),
  };
}
