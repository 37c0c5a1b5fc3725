// Every routing rule, as a table, on a fixed clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Rollout } from '../../src/api/temporal-worker-deployment.ts';
import { decideRouting, type RoutingDecision, type RoutingInput } from '../../src/planner/routing.ts';

const now = new Date('2026-11-22T12:00:00Z');
const ago = (seconds: number): Date => new Date(now.getTime() - seconds * 1000);
const HOUR = 3_600_000;

const progressive: Rollout = {
  strategy: 'Progressive',
  steps: [
    { rampPercentage: 10, pauseDuration: '5m' },
    { rampPercentage: 50, pauseDuration: '10m' },
  ],
};

function input(
  changes: {
    rollout?: Rollout;
    target?: Partial<RoutingInput['target']>;
    routing?: Partial<RoutingInput['routing']>;
  } = {},
): RoutingInput {
  return {
    now,
    rollout: changes.rollout ?? { strategy: 'AllAtOnce' },
    target: { buildId: 'v2', status: 'Inactive', healthy: true, gate: 'passed', ...changes.target },
    routing: { currentBuildId: 'v1', unversionedPollersConfirmed: false, ...changes.routing },
    rollbackWindowMs: HOUR,
  };
}

type Expected = {
  action: RoutingDecision['action'];
  buildId?: string;
  percentage?: number;
  recheckAt?: Date;
  reason?: RegExp;
};

const cases: [string, RoutingInput, Expected][] = [
  ['Manual never changes routing', input({ rollout: { strategy: 'Manual' } }), { action: 'none' }],
  [
    'Manual leaves even a stale ramp alone',
    input({
      rollout: { strategy: 'Manual' },
      routing: { currentBuildId: 'v2', rampingBuildId: 'v1', rampPercentage: 10 },
    }),
    { action: 'none' },
  ],
  [
    'an unregistered target waits for its pollers',
    input({ target: { status: 'NotRegistered' } }),
    { action: 'wait', reason: /register/ },
  ],
  [
    'an unhealthy target waits for its Deployments',
    input({ target: { healthy: false } }),
    { action: 'wait', reason: /available/ },
  ],
  ['AllAtOnce promotes a registered, healthy target', input(), { action: 'setCurrent', buildId: 'v2' }],
  [
    'a current target with no ramp needs nothing',
    input({ target: { status: 'Current' }, routing: { currentBuildId: 'v2' } }),
    { action: 'none' },
  ],
  [
    'a current target clears a leftover ramp',
    input({
      target: { status: 'Current' },
      routing: { currentBuildId: 'v2', rampingBuildId: 'v3', rampPercentage: 20 },
    }),
    { action: 'clearRamp' },
  ],
  [
    'a gate not yet passed holds the promotion',
    input({ target: { gate: 'pending' } }),
    { action: 'wait', reason: /gate/ },
  ],
  [
    'a rollback within the window skips the gate',
    input({ target: { gate: 'pending', lastCurrentAt: ago(600) } }),
    { action: 'setCurrent', buildId: 'v2', reason: /rolling back/ },
  ],
  [
    'a failed gate stops the rollout where it is',
    input({ target: { gate: 'failed' } }),
    { action: 'none', reason: /failed.*until the spec changes/ },
  ],
  [
    'a failed step gate aborts the ramp: new workflows go back to the current build',
    input({
      rollout: progressive,
      target: { gate: 'failed', status: 'Ramping' },
      routing: { rampingBuildId: 'v2', rampPercentage: 25, rampChangedAt: ago(600) },
    }),
    { action: 'clearRamp', reason: /aborting its ramp, new workflows go to build v1/ },
  ],
  [
    'a failed gate of a build that is already current changes nothing',
    input({ target: { gate: 'failed', status: 'Current' }, routing: { currentBuildId: 'v2' } }),
    { action: 'none', reason: /is current/ },
  ],
  [
    'a rollback within the window skips the steps',
    input({ rollout: progressive, target: { lastCurrentAt: ago(3599) } }),
    { action: 'setCurrent', buildId: 'v2', reason: /rolling back/ },
  ],
  [
    'a target current longer ago than the window is no rollback',
    input({ rollout: progressive, target: { lastCurrentAt: ago(3601) } }),
    { action: 'setRamp', buildId: 'v2', percentage: 10 },
  ],
  [
    'a rollback still waits for availability',
    input({ target: { healthy: false, lastCurrentAt: ago(60) } }),
    { action: 'wait' },
  ],
  [
    'Manual is never rolled back',
    input({ rollout: { strategy: 'Manual' }, target: { lastCurrentAt: ago(60) } }),
    { action: 'none' },
  ],
  [
    'no current version: Progressive promotes directly',
    input({ rollout: progressive, routing: { currentBuildId: undefined } }),
    { action: 'setCurrent', buildId: 'v2', reason: /no build is current/ },
  ],
  [
    'no current version and the task queues not yet known: wait rather than promote past unversioned workers',
    input({ rollout: progressive, routing: { currentBuildId: undefined, unversionedPollersConfirmed: undefined } }),
    { action: 'wait', reason: /register its task queues/ },
  ],
  [
    'no current version but unversioned pollers: Progressive ramps from them',
    input({ rollout: progressive, routing: { currentBuildId: undefined, unversionedPollersConfirmed: true } }),
    { action: 'setRamp', buildId: 'v2', percentage: 10 },
  ],
  [
    'Progressive starts at the first step',
    input({ rollout: progressive }),
    { action: 'setRamp', buildId: 'v2', percentage: 10 },
  ],
  [
    'a new target mid-ramp of another build restarts from the first step',
    input({ rollout: progressive, routing: { rampingBuildId: 'v1b', rampPercentage: 50, rampChangedAt: ago(10) } }),
    { action: 'setRamp', buildId: 'v2', percentage: 10 },
  ],
  [
    'a step waits out its pause, timed from the ramp change in Temporal',
    input({
      rollout: progressive,
      target: { status: 'Ramping' },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(299) },
    }),
    { action: 'wait', recheckAt: new Date(now.getTime() + 1000) },
  ],
  [
    'after the pause, the next step',
    input({
      rollout: progressive,
      target: { status: 'Ramping' },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(300) },
    }),
    { action: 'setRamp', buildId: 'v2', percentage: 50 },
  ],
  [
    "the gate of the next step runs beside the pause: the pause's end is still the recheck time",
    input({
      rollout: progressive,
      target: { status: 'Ramping', gate: 'pending' },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(299) },
    }),
    { action: 'wait', recheckAt: new Date(now.getTime() + 1000) },
  ],
  [
    "after the pause, the next step's ramp waits for its gate",
    input({
      rollout: progressive,
      target: { status: 'Ramping', gate: 'pending' },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(300) },
    }),
    { action: 'wait', reason: /step 1 of build v2 is over: waiting for the gate of step 2 before its ramp of 50%/ },
  ],
  [
    'a ramp changed by hand below the first step waits for its gate before going up to it',
    input({
      rollout: progressive,
      target: { status: 'Ramping', gate: 'pending' },
      routing: { rampingBuildId: 'v2', rampPercentage: 3, rampChangedAt: ago(10) },
    }),
    { action: 'wait', reason: /gate of step 1/ },
  ],
  [
    'a ramp changed by hand above a step snaps down at once, gate or not',
    input({
      rollout: progressive,
      target: { status: 'Ramping', gate: 'pending' },
      routing: { rampingBuildId: 'v2', rampPercentage: 30, rampChangedAt: ago(10) },
    }),
    { action: 'setRamp', buildId: 'v2', percentage: 10 },
  ],
  [
    'after the last pause, promotion',
    input({
      rollout: progressive,
      target: { status: 'Ramping' },
      routing: { rampingBuildId: 'v2', rampPercentage: 50, rampChangedAt: ago(600) },
    }),
    { action: 'setCurrent', buildId: 'v2' },
  ],
  [
    'a ramp changed by hand between steps snaps back to the step below',
    input({
      rollout: progressive,
      target: { status: 'Ramping' },
      routing: { rampingBuildId: 'v2', rampPercentage: 30, rampChangedAt: ago(10) },
    }),
    { action: 'setRamp', buildId: 'v2', percentage: 10 },
  ],
  [
    'a ramp changed by hand below the first step goes to the first step',
    input({
      rollout: progressive,
      target: { status: 'Ramping' },
      routing: { rampingBuildId: 'v2', rampPercentage: 3, rampChangedAt: ago(10) },
    }),
    { action: 'setRamp', buildId: 'v2', percentage: 10 },
  ],
  [
    'a ramp above every step snaps to the last step',
    input({
      rollout: progressive,
      target: { status: 'Ramping' },
      routing: { rampingBuildId: 'v2', rampPercentage: 80, rampChangedAt: ago(10) },
    }),
    { action: 'setRamp', buildId: 'v2', percentage: 50 },
  ],
  [
    'a ramp with no change time yet waits',
    input({
      rollout: progressive,
      target: { status: 'Ramping' },
      routing: { rampingBuildId: 'v2', rampPercentage: 10 },
    }),
    { action: 'wait' },
  ],
  ['Progressive without steps changes nothing', input({ rollout: { strategy: 'Progressive' } }), { action: 'none' }],
];

for (const [title, given, expected] of cases) {
  test(title, () => {
    const decision = decideRouting(given);
    const { reason, ...rest } = expected;
    assert.ok(decision.reason.length > 0, 'every decision carries a reason');
    if (reason) assert.match(decision.reason, reason);
    const actual: Record<string, unknown> = { ...decision };
    delete actual.reason;
    assert.deepEqual(actual, rest);
  });
}
