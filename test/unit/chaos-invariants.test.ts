// The chaos run's watch over "nothing retired while Temporal may need it", on a scripted
// Kubernetes and Temporal: what Temporal said last stands while it cannot be read, and drained is
// the watch's own count of running pinned workflows in visibility, not the version's Drained record.
import type { AppsV1Api, CoreV1Api, V1Deployment } from '@kubernetes/client-node';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runningWorkflowsQuery } from '../../src/domain/visibility.ts';
import { LABELS, temporalDeploymentName } from '../../src/k8s/names.ts';
import { InvariantWatch } from '../chaos/invariants.ts';

const { WorkerDeploymentVersionStatus: Status, VersionDrainageStatus: Drainage } = proto.temporal.api.enums.v1;
const RULE = 'nothing retired while Temporal may need it';

/** What Temporal says of build v1 at a look: its list status and its own record's drainage. */
interface Said {
  v1: number;
  record: number;
}

/**
 * A world of one worker deployment `orders` with Deployments of v1 (going to `replicas[look]`) and
 * v2 (current); `said[look]` is what Temporal answers, undefined where it cannot be read; the
 * visibility count of v1's running pinned workflows is `pinnedOnV1`, and fails with Temporal.
 */
function world(replicas: number[], said: (Said | undefined)[], pinnedOnV1: number) {
  let look = -1;
  const temporalName = temporalDeploymentName('chaos', 'orders');
  const unavailable = () =>
    Promise.reject(Object.assign(new Error('14 UNAVAILABLE: connection refused'), { code: 14 }));
  const deployment = (build: string, count: number): V1Deployment => ({
    metadata: { name: `orders-${build}`, labels: { [LABELS.deploymentName]: 'orders', [LABELS.buildId]: build } },
    spec: { replicas: count, selector: {}, template: {} },
    status: { readyReplicas: count },
  });
  const apps = {
    listNamespacedDeployment: () =>
      Promise.resolve({ items: [deployment('v1', replicas[look] ?? 0), deployment('v2', 1)] }),
  } as unknown as AppsV1Api;
  const queries: string[] = [];
  const workflowService = {
    describeWorkerDeployment: () => {
      const now = said[look];
      if (!now) return unavailable();
      const summary = (buildId: string, status: number) => ({
        deploymentVersion: { deploymentName: temporalName, buildId },
        status,
        firstActivationTime: { seconds: 1 },
      });
      return Promise.resolve({
        workerDeploymentInfo: {
          versionSummaries: [summary('v1', now.v1), summary('v2', Status.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT)],
          routingConfig: { currentDeploymentVersion: { deploymentName: temporalName, buildId: 'v2' } },
        },
      });
    },
    // The version's own record, which the controller believes and the watch must not.
    describeWorkerDeploymentVersion: () => {
      const now = said[look];
      if (!now) return unavailable();
      return Promise.resolve({ workerDeploymentVersionInfo: { drainageInfo: { status: now.record } } });
    },
    countWorkflowExecutions: ({ query }: { query: string }) => {
      if (!said[look]) return unavailable();
      queries.push(query);
      return Promise.resolve({ count: query === runningWorkflowsQuery(temporalName, ['v1']) ? pinnedOnV1 : 0 });
    },
  };
  const watch = new InvariantWatch({
    apps,
    core: {} as CoreV1Api,
    client: { workflowService } as unknown as Client,
    namespace: 'chaos',
    workerDeployments: ['orders'],
    temporalNamespace: 'default',
  });
  return {
    watch,
    queries,
    run: async () => {
      for (look = 0; look < replicas.length; look++) await watch.check();
      return watch.violations.filter((v) => v.rule === RULE).map((v) => v.detail);
    },
  };
}

const draining = {
  v1: Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING,
  record: Drainage.VERSION_DRAINAGE_STATUS_DRAINING,
};
const drained = {
  v1: Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED,
  record: Drainage.VERSION_DRAINAGE_STATUS_DRAINED,
};

test('Temporal unreadable for three looks while a draining build goes to zero: a violation, and three blind looks', async () => {
  const { watch, run } = world([1, 1, 1, 0], [draining, undefined, undefined, undefined], 1);
  const violations = await run();
  assert.deepEqual(violations, [
    'Deployment orders-v1 of build orders/v1 went to zero (Temporal said Draining, not counted: Temporal could not be read)',
  ]);
  assert.deepEqual([watch.blindLooks, watch.looks], [3, 4]);
});

test('Temporal says Drained, but visibility counts a pinned workflow running on it: its Deployment going to zero is a violation', async () => {
  const { run, queries } = world([1, 1, 0], [draining, drained, drained], 1);
  assert.deepEqual(await run(), [
    'Deployment orders-v1 of build orders/v1 went to zero (Temporal said Drained, 1 running pinned)',
  ]);
  assert.deepEqual(queries, [runningWorkflowsQuery(temporalDeploymentName('chaos', 'orders'), ['v1'])]);
});

test('drained by count: none running on it, its Deployment may go, whatever the list still says', async () => {
  assert.deepEqual(await world([1, 1, 0], [draining, drained, drained], 0).run(), [], 'Temporal says Drained too');
  assert.deepEqual(
    await world([1, 1, 0], [draining, draining, draining], 0).run(),
    [],
    "the list's stale Draining: the count says drained",
  );
  const { watch, run } = world([1, 0], [draining, draining], 0);
  assert.deepEqual(await run(), []);
  assert.deepEqual([watch.blindLooks, watch.looks], [0, 2]);
});
