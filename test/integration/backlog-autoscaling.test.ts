// A build scaled on its own Temporal backlog by the real HPA controller: the controller reads the
// build's task-queue figures from Temporal and serves them as external metrics, the API server's
// aggregation layer proxies the HPA's reads to it (front-proxy certificate, SubjectAccessReview),
// and the HPA an owned resource renders for the build scales its Deployment up while work waits
// and back to its minimum once the work is done; during a ramp, each build on its own share. The
// tests that register the cluster's one external metrics APIService take turns.
import { CoreV1Api } from '@kubernetes/client-node';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { publishLeaderEndpoint } from '../../src/k8s/leader-endpoint.ts';
import { EXTERNAL_METRICS_API_SERVICE, machineAddress, registerExternalMetrics } from '../../dev/localenv/webhook.ts';
import { externalMetricsHandler } from '../../src/external-metrics/api-server.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { TEMPORAL_NAMESPACE } from '../../dev/localenv/temporal.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { DEFAULT_BANNED_KINDS } from '../../src/webhook/owned-resource-admission.ts';
import { startWebhook } from '../../src/webhook/server.ts';
import { SelfManagedCertificates } from '../../src/webhook/self-managed-certificates.ts';
import { CONTROLLER_RELEASE } from '../support/controller-rbac.ts';
import { holdExternalMetricsApi } from '../support/external-metrics-api.ts';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import {
  controllerAccess,
  eventually,
  kubeConfig,
  kubeconfigWithToken,
  kubernetesApi,
  sharedEnvironment,
  testNamespace,
} from '../support/environment.ts';
import { createOwnedResource } from '../support/owned-resources.ts';
import { ownTemporal } from '../support/own-temporal.ts';

const METRICS_PATH = '/apis/external.metrics.k8s.io/v1beta1';

/**
 * Serves the external metrics API from `figures` as `twc run` does with the chart: on the
 * webhook's HTTPS server with the controller's credentials and self-managed certificate (its CA
 * put into the APIService's caBundle), behind a selector-less Service the leader writes itself
 * into. The Service and the certificate Secret are the chart's, for the release whose rights the
 * controllers have. Resolves with the server's address once the API server calls it.
 */
async function serveExternalMetrics(
  t: TestContext,
  figures: Parameters<typeof externalMetricsHandler>[0]['figures'],
): Promise<{ address: string; port: number }> {
  const { namespace, fullname } = CONTROLLER_RELEASE;
  const service = `${fullname}-external-metrics`;
  const endTurn = await holdExternalMetricsApi();
  const admin = kubernetesApi(t);
  t.after(async () => {
    await admin.delete(`/apis/apiregistration.k8s.io/v1/apiservices/${EXTERNAL_METRICS_API_SERVICE}`).catch(() => {});
    await admin.delete(`/api/v1/namespaces/${namespace}/services/${service}`).catch(() => {});
    await admin.delete(`/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices/${service}`).catch(() => {});
    await admin.delete(`/api/v1/namespaces/${namespace}/secrets/${fullname}-webhook-tls`).catch(() => {});
    await endTurn();
  });
  await registerExternalMetrics(kubeConfig(), { namespace, name: service });

  const api = new KubernetesApi({ access: controllerAccess() });
  t.after(() => api.close());
  const address = machineAddress();
  const server = await startWebhook({
    bindAddress: { host: address, port: 0 },
    certificates: new SelfManagedCertificates({
      api,
      secret: { namespace, name: `${fullname}-webhook-tls` },
      configuration: fullname,
      apiService: EXTERNAL_METRICS_API_SERVICE,
      hosts: [`${service}.${namespace}.svc`],
      lifetimeMs: 3_600_000,
      log: silentLogger,
    }),
    api,
    bannedKinds: DEFAULT_BANNED_KINDS,
    log: silentLogger,
    alsoServe: externalMetricsHandler({ api, figures, log: silentLogger }),
  });
  t.after(() => server.close());
  // Twice, as a leader and its successor: the second writes over the first.
  for (let leader = 0; leader < 2; leader++)
    await publishLeaderEndpoint(api, { namespace, service, address, port: server.port });
  await eventually(
    'the API server to serve external.metrics.k8s.io',
    async () => {
      const list = await admin.get<{ resources?: { name: string }[] }>(METRICS_PATH).catch(() => undefined);
      return list?.resources?.some((r) => r.name === 'temporal_backlog_count') ? true : undefined;
    },
    90_000,
  );
  return { address, port: server.port };
}

/**
 * A worker of `buildId` in the test process that runs the sample workflows' one activity, one at a
 * time and only once `release` is called: until then the build's activity tasks wait in Temporal.
 */
async function heldActivityWorker(
  t: TestContext,
  temporalAddress: string,
  deploymentName: string,
  buildId: string,
  taskQueue: string,
): Promise<{ release: () => void; stop: () => Promise<void> }> {
  const connection = await NativeConnection.connect({ address: temporalAddress });
  let release = (): void => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const worker = await Worker.create({
    connection,
    namespace: TEMPORAL_NAMESPACE,
    taskQueue,
    identity: `held-activities@${buildId}`,
    activities: {
      describeWorker: async () => {
        await released;
        return { deploymentName, buildId, behaviour: 'held', identity: 'held' };
      },
    },
    maxConcurrentActivityTaskExecutions: 1,
    workerDeploymentOptions: {
      version: { deploymentName, buildId },
      useWorkerVersioning: true,
      defaultVersioningBehavior: 'PINNED',
    },
    shutdownGraceTime: '1s',
  });
  const running = worker.run();
  let stopped: Promise<void> | undefined;
  // Before the test's Temporal server stops, or the worker retries its polls against nothing.
  const stop = () =>
    (stopped ??= (async () => {
      release();
      worker.shutdown();
      await running;
      await connection.close();
    })());
  t.after(stop);
  return { release, stop };
}

/** An HPA per build on its own backlog: a target of 20 waiting tasks per replica, at most 5, scaling at once. */
const BACKLOG_HPA = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  spec: {
    scaleTargetRef: {},
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      {
        type: 'External',
        external: {
          // `{}`: filled in with the build's labels, so each build's HPA reads its own backlog.
          metric: { name: 'temporal_backlog_count', selector: { matchLabels: {} } },
          target: { type: 'AverageValue', averageValue: '20' },
        },
      },
    ],
    // Not the default five minutes' wait before scaling down.
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 5, periodSeconds: 5 }] },
      scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 100, periodSeconds: 5 }] },
    },
  },
};

/** Starts `count` sample orders on the task queue: pinned to the build Temporal routes each to. */
async function startOrders(client: Client, taskQueue: string, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      client.workflow.start('order', { taskQueue, workflowId: `order-${taskQueue}-${i}`, args: [i] }),
    ),
  );
}

/** What waits for one build, summed over its task queues (or those `also` selects), as the API server serves it. */
async function servedBacklog(admin: KubernetesApi, namespace: string, buildId: string, also = ''): Promise<number> {
  const list = await admin.get<{ items: { value: string }[] }>(
    `${METRICS_PATH}/namespaces/${namespace}/temporal_backlog_count`,
    { labelSelector: `temporal.io/deployment-name=orders,temporal.io/build-id=${buildId}${also}` },
  );
  return list.items.reduce((sum, item) => sum + Number(item.value), 0);
}

test('the HPA of a build scales it on its own backlog: up to its maximum while work waits, back to its minimum after', async (t) => {
  const namespace = await testNamespace(t, 'backlog');
  // Server 1.29.1 reports zeros in a version's task-queue stats; the newer release counts them.
  const temporal = await ownTemporal(t, {}, { newer: true });
  const workers = await controlledNamespace(t, namespace, { backlogMetrics: true, temporalAddress: temporal.address });
  const served = await serveExternalMetrics(t, (asked) => workers.backlogFigures(asked));

  // The build's Pods run workflows only: its activity tasks wait for the worker the test holds.
  // No spec.replicas: the HPA alone sets them (with them, the controller would hold its count).
  await workers.createWorkerDeployment('orders', {
    rollout: { strategy: 'AllAtOnce' },
    template: workers.template('workflows-only'),
  });
  const twd = await workers.until('orders', 'the first build to be current', rolledOut);
  const buildId = twd.status?.currentVersion?.buildID ?? '';
  const held = await heldActivityWorker(t, temporal.address, `${namespace}/orders`, buildId, workers.taskQueue);
  assert.equal(await createOwnedResource(namespace, BACKLOG_HPA), '');

  await startOrders(temporal.client, workers.taskQueue, 200);
  const admin = kubernetesApi(t);
  const backlog = () => servedBacklog(admin, namespace, buildId);
  await eventually(
    'the build’s backlog to be served',
    async () => ((await backlog()) >= 150 ? true : undefined),
    60_000,
  );
  await eventually(
    'the HPA to scale the build to its maximum',
    async () => ((await workers.buildDeployments()).get(buildId)?.replicas === 5 ? true : undefined),
    120_000,
  );
  // Kept there while the work waits: nothing (the controller least of all) takes it back meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  assert.equal((await workers.buildDeployments()).get(buildId)?.replicas, 5);

  held.release();
  await eventually('the backlog to drain', async () => ((await backlog()) === 0 ? true : undefined), 120_000);
  await eventually(
    'the HPA to scale the build back to its minimum',
    async () => ((await workers.buildDeployments()).get(buildId)?.replicas === 1 ? true : undefined),
    120_000,
  );

  // Reads without rights are refused: by the API server for a user it knows, by the controller
  // for a caller that goes around the API server.
  const core = kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'nobody' } } });
  const token = await core.createNamespacedServiceAccountToken({
    namespace,
    name: 'nobody',
    body: { spec: { audiences: [], expirationSeconds: 600 } },
  });
  const nobody = new KubernetesApi({
    access: kubeconfigAccess({
      file: kubeconfigWithToken(
        sharedEnvironment().kubeconfigPath,
        token.status?.token ?? '',
        path.join(mkdtempSync(path.join(tmpdir(), 'twc-nobody-')), 'kubeconfig'),
      ),
    }),
  });
  t.after(() => nobody.close());
  await assert.rejects(nobody.get(`${METRICS_PATH}/namespaces/${namespace}/temporal_backlog_count`), /forbidden|403/i);
  const direct = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    request(
      {
        host: served.address,
        port: served.port,
        path: `${METRICS_PATH}/namespaces/${namespace}/temporal_backlog_count`,
        rejectUnauthorized: false,
        headers: { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters' },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    )
      .on('error', reject)
      .end();
  });
  assert.equal(direct.status, 401, direct.body);
  assert.match(direct.body, /no client certificate: only the API server may call this API/);
  await held.stop();
});

test('during a Progressive ramp each build is scaled on its own share of the work', async (t) => {
  const namespace = await testNamespace(t, 'backlog-ramp');
  const temporal = await ownTemporal(t, {}, { newer: true });
  const workers = await controlledNamespace(t, namespace, { backlogMetrics: true, temporalAddress: temporal.address });
  await serveExternalMetrics(t, (asked) => workers.backlogFigures(asked));
  await workers.createWorkerDeployment('orders', {
    rollout: { strategy: 'Progressive', steps: [{ rampPercentage: 25, pauseDuration: '30m' }] },
    template: workers.template('workflows-only'),
  });
  const first = await workers.until('orders', 'the first build to be current', rolledOut);
  const current = first.status?.currentVersion?.buildID ?? '';
  await workers.patchSpec('orders', { template: workers.template('workflows-only-ramping') });
  const ramping = await workers.until(
    'orders',
    'the second build to ramp at 25%',
    (twd) => twd.status?.targetVersion?.rampPercentage === 25 && twd.status.targetVersion.buildID !== current,
  );
  const target = ramping.status?.targetVersion?.buildID ?? '';
  const held = [
    await heldActivityWorker(t, temporal.address, `${namespace}/orders`, current, workers.taskQueue),
    await heldActivityWorker(t, temporal.address, `${namespace}/orders`, target, workers.taskQueue),
  ];
  // On the activity tasks alone (the workflow tasks come and go fast): the selector written out,
  // the build's ID filled in per copy.
  const activitySelector = {
    matchLabels: {
      'temporal.io/deployment-name': 'orders',
      'temporal.io/build-id': '{{ .BuildID }}',
      'temporal.io/task-queue-type': 'activity',
    },
  };
  const [metric] = BACKLOG_HPA.spec.metrics;
  assert.equal(
    await createOwnedResource(namespace, {
      ...BACKLOG_HPA,
      spec: {
        ...BACKLOG_HPA.spec,
        metrics: [
          {
            ...metric,
            external: { ...metric?.external, metric: { name: 'temporal_backlog_count', selector: activitySelector } },
          },
        ],
      },
    }),
    '',
  );

  // A quarter of 200 new orders waits for the ramping build, the rest for the current one.
  await startOrders(temporal.client, workers.taskQueue, 200);
  const admin = kubernetesApi(t);
  // Activity tasks alone, as the HPAs read: workflow tasks waiting for a moment would count twice.
  const activities = ',temporal.io/task-queue-type=activity';
  const shares = await eventually('both builds’ backlogs to be served, about 200 between them', async () => {
    const [old, fresh] = [
      await servedBacklog(admin, namespace, current, activities),
      await servedBacklog(admin, namespace, target, activities),
    ];
    // Each held worker runs one order's activity: 198 wait (Temporal's counts are approximate).
    return old + fresh >= 190 ? { old, fresh } : undefined;
  });
  assert.ok(shares.fresh > 20 && shares.fresh < 80, `the ramping build's share: ${JSON.stringify(shares)}`);
  // On its share (a quarter, about 50: 2 to 4 replicas as Temporal's counts move), never on the
  // whole backlog, which would make 5.
  const onShare = (replicas: number | undefined) => replicas !== undefined && replicas >= 2 && replicas <= 4;
  let seen = '';
  await eventually(
    'the HPAs to scale each build on its own backlog',
    async () => {
      const builds = await workers.buildDeployments();
      seen = JSON.stringify({ shares, current: builds.get(current), target: builds.get(target) });
      return builds.get(current)?.replicas === 5 && onShare(builds.get(target)?.replicas) ? true : undefined;
    },
    120_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; last seen ${seen}`, { cause: error });
  });
  // So it stays over several of the HPA controller's 5 s syncs, below the current build's.
  for (let check = 0; check < 10; check++) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const builds = await workers.buildDeployments();
    const [old, fresh] = [builds.get(current)?.replicas ?? 0, builds.get(target)?.replicas];
    assert.ok(onShare(fresh) && old > (fresh ?? 0), `the builds' replicas: ${JSON.stringify({ old, fresh })}`);
  }
  for (const worker of held) await worker.stop();
});
