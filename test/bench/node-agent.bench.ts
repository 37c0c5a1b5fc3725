// `npm run bench`: how fast the local environment starts and how many Pods per second the node
// agent brings from created to Ready as real workers. Prints figures; asserts nothing.
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { SHARED_ENVIRONMENT_VARIABLE } from '../support/environment.ts';
import { sampleDeployment } from '../support/sample-deployment.ts';
import { until } from './poll.ts';

const { values } = parseArgs({
  options: { deployments: { type: 'string', default: '4' }, replicas: { type: 'string', default: '10' } },
});
const deployments = Number(values.deployments);
const replicas = Number(values.replicas);

const startedAt = performance.now();
const environment = await startEnvironment({ log: (line) => console.error(line) });
const startSeconds = (performance.now() - startedAt) / 1000;
process.env[SHARED_ENVIRONMENT_VARIABLE] = JSON.stringify({ ...environment, kubeBinary: environment.binaries.kube });

try {
  const apps = environment.kubeconfig.makeApiClient(AppsV1Api);
  const core = environment.kubeconfig.makeApiClient(CoreV1Api);
  const namespace = 'bench';
  await core.createNamespace({ body: { metadata: { name: namespace } } });

  const total = deployments * replicas;
  const created = performance.now();
  await Promise.all(
    Array.from({ length: deployments }, (_, i) =>
      apps.createNamespacedDeployment({
        namespace,
        body: sampleDeployment({
          namespace,
          name: `bench-${i}`,
          replicas,
          deploymentName: `bench-${i}`,
          buildId: 'b1',
          taskQueue: `bench-${i}`,
        }),
      }),
    ),
  );
  const ready = await until(async () => {
    const pods = (await core.listNamespacedPod({ namespace })).items;
    return (
      pods.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === total
    );
  });
  const readySeconds = (ready - created) / 1000;
  const agent = environment.processes.find((p) => p.name === 'node agent');
  const agentMiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${agent?.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const available = await until(async () => {
    const list = (await apps.listNamespacedDeployment({ namespace })).items;
    return list.every((d) => d.status?.availableReplicas === replicas);
  });

  const scaledDown = performance.now();
  await Promise.all(
    Array.from({ length: deployments }, (_, i) =>
      apps.patchNamespacedDeploymentScale({
        namespace,
        name: `bench-${i}`,
        body: [{ op: 'replace', path: '/spec/replicas', value: 0 }],
      }),
    ),
  );
  const gone = await until(async () => (await core.listNamespacedPod({ namespace })).items.length === 0);

  console.log(`environment start:                  ${startSeconds.toFixed(1)} s`);
  console.log(
    `Pods created -> all Ready:          ${total} Pods in ${readySeconds.toFixed(1)} s = ${(total / readySeconds).toFixed(1)} Pods/s`,
  );
  console.log(`Deployments created -> Available:   ${((available - created) / 1000).toFixed(1)} s`);
  console.log(`scale to 0 -> all Pods deleted:     ${((gone - scaledDown) / 1000).toFixed(1)} s`);
  console.log(`node agent memory with ${total} workers: ${agentMiB.toFixed(0)} MiB RSS`);
} finally {
  await environment.stop();
}
