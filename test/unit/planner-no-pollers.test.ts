// NoPollers: a current or ramping build whose Pods have been Ready for a whole poller history, yet
// on one of whose task queues Temporal then remembers no poller of it. Plain data through the pure
// decision, and through the plan: a condition and, when it starts, a Warning event.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PollersSeen } from '../../src/domain/pollers.ts';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import { noPollersCondition, silentQueues, type NoPollersInput } from '../../src/planner/no-pollers.ts';
import { planReconcile } from '../../src/planner/plan.ts';
import type { JoinedVersion } from '../../src/status/versions.ts';
import { config, connection, workerDeployment } from '../support/recorded-world.ts';

const now = new Date('2026-11-23T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const HISTORY = 5 * 60_000;

function version(buildId: string, more: Partial<JoinedVersion> = {}): JoinedVersion {
  return {
    buildId,
    status: 'Current',
    everActive: true,
    deployments: [{ name: `orders-${buildId}` }],
    healthy: true,
    healthySince: minutesAgo(30),
    ...more,
  };
}

const workflow = { name: 'orders', type: 'workflow' as const };
const activity = { name: 'orders', type: 'activity' as const };

/** A read a minute ago of the workflow and activity queue `orders`, each polled by `polledBy`. */
function pollers(polledBy: Record<'workflow' | 'activity', string[]>, readAt = minutesAgo(1)): PollersSeen {
  return {
    readAt,
    workers: {},
    taskQueues: {},
    polled: [
      { ...activity, builds: polledBy.activity },
      { ...workflow, builds: polledBy.workflow },
    ],
  };
}

function input(more: Partial<NoPollersInput> = {}): NoPollersInput {
  return {
    now,
    pollerHistoryMs: HISTORY,
    pollers: pollers({ workflow: [], activity: ['v1'] }),
    versions: [version('v1')],
    taskQueues: { v1: [activity, workflow], v2: [activity, workflow] },
    ...more,
  };
}

/** `build type/queue` of each silent queue, or 'not judged'. */
const said = (i: NoPollersInput) =>
  silentQueues(i)?.map((q) => `${q.buildId} ${q.status} ${q.taskQueue.type}/${q.taskQueue.name}`) ?? 'not judged';

const cases: [string, NoPollersInput, string[] | 'not judged'][] = [
  [
    'the current build, Ready for 29 minutes before the read, with no poller on its workflow queue',
    input(),
    ['v1 Current workflow/orders'],
  ],
  [
    'a ramping build too, on each queue without its poller',
    input({
      versions: [version('v1'), version('v2', { status: 'Ramping', healthySince: minutesAgo(10) })],
      pollers: pollers({ workflow: ['v1'], activity: [] }),
    }),
    ['v1 Current activity/orders', 'v2 Ramping activity/orders', 'v2 Ramping workflow/orders'],
  ],
  ['a build that polls every queue', input({ pollers: pollers({ workflow: ['v1'], activity: ['v1'] }) }), []],
  [
    'Ready for less than the poller history when the pollers were read: its workers may not have polled yet',
    input({ versions: [version('v1', { healthySince: minutesAgo(5.5) })] }),
    [],
  ],
  [
    'Ready for exactly the poller history when they were read: judged',
    input({ versions: [version('v1', { healthySince: minutesAgo(6) })] }),
    ['v1 Current workflow/orders'],
  ],
  [
    'Pods not all Ready: Kubernetes says so already',
    input({ versions: [version('v1', { healthy: false, healthySince: undefined })] }),
    [],
  ],
  ...(['Inactive', 'Draining', 'Drained', 'NotRegistered'] as const).map(
    (status): [string, NoPollersInput, string[]] => [
      `a build that takes no new traffic (${status})`,
      input({ versions: [version('v1', { status })] }),
      [],
    ],
  ),
  [
    'a queue whose pollers were not read is not judged (nexus, or one listed since)',
    input({
      taskQueues: {
        v1: [
          { name: 'orders', type: 'nexus' },
          { name: 'refunds', type: 'workflow' },
        ],
      },
    }),
    [],
  ],
  ['a build whose queues are not known', input({ taskQueues: {} }), []],
  ['pollers not read (--no-backlog-metrics)', input({ pollers: undefined }), 'not judged'],
  [
    'pollers last read longer ago than Temporal remembers them: too old to say',
    input({ pollers: pollers({ workflow: [], activity: [] }, minutesAgo(5.1)) }),
    'not judged',
  ],
];

for (const [title, given, expected] of cases)
  test(`NoPollers: ${title}`, () => assert.deepEqual(said(given), expected));

test('the condition names each build, its queues and Deployments, the deployment name and what to check', () => {
  const silent = silentQueues(
    input({
      versions: [
        version('v1', { deployments: [{ name: 'orders-a-v1' }, { name: 'orders-b-v1' }] }),
        version('v2', { status: 'Ramping', healthySince: minutesAgo(10) }),
      ],
      pollers: pollers({ workflow: [], activity: ['v1'] }),
    }),
  );
  const condition = noPollersCondition(silent ?? [], { temporalName: 'shop/orders', pollerHistoryMs: HISTORY });
  assert.deepEqual(condition, {
    type: 'Degraded',
    status: 'True',
    reason: 'NoPollers',
    message:
      `build v1 is current and its Deployments orders-a-v1, orders-b-v1 have had every Pod Ready since ${minutesAgo(30).toISOString()}, yet Temporal remembers no poller of it on workflow task queue orders within its poller history (5m); ` +
      `build v2 is ramping and its Deployment orders-v2 has had every Pod Ready since ${minutesAgo(10).toISOString()}, yet Temporal remembers no poller of it on activity task queue orders, workflow task queue orders within its poller history (5m): ` +
      "check the workers' TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_DEPLOYMENT_NAME (shop/orders) and TEMPORAL_WORKER_BUILD_ID variables, that they reach Temporal (their logs say so), and that they poll their queues as versioned workers of that deployment name and build ID; nothing is scaled, rolled back or deleted for it",
  });
  assert.equal(noPollersCondition([], { temporalName: 'shop/orders', pollerHistoryMs: HISTORY }), undefined);
});

// Through the plan: v1 current for an hour, its Deployment available for as long, the leader's read
// a minute ago finding no poller of it on its workflow queue.
const v1Current: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v1',
  managerIdentity: config.identity,
  versions: [{ buildId: 'v1', status: 'Current', everActive: true }],
};

function planned(
  status?: Parameters<typeof workerDeployment>[2],
  /** null: not read. */
  seen: PollersSeen | null = pollers({ workflow: [], activity: ['v1'] }),
) {
  return planReconcile(
    {
      now,
      workerDeployment: workerDeployment({ buildId: 'v1' }, {}, status),
      connection: connection(),
      buildId: 'v1',
      temporalName: 'shop/orders',
      deployments: [{ name: 'orders-v1', buildId: 'v1', replicas: 2, available: true, availableSince: minutesAgo(60) }],
      wanted: [{ deployment: {} }],
      replacements: {},
      temporal: v1Current,
      ...(seen ? { pollers: { ...seen, taskQueues: { v1: [workflow, activity] } } } : {}),
    },
    config,
  );
}

test('the plan says Degraded=True/NoPollers, with a Warning event when it starts, and nothing else changes', () => {
  const first = planned();
  const condition = first.conditions.find((c) => c.type === 'Degraded');
  assert.ok(condition);
  assert.equal(condition.reason, 'NoPollers');
  assert.deepEqual(first.notes, [{ type: 'Warning', reason: 'NoPollers', message: condition.message }]);
  assert.equal(first.buildsWithoutPollers, 1);
  assert.deepEqual(first.actions, [], 'nothing scaled, rolled back or deleted');
  assert.deepEqual(first.taskQueues, { v1: [activity, workflow] });

  const stored = { conditions: [{ ...condition, lastTransitionTime: minutesAgo(1).toISOString() }] };
  const again = planned(stored);
  assert.deepEqual(
    again.conditions.find((c) => c.type === 'Degraded'),
    condition,
    'still said while it holds',
  );
  assert.deepEqual(again.notes, [], 'the event is written when it starts, not at every reconcile');

  const polling = planned(stored, pollers({ workflow: ['v1'], activity: ['v1'] }));
  assert.equal(
    polling.conditions.find((c) => c.type === 'Degraded'),
    undefined,
    'gone once its workers poll',
  );
  assert.equal(polling.buildsWithoutPollers, 0);
  const unread = planned(stored, null);
  assert.equal(
    unread.conditions.find((c) => c.type === 'Degraded'),
    undefined,
    'not judged without the pollers',
  );
  assert.equal(unread.buildsWithoutPollers, undefined);
  assert.deepEqual(unread.taskQueues, {}, 'nor listed');
});
