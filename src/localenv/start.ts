// `npm start`: the local environment with the controller running and a sample worker deployment
// rolled out, until Ctrl-C.
import { CustomObjectsApi } from '@kubernetes/client-node';
import path from 'node:path';
import { CRD_DIR } from '../api/generate.ts';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { BinaryBuildError } from './binaries.ts';
import { startEnvironment } from './environment.ts';
import { Component } from './process.ts';

const started = Date.now();
let environment;
try {
  environment = await startEnvironment({ crdDir: CRD_DIR });
} catch (error) {
  console.error(error instanceof BinaryBuildError ? error.message : error);
  process.exit(1);
}
const env = environment;
let stopping = false;
const stop = async (code = 0): Promise<void> => {
  if (stopping) return;
  stopping = true;
  console.log('stopping...');
  await controller.stop();
  await env.stop();
  process.exit(code);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

// Probes and metrics on one loopback port of the kernel's choosing (controller.log names it):
// environments side by side must not collide on the default ports.
const ENDPOINTS = ['--metrics-bind-address=127.0.0.1:0', '--health-probe-bind-address=127.0.0.1:0'];
const controller = new Component({
  name: 'controller',
  command: process.execPath,
  args: [
    path.join(import.meta.dirname, '../cli/main.ts'),
    'run',
    `--kubeconfig=${env.kubeconfigPath}`,
    '--identity=twc-local',
    '--poll-interval=2s',
    ...ENDPOINTS,
  ],
  logFile: path.join(env.dir, 'controller.log'),
  ipc: true,
});
let controllerReady = false;
controller.child.on('message', (message: { type?: string }) => (controllerReady ||= message.type === 'ready'));
const custom = env.kubeconfig.makeApiClient(CustomObjectsApi);
const sample = (behaviour: string) => ({
  spec: {
    containers: [{ name: 'worker', image: 'sample-worker', env: [{ name: 'SAMPLE_BEHAVIOUR', value: behaviour }] }],
  },
});
try {
  await controller.waitUntil('ready', () => Promise.resolve(controllerReady || undefined), 60_000);
  const create = (plural: string, body: object) =>
    custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural, body });
  await create(KINDS.TemporalConnection.plural, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'TemporalConnection',
    metadata: { name: 'local' },
    spec: { hostPort: env.temporalAddress },
  });
  await create(KINDS.TemporalWorkerDeployment.plural, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'TemporalWorkerDeployment',
    metadata: { name: 'sample' },
    spec: {
      replicas: 2,
      workerOptions: { connectionRef: { name: 'local' }, temporalNamespace: env.temporalNamespace },
      sunset: { scaledownDelay: '1m', deleteDelay: '5m' },
      template: sample('blue'),
    },
  });
  const current = await controller.waitUntil(
    'making the sample worker deployment Current',
    async () => {
      const twd = (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'default',
        plural: KINDS.TemporalWorkerDeployment.plural,
        name: 'sample',
      })) as TemporalWorkerDeployment;
      const build = twd.status?.currentVersion?.buildID;
      return build && build === twd.status?.targetVersion?.buildID ? build : undefined;
    },
    120_000,
  );
  const kubectl = `KUBECONFIG=${env.kubeconfigPath} ${env.binaries.kube} kubectl`;
  console.log(`local environment and controller ready in ${((Date.now() - started) / 1000).toFixed(1)}s
kubeconfig: ${env.kubeconfigPath}
temporal:   ${env.temporalAddress} (namespace ${env.temporalNamespace})
logs:       ${env.dir} (controller.log, node-agent.log, ...)
sample:     TemporalWorkerDeployment default/sample is Current at build ${current}

watch it:          ${kubectl} get twd,deployments -w
roll out a build:  ${kubectl} patch twd sample --type merge -p '${JSON.stringify({ spec: { template: sample('green') } })}'
Ctrl-C stops everything.`);
} catch (error) {
  console.error(error);
  await stop(1);
}
