// What the leader reads of Temporal beside the reconciles, over fake caches and a recording
// Temporal on a clock moved by hand: a build's backlog only while something asks for it (a query,
// a scrape, an owned autoscaler that names a backlog metric), read at once when asked first and
// no more once the asks lapse; each build's task queues learnt and confirmed once, then rarely;
// a worker deployment's pollers every third interval while a rollout waits, twice per poller
// history when idle. Idle, one worker deployment with six builds costs the collector one read a
// minute at the defaults.
import type { V1Deployment } from '@kubernetes/client-node';
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import { QUEUES_RELEARN_MS, temporalFigures } from '../../src/controller/temporal-figures.ts';
import { LABELS } from '../../src/domain/labels.ts';
import type { Priority } from '../../src/runtime/work-queue.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import type { WorkflowService } from '../../src/temporal/protocol.ts';
import { TemporalReadBudget } from '../../src/temporal/read-budget.ts';
import { FakeTimers } from '../support/fake-timers.ts';

const { TaskQueueType, WorkerVersioningMode } = proto.temporal.api.enums.v1;
const POLL_MS = 10_000;
const POLLER_HISTORY_MS = 300_000;
const MINUTE = 60_000;
const NAMESPACE = 'shop';
const NAME = 'orders';
type BuildStatus = {
  buildID: string;
  status: string;
  healthySince?: string;
  taskQueues?: { name: string; type: 'workflow' | 'activity' }[];
};

function deployment(buildId: string, replicas = 1, available = false): V1Deployment {
  return {
    ...(available
      ? {
          status: {
            replicas,
            updatedReplicas: replicas,
            availableReplicas: replicas,
            conditions: [{ type: 'Available', status: 'True' }],
          },
        }
      : {}),
    metadata: {
      namespace: NAMESPACE,
      name: `${NAME}-${buildId}`,
      labels: { [LABELS.deploymentName]: NAME, [LABELS.buildId]: buildId },
      ownerReferences: [
        {
          apiVersion: 'temporal.io/v1alpha1',
          kind: 'TemporalWorkerDeployment',
          name: NAME,
          uid: 'u',
          controller: true,
        },
      ],
    },
    spec: { replicas, selector: {}, template: {} },
  };
}

function autoscaler(name: string, metric: string, buildIds: string[]): TemporalWorkerOwnedResource {
  return {
    metadata: { namespace: NAMESPACE, name },
    spec: {
      workerRef: { name: NAME },
      object: {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        spec: { metrics: [{ type: 'External', external: { metric: { name: metric } } }] },
      },
    },
    status: { versions: buildIds.map((buildID) => ({ buildID, resourceName: `${name}-${buildID}`, applied: true })) },
  } as TemporalWorkerOwnedResource;
}

/**
 * One worker deployment whose builds v1..v6 have Pods, v6 current (the state after five rollouts),
 * a Temporal that lists a workflow and an activity queue for every registered build, and pollers
 * of every build but those in `silent`.
 */
function world({ readsPerSecond = 20 } = {}) {
  const timers = new FakeTimers();
  const calls: string[] = [];
  const enqueued: [string, Priority][] = [];
  const state = {
    deployments: ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'].map((b) => deployment(b)),
    target: 'v6',
    current: 'v6',
    deprecated: ['v1', 'v2', 'v3', 'v4', 'v5'].map((buildID): BuildStatus => ({ buildID, status: 'Drained' })),
    registered: new Set(['v1', 'v2', 'v3', 'v4', 'v5', 'v6']),
    polling: new Set(['v1', 'v2', 'v3', 'v4', 'v5', 'v6']),
    ownedResources: [] as TemporalWorkerOwnedResource[],
    remembered: undefined as BuildStatus['taskQueues'],
    /** Builds Temporal lists whose queues it has not recorded yet. */
    unrecorded: new Set<string>(),
    /** Since when every Deployment of a build is available, as the status says it. */
    healthySince: {} as Record<string, number>,
  };
  const twd = (): TemporalWorkerDeployment => {
    const version = (buildID: string, status: string): BuildStatus => ({
      buildID,
      status: state.registered.has(buildID) ? status : 'NotRegistered',
      ...(state.healthySince[buildID] === undefined
        ? {}
        : { healthySince: new Date(state.healthySince[buildID]).toISOString() }),
      ...(state.remembered ? { taskQueues: state.remembered } : {}),
    });
    return {
      metadata: { namespace: NAMESPACE, name: NAME },
      spec: { workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'default' } },
      status: {
        targetVersion: version(state.target, state.target === state.current ? 'Current' : 'Inactive'),
        currentVersion: version(state.current, 'Current'),
        deprecatedVersions: state.deprecated.map((v) => version(v.buildID, v.status)),
      },
    } as unknown as TemporalWorkerDeployment;
  };
  const connection = { metadata: { name: 'temporal' }, spec: { hostPort: 'temporal:7233' } } as TemporalConnection;
  const service = {
    describeWorkerDeploymentVersion: (request: {
      deploymentVersion: { buildId: string };
      reportTaskQueueStats?: boolean;
    }) => {
      const { buildId } = request.deploymentVersion;
      calls.push(`${request.reportTaskQueueStats ? 'backlog' : 'queues'} ${buildId}`);
      return Promise.resolve({
        versionTaskQueues:
          state.registered.has(buildId) && !state.unrecorded.has(buildId)
            ? [
                { name: NAME, type: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, stats: { approximateBacklogCount: 3 } },
                { name: NAME, type: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, stats: { approximateBacklogCount: 7 } },
              ]
            : [],
      });
    },
    describeTaskQueue: (request: {
      taskQueue: { name: string };
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType;
    }) => {
      calls.push(
        `pollers ${request.taskQueueType === TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW ? 'workflow' : 'activity'}`,
      );
      return Promise.resolve({
        pollers: [...state.polling].map((buildId) => ({
          identity: `worker@${buildId}`,
          deploymentOptions: {
            deploymentName: `${NAMESPACE}/${NAME}`,
            buildId,
            workerVersioningMode: WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED,
          },
        })),
      });
    },
  } as unknown as WorkflowService;
  const reader = temporalFigures({
    caches: {
      deployments: {
        list: (namespace) => (namespace === undefined || namespace === NAMESPACE ? state.deployments : []),
      },
      workerDeployments: { get: (namespace, name) => (namespace === NAMESPACE && name === NAME ? twd() : undefined) },
      ownedResources: { list: () => state.ownedResources },
      connections: { usedBy: () => connection },
    },
    temporal: {
      reads: new TemporalReadBudget({ perSecond: readsPerSecond, timers }),
      paced: () => Promise.resolve(service),
    },
    pollIntervalMs: POLL_MS,
    pollerHistoryMs: POLLER_HISTORY_MS,
    enqueue: (key, priority) => enqueued.push([key, priority]),
    log: silentLogger,
    timers,
  });
  /** The calls made while `ms` pass, counted by kind. */
  const during = async (ms: number): Promise<Record<string, number>> => {
    const from = calls.length;
    await timers.advance(ms);
    const counts: Record<string, number> = {};
    for (const call of calls.slice(from)) counts[call] = (counts[call] ?? 0) + 1;
    return counts;
  };
  return { timers, calls, enqueued, state, reader, during };
}

const readsOf = (counts: Record<string, number>, kind: string) =>
  Object.entries(counts)
    .filter(([call]) => call.startsWith(kind))
    .reduce((sum, [, n]) => sum + n, 0);

test("idle, nothing asked for: no backlog is read; each build's queues are learnt and confirmed once, the pollers read twice per poller history", async () => {
  const { reader, during, calls } = world();
  reader.start();
  const start = await during(MINUTE);
  assert.equal(readsOf(start, 'backlog'), 0, 'no backlog read without demand');
  assert.deepEqual(
    ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'].map((b) => start[`queues ${b}`]),
    [2, 2, 2, 2, 2, 2],
    "each build's queues read once, and once more to confirm them",
  );
  // Thirty idle minutes once started: the steady cost.
  await during(10 * MINUTE);
  const idle = await during(30 * MINUTE);
  assert.equal(readsOf(idle, 'backlog'), 0);
  const perMinute = (kind: string) => readsOf(idle, kind) / 30;
  assert.equal(readsOf(idle, 'queues'), 6, 'each build learnt again once in half an hour');
  // One pollers read of two queues every 150 s (half the poller history): 0.8 a minute.
  assert.ok(Math.abs(perMinute('pollers') - 0.8) <= 0.1, `pollers reads a minute: ${perMinute('pollers')}`);
  const collector = perMinute('queues') + perMinute('pollers');
  assert.ok(collector <= 1.1, `the collector's reads a minute: ${collector} (the reconciles' 6 beside it)`);
  assert.equal(QUEUES_RELEARN_MS, 30 * MINUTE);
  const pollers = reader.pollers(NAMESPACE, NAME);
  assert.deepEqual(pollers?.taskQueues.v3, [
    { name: NAME, type: 'activity' },
    { name: NAME, type: 'workflow' },
  ]);
  assert.deepEqual(pollers?.workers, { v1: 1, v2: 1, v3: 1, v4: 1, v5: 1, v6: 1 });
  assert.ok(calls.length > 0);
  reader.stop();
});

test('a build a query asks for is read at once, then every poll interval while asked for; the demand lapses with the figures', async () => {
  const { reader, during, timers } = world();
  reader.start();
  await during(MINUTE);
  const picks = (build: { buildId: string }) => build.buildId === 'v6';
  assert.deepEqual(reader.backlog({ by: 'query', namespace: NAMESPACE, picks }), [], 'the first ask finds no figures');
  const first = await during(0);
  assert.deepEqual(first, { 'backlog v6': 1 }, 'read at once, not at the next interval; no other build');
  const [figures] = reader.backlog();
  assert.equal(figures?.buildId, 'v6');
  assert.equal(figures?.readAt.getTime(), timers.now());
  assert.deepEqual(
    figures?.queues.map((q) => [q.taskQueue, q.type, q.backlogCount]),
    [
      [NAME, 'activity', 3],
      [NAME, 'workflow', 7],
    ],
  );
  // An HPA asks every 15 s: read every interval meanwhile.
  let asked = 0;
  for (let s = 15; s <= 60; s += 15) {
    asked += (await during(15_000))['backlog v6'] ?? 0;
    reader.backlog({ by: 'query', namespace: NAMESPACE, picks });
  }
  assert.ok(asked >= 5 && asked <= 6, `reads of v6 in a minute of asks: ${asked}`);
  assert.equal(readsOf(await during(0), 'backlog'), 0);
  // No ask any more: read until two minutes after the last one, then no more, and nothing served.
  const after = await during(2 * MINUTE);
  assert.ok((after['backlog v6'] ?? 0) >= 11, `read on for the lapse: ${after['backlog v6']}`);
  assert.equal(readsOf(await during(5 * MINUTE), 'backlog'), 0, 'lapsed: no more reads');
  assert.deepEqual(reader.backlog(), [], 'nor figures');
  reader.stop();
});

test('a scrape of the gauges asks for every build; a selector that picks none asks for none', async () => {
  const { reader, during } = world();
  reader.start();
  await during(MINUTE);
  reader.backlog({ by: 'query', namespace: NAMESPACE, picks: () => false });
  reader.backlog({ by: 'query', namespace: 'elsewhere', picks: () => true });
  assert.equal(readsOf(await during(POLL_MS), 'backlog'), 0);
  reader.backlog({ by: 'scrape' });
  const scraped = await during(0);
  assert.equal(readsOf(scraped, 'backlog'), 6, 'every build, at once');
  assert.equal(reader.backlog().length, 6);
  reader.stop();
});

test("an owned autoscaler that names a backlog metric keeps its builds' figures read without an ask; one on other metrics reads none", async () => {
  const { reader, during, state } = world();
  state.ownedResources = [
    autoscaler('orders-backlog', 'temporal_backlog_count', ['v6']),
    autoscaler('orders-adapter', 'twc_temporal_tasks_add_rate', ['v5']),
    autoscaler('orders-cpu', 'cpu_usage', ['v4']),
  ];
  reader.start();
  const tenMinutes = await during(10 * MINUTE);
  assert.ok((tenMinutes['backlog v6'] ?? 0) >= 55, `v6: ${tenMinutes['backlog v6']}`);
  assert.ok((tenMinutes['backlog v5'] ?? 0) >= 55, `v5: ${tenMinutes['backlog v5']}`);
  assert.equal(tenMinutes['backlog v4'], undefined, 'an autoscaler on another metric asks for nothing');
  assert.equal(tenMinutes['queues v6'], undefined, 'a build whose backlog is read has its queues with it');
  assert.deepEqual(
    reader
      .backlog()
      .map((b) => b.buildId)
      .sort(),
    ['v5', 'v6'],
  );
  state.ownedResources = [];
  await during(3 * MINUTE);
  assert.equal(readsOf(await during(MINUTE), 'backlog'), 0, 'the autoscaler gone, its demand lapses');
  reader.stop();
});

test("while a rollout waits, the pollers are read every third interval; a change of them while its target's Pods start is routine news, once they are available it queues the worker deployment first; the target's queues once Temporal lists it", async () => {
  const { reader, during, state, enqueued } = world();
  reader.start();
  await during(MINUTE);
  state.deployments.push(deployment('v7'));
  state.target = 'v7';
  const waiting = await during(MINUTE);
  assert.ok(readsOf(waiting, 'pollers') >= 4, `pollers reads while it waits: ${readsOf(waiting, 'pollers')}`);
  assert.equal(waiting['queues v7'], undefined, 'no record of v7 to read before Temporal lists it');
  enqueued.length = 0;
  state.polling.add('v7');
  await during(3 * POLL_MS);
  assert.deepEqual(
    enqueued,
    [[`${NAMESPACE}/${NAME}`, 'low']],
    "its workers' first polls while its Deployment is not available: its becoming available brings the reconcile",
  );
  enqueued.length = 0;
  state.deployments[state.deployments.length - 1] = deployment('v7', 1, true);
  state.polling.delete('v7');
  await during(3 * POLL_MS);
  state.polling.add('v7');
  await during(3 * POLL_MS);
  assert.deepEqual(
    enqueued,
    [
      [`${NAMESPACE}/${NAME}`, 'top'],
      [`${NAMESPACE}/${NAME}`, 'top'],
    ],
    'its Deployment available, the rollout waits on Temporal to list its build: a change of its pollers goes first',
  );
  state.registered.add('v7');
  const registered = await during(POLL_MS);
  assert.equal(registered['queues v7'], 1, 'listed: its queues are learnt');
  state.current = 'v7';
  await during(MINUTE);
  const idle = await during(5 * MINUTE);
  assert.equal(readsOf(idle, 'pollers'), 4, 'idle again: two reads of two queues in five minutes');
  reader.stop();
});

test('queues the status remembers are not read again by a new leader; its first pollers read comes at once', async () => {
  const { reader, during, state } = world();
  state.remembered = [{ name: NAME, type: 'workflow' }];
  reader.start();
  const first = await during(2000);
  assert.equal(readsOf(first, 'queues'), 0);
  assert.deepEqual(first, { 'pollers workflow': 1 });
  assert.deepEqual(reader.pollers(NAMESPACE, NAME)?.taskQueues.v1, [{ name: NAME, type: 'workflow' }]);
  reader.stop();
});

test('a build scaled to zero is read no more, whoever asks', async () => {
  const { reader, during, state } = world();
  state.deployments = [deployment('v5', 0), deployment('v6')];
  reader.start();
  reader.backlog({ by: 'scrape' });
  const read = await during(MINUTE);
  assert.equal(readsOf(read, 'backlog v5') + readsOf(read, 'queues v5'), 0);
  assert.ok((read['backlog v6'] ?? 0) >= 6);
  reader.stop();
});

test('a build Temporal lists before it has recorded its queues is asked again at each interval until it has', async () => {
  const { reader, during, state } = world();
  reader.start();
  await during(MINUTE);
  state.deployments.push(deployment('v7'));
  state.registered.add('v7');
  state.unrecorded.add('v7');
  state.target = 'v7';
  const unrecorded = await during(3 * POLL_MS);
  assert.ok((unrecorded['queues v7'] ?? 0) >= 3, `asked every interval: ${unrecorded['queues v7']}`);
  state.unrecorded.delete('v7');
  const recorded = await during(POLL_MS);
  assert.equal(recorded['queues v7'], 1);
  assert.deepEqual(reader.pollers(NAMESPACE, NAME)?.taskQueues.v7, undefined, 'the pollers read next has them');
  const confirmed = await during(4 * POLL_MS);
  assert.equal(confirmed['queues v7'], 1, 'confirmed three intervals later');
  assert.deepEqual(reader.pollers(NAMESPACE, NAME)?.taskQueues.v7, [
    { name: NAME, type: 'activity' },
    { name: NAME, type: 'workflow' },
  ]);
  assert.equal((await during(10 * MINUTE))['queues v7'], undefined, 'then not for half an hour');
  reader.stop();
});

test("once a build's Deployments have all become available (a rollout, a scale-up), its workers are counted within a few intervals, not at the next idle read", async () => {
  const { reader, during, state, timers } = world();
  reader.start();
  await during(10 * MINUTE);
  assert.equal(readsOf(await during(5 * MINUTE), 'pollers'), 4, 'idle: every 150 s');
  state.healthySince.v6 = timers.now();
  const settling = await during(4 * POLL_MS);
  assert.equal(readsOf(settling, 'pollers'), 2, 'one read of the two queues, an interval after it');
  assert.equal(readsOf(await during(100_000), 'pollers'), 0, 'then idle again');
  assert.equal(readsOf(await during(20_000), 'pollers'), 2, '150 s after that read');
  reader.stop();
});

/** A backlog share of one read a poll interval, and a scrape every interval asking for every build. */
function scrapedWorld() {
  const w = world({ readsPerSecond: 0.2 });
  const scraped = async (ms: number) => {
    const counts: Record<string, number> = {};
    for (let t = 0; t < ms; t += POLL_MS) {
      w.reader.backlog({ by: 'scrape' });
      for (const [call, n] of Object.entries(await w.during(POLL_MS))) counts[call] = (counts[call] ?? 0) + n;
    }
    return counts;
  };
  return { ...w, scraped };
}

test("a build just available has its workers counted before the backlogs a scrape asks for, however long those waited; the scrape's reads go on after", async () => {
  const { reader, scraped, state, timers } = scrapedWorld();
  reader.start();
  await scraped(10 * MINUTE);
  // Just after a read of the pollers, v6's Deployments become available.
  while (readsOf(await scraped(POLL_MS), 'pollers') === 0);
  state.healthySince.v6 = timers.now();
  const settling = await scraped(5 * POLL_MS);
  assert.equal(readsOf(settling, 'pollers'), 2, 'read within 50 s, as soon as 30 s have passed since the last');
  assert.ok(readsOf(settling, 'backlog') >= 3, `the backlogs had the other tokens: ${readsOf(settling, 'backlog')}`);
  reader.stop();
});

test('a target available that Temporal has yet to list has its pollers read before the backlogs a scrape asks for; a ramp waits its turn', async () => {
  const { reader, scraped, state, timers } = scrapedWorld();
  reader.start();
  await scraped(10 * MINUTE);
  state.deployments.push(deployment('v7', 1, true));
  state.target = 'v7';
  state.healthySince.v7 = timers.now();
  // Each read of the pollers is two calls, one per queue.
  assert.equal(readsOf(await scraped(3 * MINUTE), 'pollers'), 12, 'every third interval, first');
  state.registered.add('v7');
  await scraped(MINUTE);
  const ramping = readsOf(await scraped(3 * MINUTE), 'pollers');
  assert.ok(ramping <= 4, `listed, the rollout (a ramp, say) no longer goes first: ${ramping}`);
  reader.stop();
});
