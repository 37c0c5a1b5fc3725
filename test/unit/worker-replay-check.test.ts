// The replay check's activity before it replays anything: the input it refuses, the runs it skips
// (gone from Temporal, too large) without fetching their histories, and the worker of another build
// it refuses to run on. What replays and what does not, the real environment shows
// (test/integration/replay-gate.test.ts).
import { type Context, asyncLocalStorage } from '@temporalio/activity';
import { ApplicationFailure, type Client, WorkflowNotFoundError } from '@temporalio/client';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ACTIVITY_ON_ANOTHER_BUILD,
  MAX_CHECKED_WORKFLOWS,
  replayCheckActivities,
} from '../../packages/worker/src/index.ts';
import type { ReplayCheckInput, ReplayCheckOutcome } from '../../packages/worker/src/workflow.ts';

/** A run Temporal has, by run ID, with its history's size; absent: gone. */
type Runs = Record<string, { historySize: number }>;

/** The activity on a client that knows `runs`, as a worker of v2 runs it for a check pinned to `checkBuild`. */
async function checkOn(
  input: ReplayCheckInput,
  runs: Runs,
  checkBuild = 'v2',
): Promise<{ outcome: ReplayCheckOutcome; calls: string[] }> {
  const calls: string[] = [];
  const client = {
    workflow: {
      getHandle: (workflowId: string, runId: string) => ({
        describe: () => {
          calls.push(`describe ${workflowId}/${runId}`);
          if (runId === 'check-run') {
            const version = { deploymentName: 'ns/orders', buildId: checkBuild };
            return Promise.resolve({
              raw: { workflowExecutionInfo: { versioningInfo: { versioningOverride: { pinned: { version } } } } },
            });
          }
          const run = runs[runId];
          if (!run) return Promise.reject(new WorkflowNotFoundError('not found', workflowId, runId));
          return Promise.resolve({ type: 'order', historySize: run.historySize });
        },
        fetchHistory: () => {
          calls.push(`fetchHistory ${workflowId}/${runId}`);
          return Promise.resolve({ events: [] });
        },
      }),
    },
    connection: {
      close: () => {
        calls.push('close');
        return Promise.resolve();
      },
    },
  } as unknown as Client;
  const activities = replayCheckActivities({
    namespace: 'default',
    deploymentName: 'ns/orders',
    buildId: 'v2',
    client: () => Promise.resolve(client),
    workflowBundle: () => Promise.reject(new Error('no bundle: nothing was to be replayed')),
  });
  const context = { info: { workflowExecution: { workflowId: 'check', runId: 'check-run' } } } as unknown as Context;
  const outcome = await asyncLocalStorage.run(context, () => activities.replayHistories(input));
  return { outcome, calls };
}

test('runs gone from Temporal and runs larger than maxHistoryBytes do not replay, each says why, and their histories are not fetched', async () => {
  const workflows = [
    { workflowId: 'a', runId: 'ra' },
    { workflowId: 'b', runId: 'rb' },
  ];
  const { outcome, calls } = await checkOn({ workflows, maxHistoryBytes: 100 }, { rb: { historySize: 101 } });
  assert.deepEqual(outcome, {
    results: [
      { workflowId: 'a', runId: 'ra', replays: false, skipped: 'Temporal no longer has this run' },
      {
        workflowId: 'b',
        runId: 'rb',
        workflowType: 'order',
        replays: false,
        skipped: 'its history is 101 bytes, more than maxHistoryBytes (100)',
      },
    ],
  });
  assert.deepEqual(calls, ['describe check/check-run', 'describe a/ra', 'describe b/rb', 'close']);
});

test('maxHistoryBytes is 10 MiB unless the input says', async () => {
  const { outcome } = await checkOn(
    { workflows: [{ workflowId: 'w', runId: 'r1' }] },
    { r1: { historySize: 10 * 1024 * 1024 + 1 } },
  );
  assert.deepEqual(
    outcome.results.map((r) => r.skipped),
    ['its history is 10485761 bytes, more than maxHistoryBytes (10485760)'],
  );
});

test('on a worker of another build than the check is pinned to, the activity refuses, to be tried again, before reading any run', async () => {
  await assert.rejects(
    checkOn({ workflows: [{ workflowId: 'w', runId: 'r1' }] }, { r1: { historySize: 1 } }, 'v3'),
    (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure, String(error));
      assert.equal(error.type, ACTIVITY_ON_ANOTHER_BUILD);
      assert.equal(error.nonRetryable, false);
      assert.match(error.message, /^the replay check of build v3 had its activity run by a worker of build v2/);
      return true;
    },
  );
});

test('input that is not a bounded list of runs fails the check at once, naming the field, before any client is made', async () => {
  const activities = replayCheckActivities({
    namespace: 'default',
    deploymentName: 'ns/orders',
    buildId: 'v2',
    client: () => Promise.reject(new Error('no client should be made')),
    workflowBundle: () => Promise.reject(new Error('no bundle should be made')),
  });
  const many = Array.from({ length: MAX_CHECKED_WORKFLOWS + 1 }, (_, i) => ({ workflowId: `w${i}`, runId: `r${i}` }));
  const cases: [unknown, RegExp][] = [
    [undefined, /^workflows: a list of \{ workflowId, runId \} is required$/],
    [{ workflows: 'w' }, /^workflows: a list/],
    [{ workflows: many }, /^workflows: 1001 runs, at most 1000 a check$/],
    [
      { workflows: [{ workflowId: 'w', runId: 'r' }, { workflowId: 'x' }] },
      /^workflows\[1\]: workflowId and runId are required$/,
    ],
    [{ workflows: [{ workflowId: '', runId: 'r' }] }, /^workflows\[0\]: workflowId and runId are required$/],
    [{ workflows: [], maxHistoryBytes: 0 }, /^maxHistoryBytes: 0 is not a positive integer$/],
  ];
  for (const [input, message] of cases)
    await assert.rejects(activities.replayHistories(input as ReplayCheckInput), (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure, String(error));
      assert.equal(error.type, 'InvalidCheckInput');
      assert.equal(error.nonRetryable, true);
      assert.match(error.message, message);
      return true;
    });
});
