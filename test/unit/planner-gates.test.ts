// Which gate stands before the next routing change, and the verdict on its runs, as tables.
import type { V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Rollout } from '../../src/api/temporal-worker-deployment.ts';
import type { Observation } from '../../src/domain/observation.ts';
import type { GateRun } from '../../src/domain/snapshot.ts';
import { gateQueues } from '../../src/planner/plan.ts';
import {
  QUEUE_PROPAGATION_MS,
  decideGates,
  type GateCheck,
  type GateContext,
  gateStages,
  gateTaskQueues,
  gateSpecHash,
  gateToRead,
  gateWorkflowId,
  type GateVerdict,
  judgeGate,
  type StageInput,
} from '../../src/planner/gates.ts';

const gate = (workflowType: string) => ({ workflowType });
const progressive: Rollout = {
  strategy: 'Progressive',
  gate: gate('smoke'),
  steps: [
    { rampPercentage: 10, pauseDuration: '1m', gate: gate('canary-10') },
    { rampPercentage: 50, pauseDuration: '1m' },
    { rampPercentage: 80, pauseDuration: '1m', gate: gate('canary-80') },
  ],
};
const stage = (changes: Partial<StageInput>): StageInput => ({
  rollout: progressive,
  targetBuildId: 'v2',
  currentBuildId: 'v1',
  ...changes,
});

const stages: [string, StageInput, string[]][] = [
  ['before any traffic: the rollout gate, then the gate of step 1', stage({}), ['rollout smoke', 'step-1 canary-10']],
  ['no gate configured: nothing stands', stage({ rollout: { strategy: 'AllAtOnce' } }), []],
  [
    'no build current (the target may be promoted at once): every gate, in order, before the first change',
    stage({ currentBuildId: undefined }),
    ['rollout smoke', 'step-1 canary-10', 'step-3 canary-80'],
  ],
  [
    'AllAtOnce: the rollout gate',
    stage({ rollout: { strategy: 'AllAtOnce', gate: gate('smoke') } }),
    ['rollout smoke'],
  ],
  [
    'ramping at step 1: step 2 has no gate; only the gates behind the ramp stand (read from the status once passed)',
    stage({ rampingBuildId: 'v2', rampPercentage: 10 }),
    ['rollout smoke', 'step-1 canary-10'],
  ],
  [
    "ramping at step 2: step 3's gate stands before its ramp is set, after those behind",
    stage({ rampingBuildId: 'v2', rampPercentage: 50 }),
    ['rollout smoke', 'step-1 canary-10', 'step-3 canary-80'],
  ],
  [
    'ramping at the last step: every gate of the spec before the promotion',
    stage({ rampingBuildId: 'v2', rampPercentage: 80 }),
    ['rollout smoke', 'step-1 canary-10', 'step-3 canary-80'],
  ],
  [
    'a ramp changed by hand above a step snaps down to it: no gate of its own',
    stage({ rampingBuildId: 'v2', rampPercentage: 85 }),
    ['rollout smoke', 'step-1 canary-10', 'step-3 canary-80'],
  ],
  [
    'between two steps: down to the lower one, no gate of its own',
    stage({ rampingBuildId: 'v2', rampPercentage: 60 }),
    ['rollout smoke', 'step-1 canary-10'],
  ],
  [
    'below the first step: up to it, behind its gate',
    stage({ rampingBuildId: 'v2', rampPercentage: 5 }),
    ['rollout smoke', 'step-1 canary-10'],
  ],
  [
    'another build ramping: the target still faces the gates before any traffic',
    stage({ rampingBuildId: 'v9', rampPercentage: 10 }),
    ['rollout smoke', 'step-1 canary-10'],
  ],
  ['the target is current: nothing stands', stage({ currentBuildId: 'v2' }), []],
];

for (const [title, given, expected] of stages) {
  test(`stages: ${title}`, () => {
    assert.deepEqual(
      gateStages(given).map((s) => `${s.name} ${s.gate.workflowType}`),
      expected,
    );
  });
}

const run = (status: GateRun['status'], message?: string): GateRun => ({
  workflowId: `gate-${status}`,
  status,
  ...(message ? { message } : {}),
});
const check = (runs: GateCheck['runs'], changes: Partial<GateCheck> = {}): GateCheck => ({
  stage: 'rollout',
  taskQueues: ['a', 'b'],
  runs,
  retry: false,
  replace: [],
  ...changes,
});

const verdicts: [string, GateCheck, { state: string; start?: string[]; reason: RegExp }][] = [
  [
    'nothing started: start on every queue',
    check({}),
    { state: 'pending', start: ['a', 'b'], reason: /starts on a, b/ },
  ],
  [
    'one running, one not started: start the other',
    check({ a: run('Running') }),
    { state: 'pending', start: ['b'], reason: /starts on b/ },
  ],
  [
    'all running: wait',
    check({ a: run('Running'), b: run('Running') }),
    { state: 'pending', start: [], reason: /runs on a, b/ },
  ],
  [
    'all completed: passed',
    check({ a: run('Completed'), b: run('Completed') }),
    { state: 'passed', reason: /completed on every task queue/ },
  ],
  [
    'one failed: failed, with how',
    check({ a: run('Completed'), b: run('Failed', 'failed: bad canary') }),
    { state: 'failed', reason: /task queue b: workflow gate-Failed failed: bad canary/ },
  ],
  [
    'one failed at an older generation: start it again',
    check({ a: run('Completed'), b: run('Failed') }, { retry: true }),
    { state: 'pending', start: ['b'], reason: /starts on b/ },
  ],
  [
    'no task queue registered for workflows and activities yet: wait',
    check({}, { taskQueues: [] }),
    { state: 'pending', start: [], reason: /register a task queue for workflows and activities/ },
  ],
];

for (const [title, given, expected] of verdicts) {
  test(`verdict: ${title}`, () => {
    const verdict = judgeGate(given);
    assert.equal(verdict.state, expected.state);
    assert.match(verdict.reason, expected.reason);
    if (expected.start) assert.deepEqual(verdict.state === 'pending' ? verdict.start : undefined, expected.start);
  });
}

const twoStages = {
  now: new Date('2026-11-29T12:00:00Z'),
  stages: [
    { name: 'rollout', gate: gate('smoke') },
    { name: 'step-1', gate: gate('canary-10') },
  ],
  rollout: {
    strategy: 'Progressive' as const,
    gate: gate('smoke'),
    steps: [{ rampPercentage: 10, pauseDuration: '1m', gate: gate('canary-10') }],
  },
  expectedQueues: [],
  buildId: 'v2',
  temporalName: 'shop/orders',
  generation: 3,
};
/** Queue a, listed by Temporal for the build long enough ago that a gate may start on it. */
const listedBefore = { gateQueuesListed: { taskQueues: ['a'], since: '2026-11-29T11:59:00.000Z' } };
/** The stages of twoStages by name, with their gates. */
const stageOf = (name: string) => ({ name, gate: name === 'rollout' ? gate('smoke') : gate('canary-10') });
const idOn = (name: string, queue: string) => gateWorkflowId('shop/orders', 'v2', stageOf(name), queue);
/** The run ID of the run the controller started on queue a, as the status records it. */
const OWN_RUN = 'r1';
/** A run as the status remembers it, without the run ID the controller started. */
const unrecorded = (stage: string, status: string, startedFor?: number) => ({
  stage,
  taskQueue: 'a',
  workflowID: idOn(stage, 'a'),
  status,
  ...(startedFor === undefined ? {} : { generation: startedFor }),
});
/** `startedFor`: the generation a run was started for, as the status remembers it. */
const remembered = (stage: string, status: string, startedFor?: number) => ({
  ...unrecorded(stage, status, startedFor),
  runID: OWN_RUN,
});
/** A run the decision starts now, at generation 3: its run ID is recorded once it has started. */
const startedNow = (stage: string) => unrecorded(stage, 'Running', 3);
/** The controller's own run of a stage on queue a, as Temporal reports it. */
const ownRun = (stage: string, status: GateRun['status'], changes: Partial<GateRun> = {}): GateRun => ({
  workflowId: idOn(stage, 'a'),
  runId: OWN_RUN,
  workflowType: stageOf(stage).gate.workflowType,
  pinnedTo: { deploymentName: 'shop/orders', buildId: 'v2' },
  status,
  ...changes,
});

test('gates in order: the first not known complete is read; each passes before the next is asked', () => {
  assert.equal(gateToRead({ ...twoStages, previous: undefined })?.name, 'rollout');
  const rolloutDone = { gates: [remembered('rollout', 'Completed')] };
  assert.equal(gateToRead({ ...twoStages, previous: rolloutDone })?.name, 'step-1');
  const both = { gates: [remembered('rollout', 'Completed'), remembered('step-1', 'Completed')] };
  assert.equal(gateToRead({ ...twoStages, previous: both }), undefined, 'the status tells: nothing to read');
  assert.deepEqual(decideGates({ ...twoStages, previous: both }, undefined), {
    gate: 'passed',
    memory: both,
    starts: [],
  });

  const rolloutPasses = decideGates(
    { ...twoStages, previous: { gates: [remembered('rollout', 'Running')] } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: ownRun('rollout', 'Completed') } },
  );
  assert.equal(rolloutPasses.gate, 'pending', 'step 1 still stands');
  assert.deepEqual(rolloutPasses.memory, rolloutDone);
  assert.equal(rolloutPasses.passed, 'gate rollout completed on every task queue for build v2');

  const stepStarts = decideGates(
    { ...twoStages, previous: rolloutDone },
    { stage: 'step-1', taskQueues: ['a'], runs: {} },
  );
  assert.deepEqual(
    stepStarts.starts.map((s) => `${s.stage} ${s.taskQueue} ${s.gate.workflowType}`),
    ['step-1 a canary-10'],
  );
  assert.deepEqual(stepStarts.memory, {
    gates: [remembered('rollout', 'Completed'), startedNow('step-1')],
  });
});

const edgeStages: [string, StageInput, string[]][] = [
  [
    'AllAtOnce, the target ramped by hand: the rollout gate, as there are no steps',
    stage({ rollout: { strategy: 'AllAtOnce', gate: gate('smoke') }, rampingBuildId: 'v2', rampPercentage: 10 }),
    ['rollout smoke'],
  ],
  [
    'the target ramping at a percentage not yet known: the gates before any traffic',
    stage({ rampingBuildId: 'v2' }),
    ['rollout smoke', 'step-1 canary-10'],
  ],
  [
    'Progressive without steps, the target ramping: no step gate, the rollout gate behind it',
    stage({ rollout: { strategy: 'Progressive', gate: gate('smoke') }, rampingBuildId: 'v2', rampPercentage: 10 }),
    ['rollout smoke'],
  ],
  [
    'Progressive with an empty list of steps, the target ramping: no step gate, the rollout gate behind it',
    stage({
      rollout: { strategy: 'Progressive', gate: gate('smoke'), steps: [] },
      rampingBuildId: 'v2',
      rampPercentage: 10,
    }),
    ['rollout smoke'],
  ],
];

for (const [title, given, expected] of edgeStages) {
  test(`stages: ${title}`, () => {
    assert.deepEqual(
      gateStages(given).map((s) => `${s.name} ${s.gate.workflowType}`),
      expected,
    );
  });
}

// Every verdict whole, its reason word for word.
const wholeVerdicts: [string, GateCheck, GateVerdict][] = [
  ['nothing started', check({}), { state: 'pending', start: ['a', 'b'], reason: 'gate rollout starts on a, b' }],
  [
    'one completed, one still running: wait on the running one',
    check({ a: run('Completed'), b: run('Running') }),
    { state: 'pending', start: [], reason: 'gate rollout runs on b' },
  ],
  [
    'one completed, one failed before: start the failed one again',
    check({ a: run('Completed'), b: run('Failed') }, { retry: true, stage: 'step-2' }),
    { state: 'pending', start: ['b'], reason: 'gate step-2 starts on b' },
  ],
  [
    'all completed',
    check({ a: run('Completed'), b: run('Completed') }),
    { state: 'passed', reason: 'gate rollout completed on every task queue' },
  ],
  [
    'a failed run with how it ended',
    check({ a: run('Failed', 'failed: bad canary'), b: run('Running') }),
    {
      state: 'failed',
      taskQueue: 'a',
      run: run('Failed', 'failed: bad canary'),
      reason: 'gate rollout failed on task queue a: workflow gate-Failed failed: bad canary',
    },
  ],
  [
    'a failed run that does not say how',
    check({ a: run('Completed'), b: run('Failed') }),
    {
      state: 'failed',
      taskQueue: 'b',
      run: run('Failed'),
      reason: 'gate rollout failed on task queue b: workflow gate-Failed failed',
    },
  ],
  [
    'no task queue yet',
    check({}, { taskQueues: [], stage: 'step-1' }),
    {
      state: 'pending',
      start: [],
      reason:
        "gate step-1 waits for the build's workers to register a task queue for workflows and activities (a build whose workers poll no activities runs its gates on its workflow queues once its registration grace has passed)",
    },
  ],
];

for (const [title, given, expected] of wholeVerdicts) {
  test(`verdict, whole: ${title}`, () => assert.deepEqual(judgeGate(given), expected));
}

test("a gate run's workflow ID names the deployment, build, stage, queue and the gate's own spec", () => {
  assert.equal(
    gateWorkflowId('shop/orders', 'v2', stageOf('step-1'), 'a'),
    `temporal-worker-controller/gate/shop/orders/v2/step-1/a/${gateSpecHash(gate('canary-10'))}`,
  );
  // The canonical JSON of the gate: stable across key orders, and across releases.
  const [ab, ba] = [
    { workflowType: 'x', input: { a: 1, b: 2 } },
    { input: { b: 2, a: 1 }, workflowType: 'x' },
  ];
  assert.equal(gateSpecHash(ab), gateSpecHash(ba));
  assert.notEqual(
    gateSpecHash({ workflowType: 'x', input: { a: 1 } }),
    gateSpecHash({ workflowType: 'x', input: { a: 2 } }),
  );
  assert.match(gateSpecHash(gate('canary-10')), /^[0-9a-f]{10}$/);
});

test('gates run on the workflow task queues that also take activities, sorted', () => {
  assert.deepEqual(gateTaskQueues({ workflow: ['c', 'b', 'a'], activity: ['a', 'c', 'd'] }, false), ['a', 'c']);
  assert.deepEqual(
    gateTaskQueues({ workflow: ['c', 'b', 'a'], activity: ['a', 'c', 'd'] }, true),
    ['a', 'c'],
    'a build that polls activities somewhere keeps the rule after the grace',
  );
});

test('a build that polls no activities at all runs its gates on its workflow queues, once the registration grace has passed', () => {
  assert.deepEqual(
    gateTaskQueues({ workflow: ['b', 'a'], activity: [] }, false),
    [],
    'within the grace: it may yet poll',
  );
  assert.deepEqual(gateTaskQueues({ workflow: ['b', 'a'], activity: [] }, true), ['a', 'b']);
});

const failureAt = (generation: number, failedStage: string) => ({
  generation,
  stage: failedStage,
  workflowID: 'gate-x',
  message: 'gate x failed',
});

test('a failure remembered before spec hashes, seen at this generation: nothing is read, the rollout stays stopped', () => {
  const previous = { gates: [remembered('rollout', 'Failed')], gateFailure: failureAt(3, 'rollout') };
  assert.equal(gateToRead({ ...twoStages, previous }), undefined);
  assert.deepEqual(decideGates({ ...twoStages, previous }, undefined), {
    gate: 'failed',
    memory: previous,
    starts: [],
    failure: {
      reason: 'GateFailed',
      message:
        'gate x failed; the rollout of build v2 stops, its Pods stay for the workflows already on it; change that gate in the spec or set annotation temporal.io/retry-gate to a new value to run the gate again',
    },
  });
  const stepFailed = { gateFailure: failureAt(3, 'step-1') };
  assert.deepEqual(decideGates({ ...twoStages, previous: stepFailed }, undefined), {
    gate: 'failed',
    memory: stepFailed,
    starts: [],
    failure: {
      reason: 'RolloutAborted',
      message:
        'gate x failed; the rollout of build v2 stops and its ramp is removed, its Pods stay for the workflows already on it; change that gate in the spec or set annotation temporal.io/retry-gate to a new value to run the gate again',
    },
  });
});

test('a failure remembered before spec hashes, of an older generation: the gate is read and its failed run started again', () => {
  const previous = { gates: [remembered('rollout', 'Failed')], gateFailure: failureAt(2, 'rollout') };
  assert.equal(gateToRead({ ...twoStages, previous })?.name, 'rollout');
  const again = decideGates(
    { ...twoStages, previous },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: { workflowId: 'x', status: 'Failed', message: 'boom' } } },
  );
  assert.deepEqual(again, {
    gate: 'pending',
    memory: { gates: [startedNow('rollout')] },
    starts: [
      {
        stage: 'rollout',
        taskQueue: 'a',
        workflowId: idOn('rollout', 'a'),
        gate: gate('smoke'),
      },
    ],
    waiting: 'gate rollout starts on a',
  });
});

test('a stage is complete only when every remembered run of it completed', () => {
  const previous = {
    gates: [remembered('rollout', 'Completed'), { ...remembered('rollout', 'Running'), taskQueue: 'b' }],
  };
  assert.equal(gateToRead({ ...twoStages, previous })?.name, 'rollout');
});

test('nothing known nor read: pending, nothing remembered, nothing started', () => {
  assert.deepEqual(decideGates({ ...twoStages, previous: undefined }, undefined), {
    gate: 'pending',
    memory: {},
    starts: [],
  });
  assert.deepEqual(decideGates({ ...twoStages, stages: [], previous: undefined }, undefined), {
    gate: 'passed',
    memory: {},
    starts: [],
  });
});

test('a run the status saw running that no decision remembers is ended, with why; an unread stage keeps its runs and those after it', () => {
  const running = remembered('rollout', 'Running');
  const noGates = decideGates({ ...twoStages, stages: [], previous: { gates: [running] } }, undefined);
  assert.equal(noGates.gate, 'passed');
  assert.deepEqual(noGates.memory, {});
  assert.deepEqual(noGates.ended, [{ run: running, why: 'no rollout of build v2 waits for gate rollout any more' }]);

  const completedStep = remembered('step-1', 'Completed');
  const onlyRunning = decideGates({ ...twoStages, stages: [], previous: { gates: [completedStep] } }, undefined);
  assert.equal(onlyRunning.ended, undefined, 'a run that ended is only forgotten');

  const onB = { ...running, taskQueue: 'b', workflowID: idOn('rollout', 'b') };
  const poolGone = decideGates(
    { ...twoStages, expectedQueues: ['a'], previous: { gates: [running, onB] } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: ownRun('rollout', 'Running') } },
  );
  assert.deepEqual(poolGone.memory.gates, [running]);
  assert.deepEqual(poolGone.ended, [{ run: onB, why: 'no pool of build v2 polls task queue b any more' }]);

  const stepRunning = remembered('step-1', 'Running');
  const unread = decideGates({ ...twoStages, previous: { gates: [running, stepRunning] } }, undefined);
  assert.deepEqual(unread.memory.gates, [running, stepRunning], 'nothing read, nothing judged: all remembered');
  assert.equal(unread.ended, undefined);

  const rolloutAgain = decideGates(
    { ...twoStages, previous: { gates: [running, stepRunning] } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: ownRun('rollout', 'Running') } },
  );
  assert.deepEqual(rolloutAgain.ended, [
    { run: stepRunning, why: 'a gate before step-1 is judged again first, and step-1 runs again after it' },
  ]);
});

test('a failed run stops the gate; a queue without a run is remembered as running', () => {
  const decision = decideGates(
    { ...twoStages, previous: { gates: [remembered('rollout', 'Running')] } },
    {
      stage: 'rollout',
      taskQueues: ['a', 'b'],
      runs: { a: ownRun('rollout', 'Failed', { message: 'boom' }) },
    },
  );
  assert.deepEqual(decision, {
    gate: 'failed',
    memory: {
      gates: [
        remembered('rollout', 'Failed'),
        { stage: 'rollout', taskQueue: 'b', workflowID: idOn('rollout', 'b'), status: 'Running' },
      ],
      gateFailure: {
        generation: 3,
        specHash: gateSpecHash(gate('smoke')),
        stage: 'rollout',
        workflowID: idOn('rollout', 'a'),
        message: `gate rollout failed on task queue a: workflow ${idOn('rollout', 'a')} boom`,
      },
    },
    starts: [],
    failure: {
      reason: 'GateFailed',
      message: `gate rollout failed on task queue a: workflow ${idOn('rollout', 'a')} boom; the rollout of build v2 stops, its Pods stay for the workflows already on it; change that gate in the spec or set annotation temporal.io/retry-gate to a new value to run the gate again`,
    },
  });
});

test('a gate still running: pending, its runs remembered, no pass said', () => {
  assert.deepEqual(
    decideGates(
      { ...twoStages, previous: { gates: [remembered('rollout', 'Running')] } },
      { stage: 'rollout', taskQueues: ['a'], runs: { a: ownRun('rollout', 'Running') } },
    ),
    {
      gate: 'pending',
      memory: { gates: [remembered('rollout', 'Running')] },
      starts: [],
      waiting: 'gate rollout runs on a',
    },
  );
});

const stuckRun = (runId = OWN_RUN): GateRun =>
  ownRun('rollout', 'Running', { runId, stuck: 'its workflow task fails: no such workflow type' });

test('a run whose workflow task keeps failing is said to be stuck: the gate still holds traffic', () => {
  const decision = decideGates(
    { ...twoStages, previous: { gates: [remembered('rollout', 'Running', 3)] } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: stuckRun() } },
  );
  assert.equal(decision.gate, 'pending');
  assert.deepEqual(decision.starts, []);
  assert.deepEqual(decision.failure, {
    reason: 'GateStuck',
    message: `gate rollout cannot progress on task queue a: workflow ${stuckRun().workflowId} (smoke) runs, but its workflow task fails: no such workflow type; traffic stays where it is: fix the gate in the spec (a change of the gate replaces the run) or set annotation temporal.io/retry-gate to a new value to run it again`,
  });
  assert.deepEqual(decision.memory, { gates: [remembered('rollout', 'Running', 3)] });
});

test('a new spec of the gate has runs of its own: one of the old spec still running is ended, a new one started; a new generation alone changes nothing', () => {
  const oldSpec = { name: 'rollout', gate: gate('smoke-v0') };
  const otherSpec = {
    ...remembered('rollout', 'Running', 2),
    workflowID: gateWorkflowId('shop/orders', 'v2', oldSpec, 'a'),
  };
  const older = { ...twoStages, previous: { gates: [otherSpec] } };
  assert.equal(gateToRead(older)?.name, 'rollout', 'not complete: read under the present spec');
  const replaced = decideGates(older, { stage: 'rollout', taskQueues: ['a'], runs: { a: undefined } });
  assert.deepEqual(replaced.starts, [
    { stage: 'rollout', taskQueue: 'a', workflowId: idOn('rollout', 'a'), gate: gate('smoke') },
  ]);
  assert.deepEqual(replaced.ended, [
    { run: otherSpec, why: 'it was started for another spec of the gate, which no longer stands' },
  ]);
  assert.deepEqual(replaced.memory, { gates: [startedNow('rollout')] });

  const running = ownRun('rollout', 'Running');
  const same = decideGates(
    { ...twoStages, previous: { gates: [remembered('rollout', 'Running', 2)] } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: running } },
  );
  assert.deepEqual([same.starts, same.ended], [[], undefined], 'a run of this spec, an older generation: left to run');
  assert.deepEqual(same.memory, { gates: [remembered('rollout', 'Running', 2)] });
  const completed = decideGates(
    { ...twoStages, previous: { gates: [remembered('rollout', 'Completed', 2)] } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: ownRun('rollout', 'Completed') } },
  );
  assert.deepEqual(completed.starts, []);
  assert.equal(completed.passed, 'gate rollout completed on every task queue for build v2');
  const passedForOther = { gates: [{ ...otherSpec, status: 'Completed' }] };
  assert.equal(
    gateToRead({ ...twoStages, previous: passedForOther })?.name,
    'rollout',
    'a pass of another spec does not count',
  );
});

test('a stage passed on some queues is not complete while a queue the pools name has no run (a pool added later)', () => {
  const passedOnA = { gates: [remembered('rollout', 'Completed')], gatePoolQueues: ['a'] };
  assert.equal(gateToRead({ ...twoStages, expectedQueues: ['a'], previous: passedOnA })?.name, 'step-1');
  const withoutPools = { gates: [remembered('rollout', 'Completed')] };
  assert.equal(gateToRead({ ...twoStages, previous: withoutPools })?.name, 'step-1', 'no pools: the queues run say it');
  assert.equal(gateToRead({ ...twoStages, expectedQueues: ['a', 'b'], previous: passedOnA })?.name, 'rollout');
});

test('a failure holds through any other change of the spec, and is lifted by a change of the failed gate', () => {
  const failure = { ...failureAt(1, 'rollout'), specHash: gateSpecHash(gate('smoke')) };
  const previous = { gates: [remembered('rollout', 'Failed', 1)], gateFailure: failure };
  assert.equal(gateToRead({ ...twoStages, generation: 7, previous }), undefined, 'a later generation: still failed');
  assert.equal(decideGates({ ...twoStages, generation: 7, previous }, undefined).gate, 'failed');
  const fixed = { ...twoStages.rollout, gate: gate('smoke-fixed') };
  const stages = [{ name: 'rollout', gate: gate('smoke-fixed') }];
  assert.equal(gateToRead({ ...twoStages, rollout: fixed, stages, previous })?.name, 'rollout', 'the gate changed');
  const stepFailed = { gateFailure: { ...failureAt(1, 'step-1'), specHash: gateSpecHash(gate('canary-10')) } };
  assert.equal(
    decideGates({ ...twoStages, stages: [], generation: 9, previous: stepFailed }, undefined).gate,
    'failed',
    'a failed step gate holds where the rollout no longer stands before it (its ramp was removed)',
  );
});

test('the retry annotation: a failure of this generation is read and run again, a stuck run replaced, each value once', () => {
  const failedNow = { gates: [remembered('rollout', 'Failed', 3)], gateFailure: failureAt(3, 'rollout') };
  const failedRun = ownRun('rollout', 'Failed', { message: 'boom' });
  assert.equal(gateToRead({ ...twoStages, previous: failedNow }), undefined, 'without a retry nothing is read');
  assert.equal(gateToRead({ ...twoStages, previous: failedNow, retry: 'one' })?.name, 'rollout');
  const retried = decideGates(
    { ...twoStages, previous: failedNow, retry: 'one' },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: failedRun } },
  );
  assert.deepEqual(
    retried.starts.map((s) => s.taskQueue),
    ['a'],
  );
  assert.deepEqual(retried.memory, { gates: [startedNow('rollout')], gateRetry: 'one' });

  const stuckNow = { gates: [{ ...remembered('rollout', 'Running', 3), runID: 'r7' }] };
  const replaced = decideGates(
    { ...twoStages, previous: stuckNow, retry: 'two' },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: stuckRun('r7') } },
  );
  assert.deepEqual(
    replaced.starts.map((s) => s.replaces),
    [{ runId: 'r7', why: 'it cannot progress and annotation temporal.io/retry-gate=two asks for a new run' }],
  );
  assert.equal(replaced.failure, undefined, 'the new run is not yet stuck');
  assert.equal(replaced.memory.gateRetry, 'two');

  const actedOn = decideGates(
    { ...twoStages, previous: { ...failedNow, gateRetry: 'one' } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: failedRun } },
  );
  assert.equal(actedOn.gate, 'failed', 'a value acted on does not retry again');
  assert.equal(actedOn.memory.gateRetry, 'one', 'and stays remembered');
});

test('the retry annotation leaves a healthy running run alone; what dates a run is its own stage and queue', () => {
  const running = ownRun('rollout', 'Running');
  const healthy = decideGates(
    { ...twoStages, previous: { gates: [remembered('rollout', 'Running', 3)] }, retry: 'three' },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: running } },
  );
  assert.deepEqual(healthy.starts, [], 'nothing to retry: the run goes on');

  const othersOlder = {
    gates: [
      remembered('rollout', 'Running', 3),
      { ...remembered('rollout', 'Running', 1), taskQueue: 'b' },
      remembered('step-1', 'Running', 1),
    ],
  };
  const mine = decideGates(
    { ...twoStages, previous: othersOlder },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: running } },
  );
  assert.deepEqual(mine.starts, [], "another queue's or stage's older run does not date this one");
  const first = {
    gates: [
      remembered('step-1', 'Running', 1),
      { ...remembered('rollout', 'Running', 1), taskQueue: 'b' },
      remembered('rollout', 'Running', 3),
    ],
  };
  const stillMine = decideGates(
    { ...twoStages, previous: first },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: running } },
  );
  assert.deepEqual(stillMine.starts, [], 'whatever the order of the memory');
});

test("with pools, the gates wait until Temporal lists every pool's task queue: one pool's pass says nothing of another's workers; the wait names the queue", () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const poolDeployment = (queue: string) =>
    ({
      spec: {
        template: { spec: { containers: [{ name: 'worker', env: [{ name: 'TEMPORAL_TASK_QUEUE', value: queue }] }] } },
      },
    }) as V1Deployment;
  const observation = {
    now,
    buildId: 'v2',
    deployments: [
      {
        name: 'orders-main-v2',
        buildId: 'v2',
        pool: 'main',
        available: true,
        availableSince: new Date(now.getTime() - 5_000),
      },
      {
        name: 'orders-batch-v2',
        buildId: 'v2',
        pool: 'batch',
        available: true,
        availableSince: new Date(now.getTime() - 5_000),
      },
    ],
    wanted: [
      { pool: 'main', deployment: poolDeployment('q-main') },
      { pool: 'batch', deployment: poolDeployment('q-batch') },
    ],
  } as unknown as Omit<Observation, 'target'>;
  const listed = (...queues: string[]) => ({ workflow: queues, activity: queues });
  const waiting = gateQueues(observation, listed('q-main'));
  assert.deepEqual(waiting, { taskQueues: [], missing: ['q-batch'] }, 'q-batch not listed yet: no gate starts');
  assert.deepEqual(gateQueues(observation, listed('q-main', 'q-batch')), { taskQueues: ['q-batch', 'q-main'] });
  const verdict = judgeGate({ stage: 'rollout', ...waiting, runs: {}, retry: false, replace: [] });
  assert.equal(verdict.state, 'pending');
  assert.match(verdict.reason, /waits for the build's workers to poll task queue q-batch for workflows and activities/);

  // A pool's Deployment not yet available: its queue may not be listed yet, whatever Temporal lists.
  const [main, batch] = observation.deployments;
  const batchStarting = { ...observation, deployments: [main!, { ...batch!, available: false }] };
  const unavailable = gateQueues(batchStarting, listed('q-main', 'q-batch'));
  assert.deepEqual(unavailable, { taskQueues: [], unavailable: ['pool batch'] });
  assert.match(
    judgeGate({ stage: 'rollout', ...unavailable, runs: {}, retry: false, replace: [] }).reason,
    /waits for the Deployment of pool batch to be available/,
  );
  const pooledOnly = { ...observation, wanted: [{ deployment: poolDeployment('orders') }] };
  assert.deepEqual(
    gateQueues(pooledOnly, listed('q-main', 'q-batch')),
    { taskQueues: [], unavailable: ['the build'] },
    'pools dropped: the Deployment that replaces them first',
  );
});

test('a pass holds for the layout of pools it was read under: pools added or removed since have the gate read again', () => {
  const passed = { gates: [remembered('rollout', 'Completed')], gatePoolQueues: ['a'] };
  const onA = { ...twoStages, expectedQueues: ['a'] };
  assert.equal(gateToRead({ ...onA, previous: passed })?.name, 'step-1', 'the same layout: passed');
  assert.equal(gateToRead({ ...twoStages, previous: passed })?.name, 'rollout', 'pools removed: read again');
  assert.equal(gateToRead({ ...onA, previous: { gates: passed.gates } })?.name, 'rollout', 'the layout not remembered');
  const read = decideGates(
    { ...onA, previous: { gates: [remembered('rollout', 'Running')] } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: ownRun('rollout', 'Completed') } },
  );
  assert.deepEqual(read.memory.gatePoolQueues, ['a'], 'remembered with the runs read');
  const noPools = decideGates(
    { ...twoStages, previous: { gates: [remembered('rollout', 'Running')] } },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: ownRun('rollout', 'Completed') } },
  );
  assert.equal('gatePoolQueues' in noPools.memory, false, 'none without pools');
  // Pools removed, the Deployment replacing them not yet available: no run is judged, so the runs
  // remembered keep the layout they were read under, and are read again once it is (seed 72844).
  const waiting = decideGates(
    { ...twoStages, previous: passed },
    { stage: 'rollout', taskQueues: [], unavailable: ['the build'], runs: {} },
  );
  assert.deepEqual(waiting.memory.gatePoolQueues, ['a'], 'nothing read under the new layout');
  assert.equal(gateToRead({ ...twoStages, previous: waiting.memory })?.name, 'rollout', 'still to be read again');
});

test("a run under the gate's workflow ID that the controller did not start passes nothing: a running one is terminated, the gate runs again, and it is reported", () => {
  const recorded = { ...twoStages, previous: { gates: [remembered('rollout', 'Running')] } };
  const forged: [string, GateContext, GateRun, RegExp][] = [
    [
      'no run recorded (started by anyone before the controller)',
      { ...twoStages, previous: listedBefore },
      ownRun('rollout', 'Completed'),
      /the status records no run the controller started under that ID/,
    ],
    [
      'another run under the same ID (TerminateExisting)',
      recorded,
      ownRun('rollout', 'Completed', { runId: 'forged' }),
      /the controller started run r1, not this one/,
    ],
    ['another type', recorded, ownRun('rollout', 'Completed', { workflowType: 'noop' }), /workflow type is noop/],
    [
      'pinned to another build',
      recorded,
      ownRun('rollout', 'Completed', { pinnedTo: { deploymentName: 'shop/orders', buildId: 'v1' } }),
      /not pinned to build v2 of Worker Deployment shop\/orders/,
    ],
    ['not pinned at all', recorded, ownRun('rollout', 'Completed', { pinnedTo: undefined }), /not pinned to build v2/],
  ];
  for (const [what, context, run, why] of forged) {
    const decision = decideGates(context, { stage: 'rollout', taskQueues: ['a'], runs: { a: run } });
    assert.equal(decision.gate, 'pending', `${what}: the gate does not pass`);
    assert.equal(decision.passed, undefined, what);
    assert.deepEqual(
      decision.starts,
      [{ stage: 'rollout', taskQueue: 'a', workflowId: idOn('rollout', 'a'), gate: gate('smoke') }],
      `${what}: the controller's own run starts (a completed run is closed: nothing to terminate)`,
    );
    assert.deepEqual(decision.memory.gates, [startedNow('rollout')], `${what}: its run ID is not remembered`);
    assert.match(decision.foreign ?? '', why, what);
    assert.match(decision.foreign ?? '', new RegExp(`completed run ${run.runId} of workflow ${idOn('rollout', 'a')}`));
  }

  const running = decideGates(recorded, {
    stage: 'rollout',
    taskQueues: ['a'],
    runs: { a: ownRun('rollout', 'Running', { runId: 'forged' }) },
  });
  assert.deepEqual(
    running.starts.map((s) => s.replaces),
    [{ runId: 'forged', why: 'it is not the run the controller started: the controller started run r1, not this one' }],
    'a running one is terminated, that very run, before the gate starts',
  );
  assert.match(running.foreign ?? '', /running run forged/);
});

test('a failed run the controller did not start is run again, unreported: it passes nothing, and an earlier rollout of the build leaves such runs', () => {
  const decision = decideGates(
    { ...twoStages, previous: listedBefore },
    { stage: 'rollout', taskQueues: ['a'], runs: { a: ownRun('rollout', 'Failed', { message: 'boom' }) } },
  );
  assert.equal(decision.gate, 'pending', 'not failed: the run does not judge this rollout');
  assert.deepEqual(
    decision.starts.map((s) => s.taskQueue),
    ['a'],
  );
  assert.equal(decision.foreign, undefined);
});

test('a pass remembered without a run ID (by a controller that recorded none) is read again', () => {
  assert.equal(
    gateToRead({ ...twoStages, previous: { gates: [unrecorded('rollout', 'Completed')] } })?.name,
    'rollout',
  );
  assert.equal(gateToRead({ ...twoStages, previous: { gates: [remembered('rollout', 'Completed')] } })?.name, 'step-1');
});

test("the runs remembered stay while the gate cannot be judged (its queues not known yet, its runs not read): their run IDs are what tells them from anyone else's", () => {
  const previous = { gates: [remembered('rollout', 'Running')] };
  const noQueues = decideGates(
    { ...twoStages, previous },
    { stage: 'rollout', taskQueues: [], unavailable: ['pool a'], runs: {} },
  );
  assert.deepEqual(noQueues.memory.gates, previous.gates);
  assert.deepEqual(decideGates({ ...twoStages, previous }, undefined).memory.gates, previous.gates);
});

test("a gate's first run on a queue waits until the queue's partitions know the build: QUEUE_PROPAGATION_MS after Temporal first listed it; a pool added later waits for its own queue only", () => {
  const at = (seconds: number) => new Date(twoStages.now.getTime() + seconds * 1000);
  const context = { ...twoStages, expectedQueues: ['a', 'b'], previous: undefined };
  const queues = { stage: 'rollout', taskQueues: ['a', 'b'], runs: {} };
  const listed = { taskQueues: ['a', 'b'], since: twoStages.now.toISOString() };
  const first = decideGates(context, queues);
  assert.deepEqual([first.gate, first.starts, first.memory.gateQueuesListed], ['pending', [], listed]);
  assert.deepEqual(first.recheckAt, at(QUEUE_PROPAGATION_MS / 1000), 'looked at again when the wait ends');
  assert.deepEqual(
    first.memory.gates?.map((g) => `${g.taskQueue} ${g.status} ${g.runID}`),
    ['a Waiting undefined', 'b Waiting undefined'],
  );
  assert.equal(
    first.waiting,
    `gate rollout starts on a, b at ${at(10).toISOString()}, 10 s after Temporal listed the queue for build v2: until each of the queue's partitions knows the build, Temporal sends the activities of a workflow pinned to it to the current build`,
  );
  const later = decideGates({ ...context, now: at(9), previous: first.memory }, queues);
  assert.deepEqual(
    [later.starts, later.memory.gateQueuesListed],
    [[], listed],
    'the wait counts from the first listing',
  );
  const due = decideGates({ ...context, now: at(10), previous: later.memory }, queues);
  assert.deepEqual(
    due.starts.map((s) => s.taskQueue),
    ['a', 'b'],
  );
  assert.equal(due.recheckAt, undefined);

  // Pool c added once the gate passed on a and b: c waits from when it is listed; a and b's runs stand.
  const passed = {
    gates: [
      remembered('rollout', 'Completed'),
      { ...remembered('rollout', 'Completed'), taskQueue: 'b', workflowID: idOn('rollout', 'b') },
    ],
    gatePoolQueues: ['a', 'b'],
    gateQueuesListed: listed,
  };
  const withC = decideGates(
    { ...context, expectedQueues: ['a', 'b', 'c'], now: at(600), previous: passed },
    {
      stage: 'rollout',
      taskQueues: ['a', 'b', 'c'],
      runs: {
        a: ownRun('rollout', 'Completed'),
        b: ownRun('rollout', 'Completed', { workflowId: idOn('rollout', 'b') }),
      },
    },
  );
  assert.deepEqual([withC.gate, withC.starts], ['pending', []]);
  assert.deepEqual(withC.memory.gateQueuesListed, { taskQueues: ['a', 'b', 'c'], since: at(600).toISOString() });
  assert.deepEqual(
    withC.memory.gates?.map((g) => `${g.taskQueue} ${g.status} ${g.runID}`),
    ['a Completed r1', 'b Completed r1', 'c Waiting undefined'],
    'c is remembered without a run, so the stage is not complete without it, nor taken for started',
  );
  assert.match(withC.waiting ?? '', /^gate rollout starts on c at /);
});
