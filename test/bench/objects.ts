// What the benchmarks create: a namespace, a TemporalConnection `temporal` to the environment's
// Temporal, and many worker deployments at steady state, cheaply: each is registered in Temporal
// (one versioned poll of its build, made here) and runs no Pod (`replicas: 0`, Manual, so nothing
// is routed). An unchanged worker deployment's reconcile is then what it is in production, one
// DescribeWorkerDeployment, without hundreds of worker processes on a laptop.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import type { Environment } from '../../src/localenv/environment.ts';
import { until } from './poll.ts';

export async function createNamespace(environment: Environment, namespace: string): Promise<void> {
  await environment.kubeconfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
}

/** The TemporalConnection `temporal` in `namespace`. */
export async function createConnection(environment: Environment, namespace: string): Promise<void> {
  await environment.kubeconfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: KINDS.TemporalConnection.plural,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'TemporalConnection',
      metadata: { name: 'temporal' },
      spec: { hostPort: environment.temporalAddress },
    },
  });
}

/**
 * Creates a connection and `count` worker deployments in `namespace` (which exists), and resolves
 * once each is registered and idle. A controller must run meanwhile: it creates the builds.
 * `replicas` (0 by default) only where no node agent runs them: their Pods stay pending.
 */
export async function idleWorkerDeployments(
  environment: Environment,
  namespace: string,
  count: number,
  replicas = 0,
): Promise<void> {
  const custom = environment.kubeconfig.makeApiClient(CustomObjectsApi);
  const object = { group: GROUP, version: VERSION, namespace };
  await createConnection(environment, namespace);
  for (let i = 0; i < count; i++) {
    const name = `idle-${i}`;
    await custom.createNamespacedCustomObject({
      ...object,
      plural: KINDS.TemporalWorkerDeployment.plural,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'TemporalWorkerDeployment',
        metadata: { name },
        spec: {
          replicas,
          rollout: { strategy: 'Manual' },
          workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: environment.temporalNamespace },
          template: {
            spec: {
              containers: [
                { name: 'worker', image: 'sample-worker', env: [{ name: 'TEMPORAL_TASK_QUEUE', value: name }] },
              ],
            },
          },
        },
      },
    });
  }
  const list = async () =>
    (
      (await custom.listNamespacedCustomObject({ ...object, plural: KINDS.TemporalWorkerDeployment.plural })) as {
        items: TemporalWorkerDeployment[];
      }
    ).items;
  await until(async () => (await list()).filter((twd) => twd.status?.targetVersion?.buildID).length === count, {
    intervalMs: 1000,
  });
  // A versioned poll registers its build, as its first worker would; the server may take longer
  // than the poll to do so, so builds still unregistered are polled again.
  const temporal = await Connection.connect({ address: environment.temporalAddress });
  try {
    const unregistered = async () => (await list()).filter((twd) => twd.status?.targetVersion?.status !== 'Inactive');
    for (let waiting = await unregistered(); waiting.length > 0; waiting = await unregistered()) {
      await temporal.withDeadline(Date.now() + 10_000, () =>
        Promise.all(
          waiting.map((twd) =>
            temporal.workflowService
              .pollWorkflowTaskQueue({
                namespace: environment.temporalNamespace,
                taskQueue: { name: twd.metadata.name ?? '' },
                identity: 'twc-bench',
                deploymentOptions: {
                  deploymentName: temporalDeploymentName(namespace, twd.metadata.name ?? ''),
                  buildId: twd.status?.targetVersion?.buildID ?? '',
                  workerVersioningMode:
                    proto.temporal.api.enums.v1.WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED,
                },
              })
              .catch(() => undefined),
          ),
        ),
      );
    }
  } finally {
    await temporal.close();
  }
}
