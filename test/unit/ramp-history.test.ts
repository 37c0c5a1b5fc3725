// The target's ramp as the status keeps it: a step per share Temporal gave it, a 0 where the ramp
// was cleared before promotion, nothing new while it is current, afresh for a new target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import { RAMP_STEPS_KEPT, rampHistory, type RampStep } from '../../src/status/ramp-history.ts';

const now = new Date('2026-11-25T12:00:00Z');
const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 11, minute)).toISOString();
const state = (more: Partial<TemporalDeploymentState>): TemporalDeploymentState => ({
  exists: true,
  versions: [],
  currentBuildId: 'v1',
  ...more,
});
const target = (buildID: string, history?: RampStep[]) => ({
  buildID,
  status: 'Ramping',
  ...(history ? { rampHistory: history } : {}),
});

test('each new share is a step, from when Temporal changed it', () => {
  const ramping = (percentage: number, minute: number) =>
    state({ rampingBuildId: 'v2', rampPercentage: percentage, rampChangedAt: new Date(at(minute)) });
  const first = rampHistory(undefined, 'v2', ramping(10, 1), now);
  assert.deepEqual(first, [{ percentage: 10, at: at(1) }]);
  assert.deepEqual(rampHistory(target('v2', first), 'v2', ramping(10, 1), now), first, 'the same share: no step');
  assert.deepEqual(rampHistory(target('v2', first), 'v2', ramping(50, 6), now), [
    { percentage: 10, at: at(1) },
    { percentage: 50, at: at(6) },
  ]);
  assert.deepEqual(
    rampHistory(target('v2', first), 'v2', state({ rampingBuildId: 'v2', rampPercentage: 50 }), now),
    [
      { percentage: 10, at: at(1) },
      { percentage: 50, at: now.toISOString() },
    ],
    "without Temporal's time (a ramp just set), now",
  );
});

test('a ramp cleared before promotion is a 0; once current, nothing is added; a new target starts afresh', () => {
  const history = [{ percentage: 25, at: at(1) }];
  assert.deepEqual(rampHistory(target('v2', history), 'v2', state({}), now), [
    ...history,
    { percentage: 0, at: now.toISOString() },
  ]);
  assert.deepEqual(rampHistory(target('v2', history), 'v2', state({ currentBuildId: 'v2' }), now), history);
  assert.deepEqual(rampHistory(target('v1', history), 'v2', state({}), now), [], 'not ramped yet: nothing');
  assert.deepEqual(rampHistory(undefined, 'v2', state({ currentBuildId: 'v2' }), now), [], 'promoted at once');
});

test('only the last steps are kept', () => {
  const long = Array.from({ length: RAMP_STEPS_KEPT }, (_, i) => ({ percentage: i + 1, at: at(i) }));
  const next = rampHistory(
    target('v2', long),
    'v2',
    state({ rampingBuildId: 'v2', rampPercentage: 99, rampChangedAt: now }),
    now,
  );
  assert.equal(next.length, RAMP_STEPS_KEPT);
  assert.deepEqual(next.at(-1), { percentage: 99, at: now.toISOString() });
  assert.deepEqual(next[0], long[1]);
});
