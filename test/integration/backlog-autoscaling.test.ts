// A build scaled on its own Temporal backlog by the real HPA controller: the controller reads the
// build's task-queue figures from Temporal and serves them as external metrics, the API server's
// aggregation layer proxies the HPA's reads to it (front-proxy certificate, SubjectAccessReview),
// and the HPA an owned resource renders for the build scales its Deployment up while work waits
// and back to its minimum once the work is done. Only this file registers the cluster's one
// external metrics APIService.
import { CoreV1Api } from '@kubernetes/client-node';
import { NativeConnection, Worker } from '@temporalio/worker';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { publishLeaderEndpoint } from '../../src/k8s/leader-endpoint.ts';
import { EXTERNAL_METRICS_API_SERVICE, machineAddress, registerExternalMetrics } from '../../src/localenv/webhook.ts';
import { externalMetricsHandler } from '../../src/external-metrics/api-server.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
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
  temporalClient,
  testNamespace,
} from '../support/environment.ts';
import { createOwnedResource } from '../support/owned-resources.ts';

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
  deploymentName: string,
  buildId: string,
  taskQueue: string,
): Promise<{ release: () => void }> {
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const connection = await NativeConnection.connect({ address: temporalAddress });
  let release = (): void => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const worker = await Worker.create({
    connection,
    namespace: temporalNamespace,
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
  t.after(async () => {
    release();
    worker.shutdown();
    await running;
    await connection.close();
  });
  return { release };
}

test('the HPA of a build scales it on its own backlog: up to its maximum while work waits, back to its minimum after', async (t) => {
  const namespace = await testNamespace(t, 'backlog');
  const workers = await controlledNamespace(t, namespace, { backlogMetrics: true });
  const served = await serveExternalMetrics(t, () => workers.backlogFigures());

  // The build's Pods run workflows only: its activity tasks wait for the worker the test holds.
  await workers.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    template: workers.template('workflows-only'),
  });
  const twd = await workers.until('orders', 'the first build to be current', rolledOut);
  const buildId = twd.status?.currentVersion?.buildID ?? '';
  const held = await heldActivityWorker(t, `${namespace}/orders`, buildId, workers.taskQueue);
  assert.equal(
    await createOwnedResource(namespace, {
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
    }),
    '',
  );

  const client = await temporalClient(t);
  await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      client.workflow.start('order', {
        taskQueue: workers.taskQueue,
        workflowId: `order-${namespace}-${i}`,
        args: [i],
      }),
    ),
  );
  const admin = kubernetesApi(t);
  const selector = `temporal.io/deployment-name=orders,temporal.io/build-id=${buildId}`;
  const backlog = async (): Promise<number> => {
    const list = await admin.get<{ items: { value: string }[] }>(
      `${METRICS_PATH}/namespaces/${namespace}/temporal_backlog_count`,
      {
        labelSelector: selector,
      },
    );
    return list.items.reduce((sum, item) => sum + Number(item.value), 0);
  };
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
});
