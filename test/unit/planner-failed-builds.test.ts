// Builds that failed a gate or an analysis, remembered per build: added once per reason, lifted
// once the target is current with its gates and analysis passed (or promoted by a person),
// kept after the build is gone, and never more than the last twenty.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type FailedBuildsInput, failedBuildsAfter } from '../../src/planner/failed-builds.ts';

const now = new Date('2026-11-26T12:00:00Z');
const earlier = '2026-11-26T11:00:00.000Z';
const input = (more: Partial<FailedBuildsInput> = {}): FailedBuildsInput => ({
  now,
  stored: [],
  target: 'v2',
  settledCurrent: false,
  ...more,
});

test('a failure of the target is remembered with its reason, its words and when it was seen', () => {
  assert.deepEqual(failedBuildsAfter(input({ analysisFailure: 'too many failed' })), [
    { buildID: 'v2', reason: 'AnalysisFailed', message: 'too many failed', at: now.toISOString() },
  ]);
  assert.deepEqual(failedBuildsAfter(input({ gateFailure: 'gate failed' })), [
    { buildID: 'v2', reason: 'GateFailed', message: 'gate failed', at: now.toISOString() },
  ]);
  assert.deepEqual(failedBuildsAfter(input()), [], 'nothing failed: nothing remembered');
});

test('a failure already remembered is not added again, and keeps when it was first seen', () => {
  const stored = [{ buildID: 'v2', reason: 'AnalysisFailed', message: 'too many failed', at: earlier }];
  assert.deepEqual(failedBuildsAfter(input({ stored, analysisFailure: 'too many failed, still' })), stored);
  assert.deepEqual(
    failedBuildsAfter(input({ stored, gateFailure: 'gate failed' })).map((f) => f.reason),
    ['AnalysisFailed', 'GateFailed'],
    'another reason is another entry',
  );
});

test("the target settled current lifts its failure; others' stay", () => {
  const stored = [
    { buildID: 'v1', reason: 'GateFailed', message: 'x', at: earlier },
    { buildID: 'v2', reason: 'AnalysisFailed', message: 'y', at: earlier },
  ];
  assert.deepEqual(
    failedBuildsAfter(input({ stored, settledCurrent: true })).map((f) => f.buildID),
    ['v1'],
  );
  assert.deepEqual(failedBuildsAfter(input({ stored })), stored, 'not yet current: all stay');
});

test('a build neither Kubernetes runs nor Temporal lists any more keeps its failure; twenty at most, the newest kept', () => {
  const stored = [{ buildID: 'v0', reason: 'GateFailed', message: 'x', at: earlier }];
  assert.deepEqual(failedBuildsAfter(input({ stored })), stored, 'built again from its template, it is the same code');
  const many = Array.from({ length: 25 }, (_, i) => ({
    buildID: `b${i}`,
    reason: 'GateFailed',
    message: 'x',
    at: earlier,
  }));
  const kept = failedBuildsAfter(input({ stored: many, gateFailure: 'new' }));
  assert.equal(kept.length, 20);
  assert.equal(kept.at(-1)?.buildID, 'v2', 'the newest is kept');
  assert.equal(kept[0]?.buildID, 'b6', 'the oldest go first');
});
