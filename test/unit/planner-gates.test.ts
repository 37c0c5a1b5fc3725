// Which gate stands before the next routing change, and the verdict on its runs, as tables.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Rollout } from '../../src/api/temporal-worker-deployment.ts';
import {
  type GateCheck,
  type GateRun,
  type GateVerdict,
  gateStage,
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

const stages: [string, StageInput, { name: string; workflowType: string } | undefined][] = [
  ['the rollout gate stands before any traffic', stage({}), { name: 'rollout', workflowType: 'smoke' }],
  ['no gate configured: nothing stands', stage({ rollout: { strategy: 'AllAtOnce' } }), undefined],
  [
    'AllAtOnce: the rollout gate',
    stage({ rollout: { strategy: 'AllAtOnce', gate: gate('smoke') } }),
    { name: 'rollout', workflowType: 'smoke' },
  ],
  [
    'ramping at step 1: its gate',
    stage({ rampingBuildId: 'v2', rampPercentage: 10 }),
    { name: 'step-1', workflowType: 'canary-10' },
  ],
  ['ramping at a step without a gate: nothing stands', stage({ rampingBuildId: 'v2', rampPercentage: 50 }), undefined],
  [
    'ramping at step 3: its gate',
    stage({ rampingBuildId: 'v2', rampPercentage: 80 }),
    { name: 'step-3', workflowType: 'canary-80' },
  ],
  [
    'a ramp changed by hand counts as the step below it',
    stage({ rampingBuildId: 'v2', rampPercentage: 85 }),
    { name: 'step-3', workflowType: 'canary-80' },
  ],
  [
    'another build ramping: the target still faces the rollout gate',
    stage({ rampingBuildId: 'v9', rampPercentage: 10 }),
    { name: 'rollout', workflowType: 'smoke' },
  ],
  ['the target is current: nothing stands', stage({ currentBuildId: 'v2' }), undefined],
];

for (const [title, given, expected] of stages) {
  test(`stage: ${title}`, () => {
    const found = gateStage(given);
    assert.deepEqual(found && { name: found.name, workflowType: found.gate.workflowType }, expected);
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

const edgeStages: [string, StageInput, { name: string; workflowType: string } | undefined][] = [
  [
    'AllAtOnce, the target ramped by hand: the rollout gate, as there are no steps',
    stage({ rollout: { strategy: 'AllAtOnce', gate: gate('smoke') }, rampingBuildId: 'v2', rampPercentage: 10 }),
    { name: 'rollout', workflowType: 'smoke' },
  ],
  [
    'the target ramping at a percentage not yet known: the rollout gate',
    stage({ rampingBuildId: 'v2' }),
    { name: 'rollout', workflowType: 'smoke' },
  ],
  [
    'Progressive without steps, the target ramping: no step, so no gate',
    stage({ rollout: { strategy: 'Progressive', gate: gate('smoke') }, rampingBuildId: 'v2', rampPercentage: 10 }),
    undefined,
  ],
  [
    'Progressive with an empty list of steps, the target ramping: no step, so no gate',
    stage({
      rollout: { strategy: 'Progressive', gate: gate('smoke'), steps: [] },
      rampingBuildId: 'v2',
      rampPercentage: 10,
    }),
    undefined,
  ],
];

for (const [title, given, expected] of edgeStages) {
  test(`stage: ${title}`, () => {
    const found = gateStage(given);
    assert.deepEqual(found && { name: found.name, workflowType: found.gate.workflowType }, expected);
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
      reason: "gate step-1 waits for the build's workers to register a task queue for workflows and activities",
    },
  ],
];

for (const [title, given, expected] of wholeVerdicts) {
  test(`verdict, whole: ${title}`, () => assert.deepEqual(judgeGate(given), expected));
}
