// The Pod template of a worker deployment whose Pods run the sample worker, as the tests, the
// benches and the chaos run give it: a task queue, a SAMPLE_BEHAVIOUR, and any other variables.
// Or the Go sample worker's, an image the node agent runs as a real process once loaded.
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';

type Template = TemporalWorkerDeployment['spec']['template'];

/** The reference the Go sample worker's image is loaded as (dev/sample-worker-go/image.ts). */
export const SAMPLE_WORKER_GO_IMAGE = 'sample-worker-go';

export function sampleWorkerTemplate(
  taskQueue: string,
  behaviour: string,
  env: { name: string; value: string }[] = [],
  image = 'sample-worker',
): Template {
  return {
    spec: {
      containers: [
        {
          name: 'worker',
          image,
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
