import type { AppsV1Api, V1Deployment } from '@kubernetes/client-node';
import { sharedEnvironment } from './environment.ts';

export interface SampleDeployment {
  namespace: string;
  name: string;
  replicas: number;
  deploymentName: string;
  buildId: string;
  taskQueue: string;
  behaviour?: string;
}

/** A plain Deployment of the sample worker, configured the way the controller will configure one. */
export function sampleDeployment(d: SampleDeployment): V1Deployment {
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const env = {
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: temporalNamespace,
    TEMPORAL_DEPLOYMENT_NAME: d.deploymentName,
    TEMPORAL_WORKER_BUILD_ID: d.buildId,
    TEMPORAL_TASK_QUEUE: d.taskQueue,
    SAMPLE_BEHAVIOUR: d.behaviour ?? 'default',
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: d.name, namespace: d.namespace },
    spec: {
      replicas: d.replicas,
      selector: { matchLabels: { app: d.name } },
      template: {
        metadata: { labels: { app: d.name } },
        spec: {
          containers: [
            {
              name: 'worker',
              image: 'sample-worker',
              env: Object.entries(env).map(([name, value]) => ({ name, value })),
            },
          ],
        },
      },
    },
  };
}

/** Runs one single-replica Deployment of the sample worker per build, all of one Temporal deployment. */
export async function runSampleBuilds(
  apps: AppsV1Api,
  namespace: string,
  deploymentName: string,
  taskQueue: string,
  buildIds: string[],
): Promise<void> {
  for (const buildId of buildIds) {
    await apps.createNamespacedDeployment({
      namespace,
      body: sampleDeployment({ namespace, name: buildId, replicas: 1, deploymentName, buildId, taskQueue }),
    });
  }
}
