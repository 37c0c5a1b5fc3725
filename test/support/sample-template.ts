// The Pod template of a worker deployment whose Pods run the sample worker, as the tests, the
// benches and the chaos run give it: a task queue, a SAMPLE_BEHAVIOUR, and any other variables.
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';

type Template = TemporalWorkerDeployment['spec']['template'];

export function sampleWorkerTemplate(
  taskQueue: string,
  behaviour: string,
  env: { name: string; value: string }[] = [],
): Template {
  return {
    spec: {
      containers: [
        {
          name: 'worker',
          image: 'sample-worker',
          env: [
            { name: 'TEMPORAL_TASK_QUEUE', value: taskQueue },
            { name: 'SAMPLE_BEHAVIOUR', value: behaviour },
            ...env,
          ],
        },
      ],
    },
  };
}
