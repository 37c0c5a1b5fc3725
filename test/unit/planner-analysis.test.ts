import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnalysisInput, type AnalysisPolicy, judgeAnalysis } from '../../src/planner/analysis.ts';

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
