import assert from 'node:assert/strict';
import { test } from 'node:test';
import { specHash } from '../../src/api/spec-hash.ts';
import {
  type AnalysisContext,
  type AnalysisInput,
  type AnalysisPolicy,
  analysisPolicy,
  analysisReads,
  judgeAnalysis,
  planAnalysis,
} from '../../src/planner/analysis.ts';

const windowStart = new Date('2026-11-25T10:00:00Z');
const at = (seconds: number) => new Date(windowStart.getTime() + seconds * 1000);
const policy: AnalysisPolicy = { minSamples: 10, maxFailureRate: 0.05, tooFewSamples: 'Wait', maxWaitSeconds: 60 };

function judge(seconds: number, ramping: AnalysisInput['ramping'], changes: Partial<AnalysisInput> = {}) {
  return judgeAnalysis({ now: at(seconds), policy, windowStart, pauseSeconds: 120, ramping, ...changes });
}

test('over the absolute limit with enough samples fails at once, inside the window; under it passes only at the window end', () => {
  assert.deepEqual(judge(30, { closed: 20, failed: 6 }), {
    state: 'failed',
    reason: '6 of 20 workflows closed on the ramping build failed (30%), above maxFailureRate 5%',
  });
  assert.deepEqual(judge(30, { closed: 20, failed: 1 }), {
    state: 'pending',
    reason: '1 of 20 workflows closed on the ramping build failed (5%); the window ends at 2026-11-25T10:02:00.000Z',
    recheckAt: at(120),
  });
  assert.equal(judge(120, { closed: 20, failed: 1 }).state, 'passed', 'at the limit is within it');
  assert.equal(judge(30, { closed: 9, failed: 9 }).state, 'pending', 'no verdict below minSamples, however bad');
});

test("the window is the policy's when set, else the step's pause", () => {
  const short = { ...policy, windowSeconds: 60 };
  assert.equal(judge(60, { closed: 10, failed: 0 }, { policy: short }).state, 'passed');
  assert.equal(judge(60, { closed: 10, failed: 0 }).state, 'pending');
});

test('relative: worse than the current build by more than maxFailureRateIncrease fails, though under any absolute limit', () => {
  const relative: AnalysisPolicy = { minSamples: 10, maxFailureRateIncrease: 0.1, tooFewSamples: 'Wait' };
  const verdict = judge(120, { closed: 20, failed: 4 }, { policy: relative, current: { closed: 40, failed: 2 } });
  assert.deepEqual(verdict, {
    state: 'failed',
    reason:
      '4 of 20 workflows closed on the ramping build failed (20%), against 5% on the current build (2 of 40): more than maxFailureRateIncrease 10% worse',
  });
  assert.equal(
    judge(120, { closed: 20, failed: 3 }, { policy: relative, current: { closed: 40, failed: 2 } }).state,
    'passed',
    '15% against 5% is 10 points worse: within',
  );
  assert.equal(
    judge(120, { closed: 20, failed: 3 }, { policy: relative }).state,
    'failed',
    'a current build with nothing closed counts as 0%',
  );
});

test('too few samples by the window end: Pass passes, Fail fails, Wait waits up to maxWait and then fails; the reason says which', () => {
  const few = { closed: 3, failed: 0 };
  assert.match(
    String(judge(120, few, { policy: { ...policy, tooFewSamples: 'Pass' } }).reason),
    /fewer than minSamples \(10\) by the window's end, which passes \(tooFewSamples: Pass\)$/,
  );
  assert.equal(judge(120, few, { policy: { ...policy, tooFewSamples: 'Pass' } }).state, 'passed');
  assert.equal(judge(120, few, { policy: { ...policy, tooFewSamples: 'Fail' } }).state, 'failed');
  assert.deepEqual(judge(150, few), {
    state: 'pending',
    reason:
      "0 of 3 workflows closed on the ramping build failed (0%): fewer than minSamples (10) by the window's end: waiting for more until 2026-11-25T10:03:00.000Z (tooFewSamples: Wait)",
    recheckAt: at(180),
  });
  assert.equal(judge(180, few).state, 'failed');
  assert.equal(judge(170, { closed: 10, failed: 0 }).state, 'passed', 'enough samples during the wait pass');
});

test('minSamples 0 with nothing closed passes at the window end', () => {
  assert.equal(judge(120, { closed: 0, failed: 0 }, { policy: { ...policy, minSamples: 0 } }).state, 'passed');
});

const context = (changes: Partial<AnalysisContext> = {}): AnalysisContext => ({
  now: at(120),
  analysis: { maxFailureRate: 0.05, minSamples: 10, maxFailureRateIncrease: 0.1 },
  namespace: 'shop',
  temporalName: 'shop/orders',
  generation: 3,
  targetBuildId: 'v2',
  currentBuildId: 'v1',
  step: { index: 0, windowStart, pauseSeconds: 120 },
  previous: undefined,
  ...changes,
});

test("reads: the target's counts, and the current build's for a relative limit, since the step's ramp", () => {
  assert.deepEqual(analysisReads(context()), { buildIds: ['v2', 'v1'], since: windowStart });
  assert.deepEqual(analysisReads(context({ analysis: { maxFailureRate: 0.05, workflowTypes: ['order'] } })), {
    buildIds: ['v2'],
    since: windowStart,
    workflowTypes: ['order'],
  });
  assert.equal(analysisReads(context({ step: undefined })), undefined, 'nothing to judge while not at a step');
  assert.equal(analysisReads(context({ analysis: undefined })), undefined);
});

test('a verdict is remembered with its counts and said once; a failure holds for the build, whatever the generation, without reading again', () => {
  const counts = { counts: { v2: { closed: 20, failed: 6 }, v1: { closed: 40, failed: 2 } } };
  const failed = planAnalysis(context({ now: at(30) }), counts);
  assert.equal(failed.state, 'failed');
  assert.deepEqual(failed.memory, {
    generation: 3,
    step: 1,
    verdict: 'Failed',
    windowStart: windowStart.toISOString(),
    closed: 20,
    failed: 6,
    currentClosed: 40,
    currentFailed: 2,
    message:
      'analysis of step 1 of build v2: 6 of 20 workflows closed on the ramping build failed (30%), above maxFailureRate 5%',
    checkedAt: at(30).toISOString(),
    specHash: specHash(context().analysis),
  });
  assert.equal(failed.note, undefined, 'a failure is said by its Stalled condition');

  const held = context({ now: at(600), step: undefined, previous: failed.memory });
  assert.equal(analysisReads(held), undefined, 'no read once failed');
  assert.deepEqual(planAnalysis(held, undefined), {
    state: 'failed',
    reason: failed.memory?.message,
    onFailure: 'Abort',
    memory: failed.memory,
  });
  const newGeneration = context({ generation: 4, previous: failed.memory });
  assert.equal(analysisReads(newGeneration), undefined, 'a new generation (a pause, a replica count) changes nothing');
  assert.equal(planAnalysis(newGeneration, undefined).state, 'failed');
  const looser = context({ generation: 5, previous: failed.memory, analysis: { maxFailureRate: 0.5, minSamples: 10 } });
  assert.notEqual(analysisReads(looser), undefined, 'a change of the analysis itself judges the step again');
  assert.ok(failed.memory);
  const { specHash: hashed, ...before } = failed.memory;
  assert.match(hashed ?? '', /^[0-9a-f]{10}$/);
  assert.equal(
    planAnalysis(context({ generation: 5, previous: before, analysis: { maxFailureRate: 0.5 } }), undefined).state,
    'failed',
    'one remembered before hashes holds, whatever the analysis now',
  );

  const passed = planAnalysis(context(), { counts: { v2: { closed: 20, failed: 0 } } });
  assert.equal(passed.note?.reason, 'AnalysisPassed');
  const again = planAnalysis(context({ previous: passed.memory }), { counts: { v2: { closed: 21, failed: 0 } } });
  assert.equal(again.state, 'passed');
  assert.equal(again.note, undefined, 'said once');
});

test('counts that could not be read keep the step waiting, and say why', () => {
  assert.deepEqual(planAnalysis(context(), { failure: 'cannot count: visibility is down' }), {
    state: 'pending',
    reason: 'the analysis of step 1 of build v2 waits: cannot count: visibility is down',
    onFailure: 'Abort',
  });
});

test('a passed AllAtOnce analysis is held for its generation without reading again; a passed step is not', () => {
  const bake = { index: 0, windowStart, pauseSeconds: 120, bake: true };
  const passed = planAnalysis(context({ step: bake }), { counts: { v2: { closed: 20, failed: 0 } } });
  assert.equal(passed.state, 'passed');
  assert.match(
    passed.reason,
    /^analysis of build v2 since its promotion: 0 of 20 workflows closed on the promoted build failed/,
  );
  assert.equal(analysisReads(context({ step: bake, previous: passed.memory })), undefined);
  assert.deepEqual(planAnalysis(context({ step: bake, previous: passed.memory }), undefined).memory, passed.memory);
  const step = planAnalysis(context(), { counts: { v2: { closed: 20, failed: 0 } } });
  assert.notEqual(
    analysisReads(context({ previous: step.memory })),
    undefined,
    'the next reconcile of a step reads again',
  );
});

test('spec.rollout.promote naming the target: nothing read, nothing holds it; a failure kept until the promotion is carried out', () => {
  const failed = planAnalysis(context({ now: at(30) }), {
    counts: { v2: { closed: 20, failed: 6 }, v1: { closed: 40, failed: 2 } },
  });
  assert.equal(failed.state, 'failed');
  const promoted = context({ promoted: true, previous: failed.memory });
  assert.equal(analysisReads(promoted), undefined);
  const waiting = planAnalysis(promoted, undefined);
  assert.equal(waiting.state, 'passed');
  assert.deepEqual(waiting.memory, failed.memory, 'a promote taken back before it is carried out leaves it failed');
  const done = planAnalysis({ ...promoted, currentBuildId: 'v2' }, undefined);
  assert.equal(done.state, 'passed');
  assert.equal(done.memory, undefined, 'once current, the failure is forgotten');
  assert.equal(planAnalysis(context({ previous: failed.memory }), undefined).state, 'failed', 'without promote: held');
});

test("the spec's analysis as the verdict takes it: its defaults, and only the limits it sets", () => {
  assert.deepEqual(analysisPolicy({ maxFailureRate: 0.1 }), {
    minSamples: 10,
    tooFewSamples: 'Wait',
    maxWaitSeconds: 600,
    maxFailureRate: 0.1,
  });
  assert.deepEqual(
    analysisPolicy({ window: '2m', minSamples: 0, maxFailureRateIncrease: 0.02, tooFewSamples: 'Pass', maxWait: '1m' }),
    { minSamples: 0, tooFewSamples: 'Pass', maxWaitSeconds: 60, windowSeconds: 120, maxFailureRateIncrease: 0.02 },
  );
});

test('the plan of an analysis: none standing passes, unread waits, a pending verdict looks again at the window end, counts not found are none', () => {
  assert.deepEqual(planAnalysis(context({ analysis: undefined }), undefined), {
    state: 'passed',
    reason: 'no analysis stands before the next step',
    onFailure: 'Abort',
  });
  assert.deepEqual(planAnalysis(context(), undefined), {
    state: 'pending',
    reason: 'the analysis of step 1 of build v2 has not been read',
    onFailure: 'Abort',
  });
  const early = planAnalysis(context({ now: at(30) }), { counts: {} });
  assert.equal(early.state, 'pending');
  assert.deepEqual(early.recheckAt, at(120), 'the window ends with the pause');
  assert.partialDeepStrictEqual(early.memory, { closed: 0, failed: 0, verdict: 'Pending' });
  assert.equal('currentClosed' in (early.memory ?? {}), false, 'no count of the current build: none said');
});

const byMetrics: AnalysisPolicy = { minSamples: 10, tooFewSamples: 'Wait', maxWaitSeconds: 60 };
const latency = (answer: { value: number } | { noSample: string }) => ({ name: 'latency', max: 2, answer });
const successes = (answer: { value: number } | { noSample: string }) => ({ name: 'successes', min: 0.99, answer });

test('metrics: an answer out of range fails at once, whichever bound; answers in range pass at the window end; no workflows counted without a rate limit', () => {
  const none = { closed: 0, failed: 0 };
  assert.deepEqual(
    judge(30, none, { policy: byMetrics, metrics: [latency({ value: 1.5 }), successes({ value: 0.95123 })] }),
    { state: 'failed', reason: 'metric successes is 0.9512, below min 0.99' },
    'the reason names the answer out of range',
  );
  assert.deepEqual(judge(30, none, { policy: byMetrics, metrics: [latency({ value: Infinity })] }), {
    state: 'failed',
    reason: 'metric latency is +Inf, above max 2',
  });
  assert.deepEqual(judge(30, none, { policy: byMetrics, metrics: [latency({ value: 2 }), successes({ value: 1 })] }), {
    state: 'pending',
    reason: 'metric latency is 2; metric successes is 1; the window ends at 2026-11-25T10:02:00.000Z',
    recheckAt: at(120),
  });
  assert.deepEqual(judge(120, none, { policy: byMetrics, metrics: [latency({ value: 0.3 })] }), {
    state: 'passed',
    reason: 'metric latency is 0.3, within the limits',
  });
});

test('metrics beside a rate limit: either failing fails; both must be judged to pass', () => {
  const metrics = [latency({ value: 3 })];
  assert.equal(
    judge(30, { closed: 2, failed: 0 }, { metrics }).state,
    'failed',
    'too few workflows do not hold back a failed answer',
  );
  assert.match(String(judge(30, { closed: 20, failed: 6 }, { metrics }).reason), /above maxFailureRate 5%$/);
  assert.deepEqual(judge(120, { closed: 20, failed: 0 }, { metrics: [latency({ value: 1 })] }), {
    state: 'passed',
    reason: '0 of 20 workflows closed on the ramping build failed (0%); metric latency is 1, within the limits',
  });
  assert.equal(
    judge(120, { closed: 3, failed: 0 }, { metrics: [latency({ value: 1 })] }).state,
    'pending',
    'an answer in range does not make up for too few workflows',
  );
});

test('metrics: no sample is judged as tooFewSamples says, by the window end', () => {
  const metrics = [latency({ noSample: 'no series' }), successes({ value: 1 })];
  assert.deepEqual(judge(60, { closed: 0, failed: 0 }, { policy: byMetrics, metrics }), {
    state: 'pending',
    reason:
      'metric successes is 1; metric latency has no sample (no series) so far; the window ends at 2026-11-25T10:02:00.000Z',
    recheckAt: at(120),
  });
  assert.equal(judge(150, { closed: 0, failed: 0 }, { policy: byMetrics, metrics }).state, 'pending', 'Wait');
  assert.equal(judge(180, { closed: 0, failed: 0 }, { policy: byMetrics, metrics }).state, 'failed', 'past maxWait');
  const passing = { ...byMetrics, tooFewSamples: 'Pass' as const };
  assert.match(
    String(judge(120, { closed: 0, failed: 0 }, { policy: passing, metrics }).reason),
    /metric latency has no sample \(no series\) by the window's end, which passes \(tooFewSamples: Pass\)$/,
  );
});

const metricAnalysis = {
  prometheus: { name: 'main', bearerTokenSecretRef: { name: 'prom', key: 'token' } },
  metrics: [
    {
      name: 'errors',
      query: 'sum(rate(failures{build="{{ .BuildID }}",ns="{{.Namespace}}"}[{{ .Window }}]))',
      max: 0.1,
    },
    { name: 'seen', query: 'count(up{deployment="{{ .DeploymentName }}"})', min: 1 },
  ],
};

test('metric reads: each query made for the target build, its namespace, its Worker Deployment and the window so far; no workflows counted without a rate limit', () => {
  assert.deepEqual(analysisReads(context({ now: at(95.7), analysis: metricAnalysis })), {
    buildIds: [],
    since: windowStart,
    metrics: {
      prometheus: metricAnalysis.prometheus,
      queries: [
        { name: 'errors', query: 'sum(rate(failures{build="v2",ns="shop"}[95s]))' },
        { name: 'seen', query: 'count(up{deployment="shop/orders"})' },
      ],
      at: at(95.7),
    },
  });
  const reads = analysisReads(context({ now: at(-3), analysis: { ...metricAnalysis, maxFailureRate: 0.1 } }));
  assert.deepEqual(reads?.buildIds, ['v2']);
  assert.match(reads?.metrics?.queries[0]?.query ?? '', /\[1s\]/, 'a window not begun on this clock is one second');
});

test('a metric verdict is remembered with each answer; one without a finite value is named without one; no counts without a rate limit', () => {
  const plan = planAnalysis(context({ now: at(30), analysis: metricAnalysis }), {
    counts: {},
    metrics: { errors: { value: 0.25 }, seen: { noSample: 'NaN' } },
  });
  assert.equal(plan.state, 'failed');
  assert.deepEqual(plan.memory, {
    generation: 3,
    step: 1,
    verdict: 'Failed',
    windowStart: windowStart.toISOString(),
    metrics: [{ name: 'errors', value: 0.25 }, { name: 'seen' }],
    message: 'analysis of step 1 of build v2: metric errors is 0.25, above max 0.1',
    checkedAt: at(30).toISOString(),
    specHash: specHash(metricAnalysis),
  });
  const unread = planAnalysis(context({ now: at(130), analysis: metricAnalysis }), { counts: {}, metrics: {} });
  assert.match(unread.reason, /metric errors has no sample \(not read\)/);
});
