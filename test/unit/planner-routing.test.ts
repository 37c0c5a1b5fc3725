// Every routing rule, as a table, on a fixed clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Rollout } from '../../src/api/temporal-worker-deployment.ts';
import { decideRouting, isRollback, type RoutingDecision, type RoutingInput } from '../../src/planner/routing.ts';

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

/** Promoted while step 2, still to come, has a gate. */
const promotedWithGateAtStep2: Rollout = {
  strategy: 'Progressive',
  steps: [
    { rampPercentage: 10, pauseDuration: '5m' },
    { rampPercentage: 50, pauseDuration: '10m', gate: { workflowType: 'check' } },
  ],
  promote: 'v2',
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
    { action: 'none', reason: /failed.*until that gate changes in the spec or is retried/ },
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
  [
    "a step's pause is over but its analysis is pending: the ramp holds until the analysis says",
    input({
      rollout: progressive,
      target: {
        status: 'Ramping',
        analysis: { state: 'pending', reason: 'analysis of step 1: 3 of 8', onFailure: 'Abort', recheckAt: ago(-60) },
      },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(600) },
    }),
    {
      action: 'wait',
      recheckAt: ago(-60),
      reason: /^step 1 of build v2 is over, waiting for the analysis of step 1: 3 of 8$/,
    },
  ],
  [
    'a passed analysis lets the step end when its pause is over',
    input({
      rollout: progressive,
      target: { status: 'Ramping', analysis: { state: 'passed', reason: 'fine', onFailure: 'Abort' } },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(600) },
    }),
    { action: 'setRamp', buildId: 'v2', percentage: 50 },
  ],
  [
    'a failed analysis aborts the ramp inside the pause',
    input({
      rollout: progressive,
      target: {
        status: 'Ramping',
        analysis: { state: 'failed', reason: 'analysis of step 1: bad', onFailure: 'Abort' },
      },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(10) },
    }),
    { action: 'clearRamp', reason: /^analysis of step 1: bad: aborting its ramp, new workflows go to build v1 again$/ },
  ],
  [
    'a failed analysis with onFailure Pause holds the ramp',
    input({
      rollout: progressive,
      target: {
        status: 'Ramping',
        analysis: { state: 'failed', reason: 'analysis of step 1: bad', onFailure: 'Pause' },
      },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(600) },
    }),
    {
      action: 'none',
      reason:
        /its ramp holds at 10% \(onFailure: Pause\) until spec.rollout.promote names the build or the rollout is aborted$/,
    },
  ],
  [
    'AllAtOnce: a promoted build that failed its analysis hands new workflows back to the build current before',
    input({
      target: {
        status: 'Current',
        analysis: {
          state: 'failed',
          reason: 'analysis of build v2 since its promotion: bad',
          onFailure: 'Abort',
          rollBackTo: { buildId: 'v1', healthy: true },
        },
      },
      routing: { currentBuildId: 'v2' },
    }),
    {
      action: 'setCurrent',
      buildId: 'v1',
      reason: /^analysis of build v2 since its promotion: bad: going back to build v1, current before it$/,
    },
  ],
  [
    'AllAtOnce: no going back to a build without an available Deployment',
    input({
      target: {
        status: 'Current',
        analysis: { state: 'failed', reason: 'bad', onFailure: 'Abort', rollBackTo: { buildId: 'v1', healthy: false } },
      },
      routing: { currentBuildId: 'v2' },
    }),
    { action: 'none', reason: /build v1, current before it, has no available Deployment to go back to/ },
  ],
  [
    'AllAtOnce: onFailure Pause leaves the promoted build current',
    input({
      target: {
        status: 'Current',
        analysis: { state: 'failed', reason: 'bad', onFailure: 'Pause', rollBackTo: { buildId: 'v1', healthy: true } },
      },
      routing: { currentBuildId: 'v2' },
    }),
    { action: 'none', reason: /stays current \(onFailure: Pause\)/ },
  ],
  [
    'AllAtOnce: once gone back, the failed build is not promoted again, though current within the rollback window',
    input({
      target: {
        lastCurrentAt: ago(60),
        analysis: { state: 'failed', reason: 'bad', onFailure: 'Abort', rollBackTo: { buildId: 'v1', healthy: true } },
      },
    }),
    {
      action: 'none',
      reason: /^bad: its rollout stops; a new template, or spec.rollout.promote naming the build, goes on$/,
    },
  ],
  [
    'a failed analysis, once its ramp is gone, starts no ramp again',
    input({
      rollout: progressive,
      target: { analysis: { state: 'failed', reason: 'analysis of step 1: bad', onFailure: 'Abort' } },
    }),
    {
      action: 'none',
      reason:
        /^analysis of step 1: bad: its rollout stops; a new template, or spec.rollout.promote naming the build, goes on$/,
    },
  ],
  // spec.rollout.paused, promote and abort (twc pause, promote, abort).
  [
    'paused: a ramp waits where it is, and says what comes next',
    input({
      rollout: { ...progressive, paused: true },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(3600) },
    }),
    {
      action: 'none',
      reason:
        /^the rollout of build v2 is paused \(spec\.rollout\.paused\): its ramp holds at 10%; resume it to go on \(next: step 1 of build v2 is over: step 2 at 50%\)$/,
    },
  ],
  [
    'paused: no promotion either',
    input({ rollout: { strategy: 'AllAtOnce', paused: true } }),
    { action: 'none', reason: /paused .*it takes no new workflows yet.*promoting it \(AllAtOnce\)/ },
  ],
  [
    'paused: no ramp of the target starts, whatever ramp another build has',
    input({
      rollout: { ...progressive, paused: true },
      routing: { rampingBuildId: 'v0', rampPercentage: 50 },
    }),
    { action: 'none', reason: /paused .*it takes no new workflows yet/ },
  ],
  [
    'paused: a failed gate still clears the ramp',
    input({
      rollout: { ...progressive, paused: true },
      target: { gate: 'failed' },
      routing: { rampingBuildId: 'v2', rampPercentage: 10 },
    }),
    { action: 'clearRamp' },
  ],
  [
    'paused: a ramp set by hand above a step still snaps down to it',
    input({
      rollout: { ...progressive, paused: true },
      routing: { rampingBuildId: 'v2', rampPercentage: 30, rampChangedAt: ago(10) },
    }),
    { action: 'setRamp', buildId: 'v2', percentage: 10 },
  ],
  [
    'abort: the ramp of the build named is cleared',
    input({
      rollout: { ...progressive, abort: 'v2' },
      routing: { rampingBuildId: 'v2', rampPercentage: 50, rampChangedAt: ago(10) },
    }),
    {
      action: 'clearRamp',
      reason: /aborted \(spec\.rollout\.abort\): its ramp is cleared, new workflows go to build v1 again/,
    },
  ],
  [
    'abort: a build not ramping takes no traffic',
    input({ rollout: { strategy: 'AllAtOnce', abort: 'v2' } }),
    { action: 'none', reason: /until the template names another build/ },
  ],
  [
    'abort of another build than the target changes nothing',
    input({ rollout: { strategy: 'AllAtOnce', abort: 'v0' } }),
    { action: 'setCurrent', buildId: 'v2' },
  ],
  [
    'promote: mid-pause, with no gate left, current at once',
    input({
      rollout: { ...progressive, promote: 'v2' },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(10) },
    }),
    { action: 'setCurrent', buildId: 'v2', reason: /as spec\.rollout\.promote asks: no gate is left to pass/ },
  ],
  [
    'promote: a gate to come still runs: the next step without the pause, once its gate passed',
    input({
      rollout: promotedWithGateAtStep2,
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(10) },
    }),
    { action: 'setRamp', buildId: 'v2', percentage: 50, reason: /without the pause of step 1, its gate passed/ },
  ],
  [
    'promote: waiting for the gate of the next step',
    input({
      rollout: promotedWithGateAtStep2,
      target: { gate: 'pending' },
      routing: { rampingBuildId: 'v2', rampPercentage: 10, rampChangedAt: ago(10) },
    }),
    { action: 'wait', reason: /gate of step 2/ },
  ],
  [
    'promote under Manual: current once healthy',
    input({ rollout: { strategy: 'Manual', promote: 'v2' } }),
    { action: 'setCurrent', buildId: 'v2', reason: /as spec\.rollout\.promote asks/ },
  ],
  [
    'promote under Manual still waits for the gate',
    input({ rollout: { strategy: 'Manual', promote: 'v2' }, target: { gate: 'pending' } }),
    { action: 'wait' },
  ],
  [
    'promote of a build that is not the target changes nothing under Manual',
    input({ rollout: { strategy: 'Manual', promote: 'v0' } }),
    { action: 'none' },
  ],
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

test('a target current exactly the rollback window ago is still a rollback; a millisecond more is not', () => {
  assert.equal(isRollback(now, ago(3600), HOUR), true);
  assert.equal(isRollback(now, new Date(now.getTime() - HOUR - 1), HOUR), false);
  assert.equal(isRollback(now, undefined, HOUR), false, 'a build never current is no rollback');
  assert.deepEqual(decideRouting(input({ rollout: progressive, target: { lastCurrentAt: ago(3600) } })), {
    action: 'setCurrent',
    buildId: 'v2',
    reason: 'rolling back to build v2, current 60 minutes ago: promoting it at once, without steps or gates',
  });
});

const ramping = (rampPercentage: number, rampChangedAt?: Date) =>
  input({
    rollout: progressive,
    target: { status: 'Ramping' },
    routing: { rampingBuildId: 'v2', rampPercentage, ...(rampChangedAt ? { rampChangedAt } : {}) },
  });

// What the status and the events will say, word for word.
const reasons: [string, RoutingInput, string][] = [
  ['Manual', input({ rollout: { strategy: 'Manual' } }), 'the Manual strategy leaves routing to you'],
  [
    'a failed gate',
    input({ target: { gate: 'failed' } }),
    'a gate of build v2 failed: its rollout stops until that gate changes in the spec or is retried',
  ],
  [
    'a failed gate aborting a ramp from the current build',
    input({ rollout: progressive, target: { gate: 'failed' }, routing: { rampingBuildId: 'v2', rampPercentage: 10 } }),
    'a gate of build v2 failed: aborting its ramp, new workflows go to build v1 again',
  ],
  [
    'a failed gate aborting a ramp from unversioned workers',
    input({
      rollout: progressive,
      target: { gate: 'failed' },
      routing: { currentBuildId: undefined, rampingBuildId: 'v2', rampPercentage: 10 },
    }),
    'a gate of build v2 failed: aborting its ramp, new workflows go to unversioned workers again',
  ],
  [
    'not registered',
    input({ target: { status: 'NotRegistered' } }),
    'waiting for build v2 to register in Temporal: its workers have not polled yet',
  ],
  [
    'not available',
    input({ target: { healthy: false } }),
    'waiting for the Deployments of build v2 to become available',
  ],
  ['current', input({ target: { status: 'Current' }, routing: { currentBuildId: 'v2' } }), 'build v2 is current'],
  [
    'current with a leftover ramp',
    input({
      target: { status: 'Current' },
      routing: { currentBuildId: 'v2', rampingBuildId: 'v3', rampPercentage: 5 },
    }),
    'build v2 is current: clearing the leftover ramp of build v3',
  ],
  [
    'a rollback',
    input({ target: { lastCurrentAt: ago(600) } }),
    'rolling back to build v2, current 10 minutes ago: promoting it at once, without steps or gates',
  ],
  [
    'a rollback rounds to the nearest minute',
    input({ target: { lastCurrentAt: ago(89) } }),
    'rolling back to build v2, current 1 minute ago: promoting it at once, without steps or gates',
  ],
  ['a pending gate', input({ target: { gate: 'pending' } }), 'waiting for the gate workflows of build v2 to complete'],
  [
    'a pending gate that says what it waits for',
    input({ target: { gate: 'pending', gateWaiting: 'gate rollout runs on q' } }),
    'waiting for the gate of build v2: gate rollout runs on q',
  ],
  [
    'task queues not yet known',
    input({ routing: { currentBuildId: undefined, unversionedPollersConfirmed: undefined } }),
    'waiting for build v2 to register its task queues, to tell whether unversioned workers poll them',
  ],
  [
    'no current build and no unversioned workers',
    input({ routing: { currentBuildId: undefined } }),
    'no build is current and no unversioned workers poll: promoting build v2 directly',
  ],
  ['AllAtOnce', input(), 'build v2 is registered and available: promoting it (AllAtOnce)'],
  [
    'Progressive without steps',
    input({ rollout: { strategy: 'Progressive' } }),
    'a Progressive rollout without steps changes nothing',
  ],
  ['the first step', input({ rollout: progressive }), 'starting the ramp of build v2 at step 1: 10%'],
  [
    'a ramp changed by hand, snapped back to step 1',
    ramping(30, ago(10)),
    'the ramp of build v2 is 30%, not a step: back to step 1 (10%)',
  ],
  [
    'a ramp changed by hand, snapped back to step 2',
    ramping(80, ago(10)),
    'the ramp of build v2 is 80%, not a step: back to step 2 (50%)',
  ],
  ['no ramp change time yet', ramping(10), 'waiting for Temporal to report when the ramp of build v2 changed'],
  ['the pause of step 1', ramping(10, ago(60)), 'build v2 at step 1 (10%) until 2026-11-22T12:04:00.000Z'],
  ['the pause of step 2', ramping(50, ago(60)), 'build v2 at step 2 (50%) until 2026-11-22T12:09:00.000Z'],
  ['step 1 over', ramping(10, ago(300)), 'step 1 of build v2 is over: step 2 at 50%'],
  ['the last step over', ramping(50, ago(600)), 'the last step of build v2 is over: promoting it'],
  [
    // A gate behind the ramp whose spec changed mid-rollout (simulator seed 35728): its new run has not passed.
    'the last step over, a gate still to pass',
    {
      ...ramping(50, ago(600)),
      target: { ...ramping(50).target, gate: 'pending', gateWaiting: 'gate rollout runs on q' },
    },
    'the last step of build v2 is over: waiting for the gate of build v2 before promoting it: gate rollout runs on q',
  ],
  [
    'the last step over, a gate still to pass, in no words of its own',
    { ...ramping(50, ago(600)), target: { ...ramping(50).target, gate: 'pending' } },
    'the last step of build v2 is over: waiting for the gate workflows of build v2 to complete before promoting it',
  ],
];

for (const [title, given, expected] of reasons) {
  test(`the reason, word for word: ${title}`, () => assert.equal(decideRouting(given).reason, expected));
}
