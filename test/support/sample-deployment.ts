import type { V1Deployment } from '@kubernetes/client-node';
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
        spec: { containers: [{ name: 'worker', image: 'sample-worker', env: Object.entries(env).map(([name, value]) => ({ name, value })) }] },
      },
    },
  };
}
