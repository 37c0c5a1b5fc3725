// `npm start`: the local environment with the controller running and a sample worker deployment
// rolled out, until Ctrl-C. A controller that dies is restarted (see controller-supervisor.ts).
import { CustomObjectsApi } from '@kubernetes/client-node';
import path from 'node:path';
import { CRD_DIR } from '../../scripts/generate.ts';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { BinaryBuildError } from './binaries.ts';
import { superviseController } from './controller-supervisor.ts';
import { startEnvironment } from './environment.ts';
import { EXAMPLE_CONNECTION, exampleConnectionAddress, exampleNodes, exampleTemporalNamespaces } from './examples.ts';
import { grantOwnedResourcesAccount, OWNED_RESOURCES_ACCOUNT } from './owned-resources-account.ts';
import { freePort } from './ports.ts';
import { startMessage } from './start-message.ts';
import {
  EXTERNAL_METRICS_API_SERVICE,
  exposeWebhook,
  machineAddress,
  registerExternalMetrics,
  registerWebhook,
} from './webhook.ts';

const started = Date.now();
// Temporal is reached at the examples' in-cluster address, as in a cluster: the Pods through the
// node agent's stand-in for cluster DNS, the controller (outside) through --temporal-connect-to.
const temporalServiceAddress = exampleConnectionAddress();
let environment;
try {
  // The examples' Temporal namespaces, node pools and connection too, so that each runs unchanged.
  environment = await startEnvironment({
    crdDir: CRD_DIR,
    temporalUi: true,
    newerTemporal: true,
    ...(temporalServiceAddress ? { temporalServiceAddress } : {}),
    temporalNamespaces: exampleTemporalNamespaces().filter((n) => n !== 'default'),
    extraNodes: exampleNodes(),
  });
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
// environments side by side must not collide on the default ports. The webhook's port is chosen
// here, as its Service must name it; the controller makes its certificate and fills the caBundle.
const webhook = { port: await freePort(), address: machineAddress() };
const webhookService = { namespace: 'default', name: 'temporal-worker-controller-webhook' };
await exposeWebhook(env.kubeconfig, webhookService, webhook);
await registerWebhook(env.kubeconfig, { name: 'temporal-worker-controller', service: webhookService });
// The backlog metrics, for the HPAs of owned resources: the controller writes itself in as the endpoint.
await registerExternalMetrics(env.kubeconfig, {
  namespace: webhookService.namespace,
  name: 'temporal-worker-controller-external-metrics',
});
await grantOwnedResourcesAccount(env.kubeconfig, 'default');
const ENDPOINTS = [
  '--metrics-bind-address=127.0.0.1:0',
  '--health-probe-bind-address=127.0.0.1:0',
  `--webhook-bind-address=${webhook.address}:${webhook.port}`,
  `--webhook-namespace=${webhookService.namespace}`,
  `--webhook-service=${webhookService.name}`,
  `--external-metrics-advertise-address=${webhook.address}`,
  `--external-metrics-api-service=${EXTERNAL_METRICS_API_SERVICE}`,
];
const controller = superviseController({
  spec: {
    name: 'controller',
    command: process.execPath,
    args: [
      path.join(import.meta.dirname, '../../src/cli/main.ts'),
      'run',
      `--kubeconfig=${env.kubeconfigPath}`,
      '--identity=twc-local',
      '--poll-interval=2s',
      `--owned-resources-service-account=${OWNED_RESOURCES_ACCOUNT}`,
      ...(temporalServiceAddress ? [`--temporal-connect-to=${temporalServiceAddress}=${env.temporalAddress}`] : []),
      ...ENDPOINTS,
    ],
    logFile: path.join(env.dir, 'controller.log'),
    ipc: true,
  },
  say: (line) => console.log(line),
  giveUp: (message) => {
    console.error(message);
    void stop(1);
  },
});
const custom = env.kubeconfig.makeApiClient(CustomObjectsApi);
const sample = (behaviour: string) => ({
  spec: {
    containers: [{ name: 'worker', image: 'sample-worker', env: [{ name: 'SAMPLE_BEHAVIOUR', value: behaviour }] }],
  },
});
try {
  await controller.ready(60_000);
  const create = (plural: string, body: object) =>
    custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural, body });
  await create(KINDS.TemporalConnection.plural, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'TemporalConnection',
    metadata: { name: EXAMPLE_CONNECTION },
    spec: { hostPort: temporalServiceAddress ?? env.temporalAddress },
  });
  await create(KINDS.TemporalWorkerDeployment.plural, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'TemporalWorkerDeployment',
    metadata: { name: 'sample' },
    spec: {
      replicas: 2,
      workerOptions: { connectionRef: { name: EXAMPLE_CONNECTION }, temporalNamespace: env.temporalNamespace },
      sunset: { scaledownDelay: '1m', deleteDelay: '5m' },
      template: sample('blue'),
    },
  });
  const current = await controller.current.waitUntil(
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
  console.log(
    startMessage({
      seconds: (Date.now() - started) / 1000,
      kubeconfigPath: env.kubeconfigPath,
      kubeBinary: env.binaries.kube,
      temporalBinary: env.temporalBinary,
      temporalAddress: env.temporalAddress,
      temporalNamespace: env.temporalNamespace,
      ...(env.temporalUiUrl ? { temporalUiUrl: env.temporalUiUrl } : {}),
      logDir: env.dir,
      sample: { namespace: 'default', name: 'sample', build: current },
      rolloutPatch: { spec: { template: sample('green') } },
    }),
  );
} catch (error) {
  console.error(error);
  await stop(1);
}
