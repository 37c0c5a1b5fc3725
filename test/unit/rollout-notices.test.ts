// The rollout events a status write tells receivers, read off the status replaced and the one written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { rolloutNotices } from '../../src/status/rollout-notices.ts';

type Status = NonNullable<TemporalWorkerDeployment['status']>;

const at = '2026-11-27T12:00:00Z';
const steady: Status = {
  targetVersion: { buildID: 'v1', status: 'Current' },
  currentVersion: { buildID: 'v1', status: 'Current' },
};
const rolling: Status = {
  targetVersion: { buildID: 'v2', status: 'Inactive' },
  currentVersion: { buildID: 'v1', status: 'Current' },
};
const ramping = (percentage: number): Status => ({
  ...rolling,
  targetVersion: { buildID: 'v2', status: 'Ramping', rampPercentage: percentage },
});
const promoted: Status = {
  targetVersion: { buildID: 'v2', status: 'Current' },
  currentVersion: { buildID: 'v2', status: 'Current' },
  deprecatedVersions: [{ buildID: 'v1', status: 'Draining' }],
};
const stalledBy = (reason: string, base: Status = rolling): Status => ({
  ...base,
  conditions: [{ type: 'Stalled', status: 'True', reason, message: 'why', lastTransitionTime: at }],
});
const batch = (state: string, jobID = 'job-1'): Status => ({
  ...promoted,
  deprecatedVersions: [
    {
      buildID: 'v1',
      status: 'Draining',
      pinnedWorkflows: {
        step: 'Cancel',
        batch: { jobID, operation: 'Cancel', state, total: 3, completed: 3, failed: 0 },
      },
    },
  ],
});

const kinds = (before: Status | undefined, after: Status) =>
  rolloutNotices(before, after).map((n) => `${n.kind} ${n.buildId}`);

const cases: [string, Status | undefined, Status, string[]][] = [
  ['nothing changed: nothing told', steady, steady, []],
  ['a new target: the rollout started', steady, rolling, ['Started v2']],
  [
    'the first build of a new worker deployment',
    undefined,
    { targetVersion: { buildID: 'v1', status: 'NotRegistered' } },
    ['Started v1'],
  ],
  ['the first ramp is a step starting, not one passed', rolling, ramping(10), []],
  ['a higher ramp: a step passed', ramping(10), ramping(50), ['StepPassed v2']],
  ['a ramp lowered is no step passed', ramping(50), ramping(10), []],
  ['promoted', ramping(50), promoted, ['Promoted v2']],
  ['a rollback to a build current within the window: promoted, never started', promoted, steady, ['Promoted v1']],
  ['aborted by the rollout control', ramping(10), stalledBy('RolloutAborted'), ['Aborted v2']],
  ['a failed gate is an abort', rolling, stalledBy('GateFailed'), ['Aborted v2']],
  ['a failed analysis is an abort', ramping(10), stalledBy('AnalysisFailed'), ['Aborted v2']],
  ['a stall for a person', rolling, stalledBy('ManagedElsewhere'), ['Stalled v2']],
  ['the same stall again: told once', stalledBy('ManagedElsewhere'), stalledBy('ManagedElsewhere'), []],
  ['another stall reason: told', stalledBy('ManagedElsewhere'), stalledBy('RoutingChangeFailed'), ['Stalled v2']],
  ['a batch finished', batch('Running'), batch('Completed'), ['BatchOperationFinished v1']],
  ['a batch already said finished', batch('Completed'), batch('Completed'), []],
  [
    'a new batch seen only once finished',
    batch('Completed', 'job-0'),
    batch('Failed', 'job-1'),
    ['BatchOperationFinished v1'],
  ],
  [
    'an old build gone from the status: retired',
    promoted,
    { ...promoted, deprecatedVersions: [] },
    ['OldBuildRetired v1'],
  ],
];

for (const [what, before, after, expected] of cases)
  test(`rollout notices: ${what}`, () => assert.deepEqual(kinds(before, after), expected));

test('rollout notices: each says what happened in words', () => {
  assert.deepEqual(
    rolloutNotices(ramping(50), promoted).map((n) => n.message),
    ['build v2 is current: new workflows go to it; v1 drains'],
  );
  assert.deepEqual(
    rolloutNotices(batch('Running'), batch('Completed')).map((n) => n.message),
    ['Cancel batch job-1 on the pinned workflows of build v1 completed: 3 of 3 workflows, 0 failed'],
  );
});
