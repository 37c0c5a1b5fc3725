// The replay gate: which workflows it replays (auto-upgrade ones by default, running ones first),
// and its account of a divergence, from the replayer's error as the SDK words it: the core's own
// reason, and the first event that diverged, named from the history.
import { ApplicationFailure, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncLocalStorage, type Context } from '@temporalio/activity';
import {
  ACTIVITY_ON_ANOTHER_BUILD,
  divergedEvent,
  replayGateActivities,
  sdkReason,
} from '../../packages/worker/src/index.ts';
import { replayedWorkflowsQuery } from '../../packages/worker/src/replay-gate.ts';
import type { ReplayGateInput } from '../../packages/worker/src/workflow.ts';

const { EventType } = proto.temporal.api.enums.v1;
// As a breaking `order` (a timer before its activity) failed to replay on the test environment.
const seen =
  'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible with the history that was fed in. Details: Workflow activation completion failed: Failure { failure: Some(Failure { message: "[TMPRL1100] Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)", source: "" }) }';

const history = {
  events: [1, 2, 3, 4]
    .map((eventId) => ({ eventId, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED }))
    .concat([{ eventId: 5, eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED }]),
} as unknown as Parameters<typeof divergedEvent>[1];

test("the core's reason, out of the replayer's wrapping", () => {
  assert.equal(
    sdkReason(seen),
    '[TMPRL1100] Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)',
  );
  assert.equal(sdkReason('Workflow type order not found'), 'Workflow type order not found', 'else the whole message');
});

test('the first event that diverged, by the id the error gives, with its type from the history', () => {
  assert.equal(divergedEvent(seen, history), '5 ActivityTaskScheduled');
  assert.equal(divergedEvent(seen, undefined), '5', 'no history: the id alone');
  assert.equal(divergedEvent('Workflow type order not found', history), undefined, 'no id: none said');
});

const since = new Date('2026-11-25T10:00:00Z');

test('what the gate replays: the workflows of the behaviours asked whose last task ran on the current build, running or closed since', () => {
  assert.equal(
    replayedWorkflowsQuery('ns/orders', 'v1', ['AutoUpgrade']),
    "TemporalWorkerDeploymentVersion = 'ns/orders:v1' AND TemporalWorkflowVersioningBehavior IN ('AutoUpgrade') AND ExecutionStatus = 'Running'",
  );
  assert.equal(
    replayedWorkflowsQuery('ns/orders', 'v1', ['AutoUpgrade', 'Pinned'], since),
    "TemporalWorkerDeploymentVersion = 'ns/orders:v1' AND TemporalWorkflowVersioningBehavior IN ('AutoUpgrade', 'Pinned') AND ExecutionStatus != 'Running' AND CloseTime > '2026-11-25T10:00:00.000Z'",
  );
});

/**
 * The gate's activity on a client whose current build is v1 and whose visibility lists nothing,
 * run as a worker of `workerBuild` runs it, for a gate pinned to `gateBuild`: the gate's runs it
 * describes and the queries it lists, in order.
 */
async function gateOn(
  input: ReplayGateInput,
  { workerBuild = 'v2', gateBuild = 'v2' } = {},
): Promise<{ described: string[]; lists: { query: string; pageSize: number }[] }> {
  const seen = { described: [] as string[], lists: [] as { query: string; pageSize: number }[] };
  const client = {
    workflowService: {
      describeWorkerDeployment: () =>
        Promise.resolve({ workerDeploymentInfo: { routingConfig: { currentDeploymentVersion: { buildId: 'v1' } } } }),
    },
    workflow: {
      getHandle: (workflowId: string, runId: string) => ({
        describe: () => {
          seen.described.push(`${workflowId}/${runId}`);
          const version = { deploymentName: 'ns/orders', buildId: gateBuild };
          return Promise.resolve({
            raw: { workflowExecutionInfo: { versioningInfo: { versioningOverride: { pinned: { version } } } } },
          });
        },
      }),
      list: (options: { query: string; pageSize: number }) => {
        seen.lists.push(options);
        return (async function* () {})();
      },
    },
    connection: { close: () => Promise.resolve() },
  } as unknown as Client;
  const activities = replayGateActivities({
    namespace: 'default',
    deploymentName: 'ns/orders',
    buildId: workerBuild,
    client: () => Promise.resolve(client),
    workflowBundle: () => Promise.reject(new Error('nothing to replay: no bundle needed')),
  });
  const context = { info: { workflowExecution: { workflowId: 'gate-v2', runId: 'r1' } } } as unknown as Context;
  assert.deepEqual(await asyncLocalStorage.run(context, () => activities.replayRecentHistories(input)), {
    currentBuildId: 'v1',
    replayed: 0,
    divergences: [],
  });
  return seen;
}

const queriesOf = async (input: ReplayGateInput) => (await gateOn(input)).lists;

test('by default auto-upgrade workflows only, the running ones first, then those closed within maxAgeHours', async () => {
  const before = Date.now();
  const [running, closed, ...more] = await queriesOf({});
  assert.deepEqual(running, { query: replayedWorkflowsQuery('ns/orders', 'v1', ['AutoUpgrade']), pageSize: 20 });
  const closedSince = new Date(/CloseTime > '([^']+)'/.exec(closed?.query ?? '')?.[1] ?? 0);
  assert.deepEqual(closed, {
    query: replayedWorkflowsQuery('ns/orders', 'v1', ['AutoUpgrade'], closedSince),
    pageSize: 20,
  });
  assert.ok(
    Math.abs(before - 24 * 3_600_000 - closedSince.getTime()) < 60_000,
    `24 hours back: ${closedSince.toISOString()}`,
  );
  assert.deepEqual(more, []);

  const widened = await queriesOf({ behaviors: ['AutoUpgrade', 'Pinned'], workflows: 5, maxAgeHours: 1 });
  assert.deepEqual(
    widened.map((l) => [/IN \(([^)]*)\)/.exec(l.query)?.[1], l.pageSize]),
    [
      ["'AutoUpgrade', 'Pinned'", 5],
      ["'AutoUpgrade', 'Pinned'", 5],
    ],
  );
});

test('behaviours other than AutoUpgrade and Pinned, or none, fail the gate at once, before any query', async () => {
  for (const behaviors of [[], ['Pinned', "AutoUpgrade') OR ('a' = 'a"]] as NonNullable<
    ReplayGateInput['behaviors']
  >[]) {
    const activities = replayGateActivities({
      namespace: 'default',
      deploymentName: 'ns/orders',
      buildId: 'v2',
      client: () => Promise.reject(new Error('no client should be made')),
      workflowBundle: () => Promise.reject(new Error('no bundle should be made')),
    });
    await assert.rejects(activities.replayRecentHistories({ behaviors }), (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure, String(error));
      assert.equal(error.nonRetryable, true);
      assert.equal(error.type, 'InvalidGateInput');
      return true;
    });
  }
});

test("on a worker of the gate's own build, the gate replays; the gate's run is described first", async () => {
  const { described, lists } = await gateOn({});
  assert.deepEqual([described, lists.length], [['gate-v2/r1'], 2]);
});

test('on a worker of another build (the current one, whose code replays its own histories), the activity refuses, to be tried again', async () => {
  await assert.rejects(gateOn({}, { workerBuild: 'v1', gateBuild: 'v2' }), (error: unknown) => {
    assert.ok(error instanceof ApplicationFailure, String(error));
    assert.equal(error.type, ACTIVITY_ON_ANOTHER_BUILD);
    assert.equal(error.nonRetryable, false);
    assert.match(error.message, /replay gate of build v2 had its activity run by a worker of build v1/);
    return true;
  });
});
