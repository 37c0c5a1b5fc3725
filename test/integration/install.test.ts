// The controller installed as a platform team installs it: both charts by helm, the image that
// `npm run image` builds run by the node agent as a real process in a Pod with a network of its
// own, configured in-cluster only, with the chart's RBAC enforced by the API server. Installed
// namespace-scoped, since the shared cluster's other tests run controllers of their own; so this
// is also the proof of that mode: a worker deployment outside the watched namespace is left
// alone, and no request of the controller is refused.
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { buildImage } from '../../scripts/image/build.ts';
import { machineAddress } from '../../dev/localenv/webhook.ts';
import { loadImage } from '../../dev/node-agent/image-store.ts';
import { createTemporalConnection, rolledOut, workerDeployments } from '../support/controller.ts';
import {
  eventually,
  kubeConfig,
  kubernetesApi,
  sharedEnvironment,
  testNamespace,
  uniqueName,
} from '../support/environment.ts';
import { holdExternalMetricsApi } from '../support/external-metrics-api.ts';
import { CONTROLLER_CHART, CRD_CHART, helm } from '../support/helm.ts';
import { grantCopyAccount } from '../support/controller-rbac.ts';
import { createOwnedResource } from '../support/owned-resources.ts';
import { controllerRequests } from '../support/audit-log.ts';
import { kstatus } from '../support/kstatus.ts';
import { podLogs } from '../support/pod-logs.ts';

const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  version: string;
};
/** As the chart names its image by default: what a platform team pushes to its registry. */
const IMAGE = `temporal-worker-controller:${version}`;

const imageDir = mkdtempSync(path.join(tmpdir(), 'twc-install-image-'));
after(() => rmSync(imageDir, { recursive: true, force: true }));

before(async () => {
  const image = await buildImage(imageDir, () => {});
  await loadImage(image.layout, sharedEnvironment().imageStore, IMAGE);
  // The CRDs the environment installed become this release's, as on a cluster that had them.
  await helmAsAdmin('upgrade', '--install', 'twc-crds', CRD_CHART, '--take-ownership', '--wait', '--timeout', '2m');
});

function helmAsAdmin(...args: string[]): Promise<string> {
  return helm('--kubeconfig', sharedEnvironment().kubeconfigPath, ...args);
}

interface Install {
  release: string;
  namespace: string;
  serviceAccount: string;
  /** The one namespace it watches. */
  watched: string;
  /** A namespace it must leave alone. */
  other: string;
}

/**
 * Installs the controller's chart for one watched namespace; uninstalled when the test ends.
 * With its external metrics API (the chart's default), only once no other test holds the cluster's one.
 */
async function install(t: TestContext, values: string[], externalMetrics = false): Promise<Install> {
  const release = uniqueName('twc');
  let namespace = '';
  const endTurn = externalMetrics ? await holdExternalMetricsApi() : async () => {};
  // Registered first, so it runs before the namespaces go (after-hooks run in order).
  t.after(() => uninstall(release, namespace).finally(endTurn));
  namespace = await testNamespace(t, 'twc-system');
  const [watched, other] = [await testNamespace(t, 'team-a'), await testNamespace(t, 'team-b')];
  await helmAsAdmin(
    'install',
    release,
    CONTROLLER_CHART,
    '--namespace',
    namespace,
    '--set',
    `rbac.watchNamespaces={${watched}}`,
    '--set',
    'controller.pollInterval=1s',
    '--set',
    `externalMetrics.enabled=${externalMetrics}`,
    ...values.flatMap((value) => ['--set', value]),
    // helm's waiter is kstatus: the Deployment Available, the Pods Ready.
    '--wait',
    '--timeout',
    '3m',
  ).catch((error: unknown) => {
    throw new Error(`helm install failed; the Pods' output:\n${podLogs(namespace)}`, { cause: error });
  });
  return { release, namespace, serviceAccount: `${release}-temporal-worker-controller`, watched, other };
}

/**
 * Stops the controller, then uninstalls. helm deletes the Role with the Deployment, before the
 * Pods have stopped, and their last Lease requests would be refused: not what the RBAC check
 * after the suite asks about, which is the rights of a controller that runs.
 */
async function uninstall(release: string, namespace: string): Promise<void> {
  if (!namespace) return;
  await kubeConfig()
    .makeApiClient(AppsV1Api)
    .patchNamespacedDeploymentScale(
      { name: `${release}-temporal-worker-controller`, namespace, body: { spec: { replicas: 0 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  const core = kubeConfig().makeApiClient(CoreV1Api);
  await eventually('the controller Pods to stop', async () =>
    (await core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined,
  );
  await helmAsAdmin('uninstall', release, '--namespace', namespace, '--wait');
}

/** The output of every container the node agent ran in `namespace`, for a failure's message. */
/** The process of the controller container of `pod`: the node agent sets HOSTNAME to the Pod's name. */
function containerPid(pod: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (env.includes(`HOSTNAME=${pod}`) && env.some((v) => v.startsWith('KUBERNETES_SERVICE_HOST='))) {
        return Number(entry);
      }
    } catch {
      // gone, or not ours to read
    }
  }
  throw new Error(`no process of Pod ${pod}`);
}

async function controllerPods(namespace: string): Promise<{ name: string; ip: string; ready: boolean }[]> {
  const pods = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
  return pods.items
    .filter((pod) => !pod.metadata?.deletionTimestamp)
    .map((pod) => ({
      name: pod.metadata?.name ?? '',
      ip: pod.status?.podIP ?? '',
      ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    }));
}

/** The TemporalConnection a Pod can dial: this machine's address, not loopback. */
function temporalHostPort(): string {
  return `${machineAddress()}:${sharedEnvironment().temporalAddress.split(':').at(-1) ?? ''}`;
}

async function kstatusOf(twd: TemporalWorkerDeployment): Promise<string> {
  return (await kstatus([twd]))[0]?.status ?? '';
}

test('installed by helm: the controller runs from its image in a Pod, its webhook answers through the Service, and it rolls a worker deployment out twice', async (t) => {
  // A serving certificate of two minutes: renewed a minute after it was issued, within the test.
  const installed = await install(t, ['replicas=1', 'webhook.certLifetime=2m'], true);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const certificateSecret = {
    namespace: installed.namespace,
    name: `${installed.release}-temporal-worker-controller-webhook-tls`,
  };
  const firstCertificate = (await core.readNamespacedSecret(certificateSecret)).data?.['tls.crt'];
  assert.ok(firstCertificate, 'the controller made its serving certificate');
  const [pod] = await controllerPods(installed.namespace);
  assert.ok(pod?.ready, 'the controller Pod is Ready');
  assert.match(pod.ip, /^10\.244\./, 'in a network of its own');
  const status = readFileSync(`/proc/${containerPid(pod.name)}/status`, 'utf8');
  assert.match(status, /^Uid:\s+65532\s/m, 'the process runs as the image user');

  // The API server calls the webhook at the chart's Service, resolved to the Pod.
  await eventually('the webhook to refuse a Deployment as an owned resource', async () =>
    /denied the request: spec\.object\.kind: Deployment may not be owned/.test(
      await createOwnedResource(installed.watched, { apiVersion: 'apps/v1', kind: 'Deployment' }),
    )
      ? true
      : undefined,
  );

  const client = workerDeployments(installed.watched);
  const other = workerDeployments(installed.other);
  for (const namespace of [installed.watched, installed.other])
    await createTemporalConnection(namespace, { hostPort: temporalHostPort() });
  // The chart's default ServiceAccount of the copies, with the namespace's edit role.
  await grantCopyAccount(installed.watched);
  const spec = (colour: string, rollout: Record<string, unknown>) => ({
    replicas: 1,
    rollout,
    sunset: { scaledownDelay: '1s', deleteDelay: '1s' },
    template: client.template(colour),
  });
  await other.createWorkerDeployment('orders', spec('blue', { strategy: 'AllAtOnce' }));
  await client.createWorkerDeployment('orders', spec('blue', { strategy: 'AllAtOnce' }));
  assert.equal(
    await createOwnedResource(installed.watched, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      spec: { maxUnavailable: 1, selector: {} },
    }),
    '',
    'a PodDisruptionBudget per build is admitted',
  );
  const first = await client.until('orders', 'the first rollout', rolledOut);
  assert.equal(await kstatusOf(first), 'Current', 'kstatus: rolled out');
  const v1 = first.status?.currentVersion?.buildID ?? '';

  // Progressive, paused at 50%: kstatus must not call it done while it ramps.
  await client.patchSpec('orders', {
    rollout: { strategy: 'Progressive', steps: [{ rampPercentage: 50, pauseDuration: '30s' }] },
    template: client.template('green'),
  });
  const ramping = await client.until(
    'orders',
    'the second build to ramp',
    (twd) =>
      twd.status?.observedGeneration === twd.metadata.generation && twd.status?.targetVersion?.rampPercentage === 50,
  );
  assert.equal(await kstatusOf(ramping), 'InProgress', 'kstatus: in progress while it ramps');
  const second = await client.until(
    'orders',
    'the second rollout',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  assert.equal(await kstatusOf(second), 'Current');
  const policy = kubeConfig().makeApiClient(PolicyV1Api);
  await eventually('a PodDisruptionBudget for the current build, applied by the controller', async () =>
    (await policy.listNamespacedPodDisruptionBudget({ namespace: installed.watched })).items.some(
      (pdb) => pdb.metadata?.labels?.['temporal.io/build-id'] === second.status?.currentVersion?.buildID,
    )
      ? true
      : undefined,
  );

  // The backlog of the current build, read through the API server from the leader's endpoint of
  // the chart's Service, its self-managed CA in the APIService's caBundle.
  const backlog = await eventually('the external metrics API to answer through the controller Pod', async () => {
    const list = await kubernetesApi(t)
      .get<{ items: { metricLabels: Record<string, string> }[] }>(
        `/apis/external.metrics.k8s.io/v1beta1/namespaces/${installed.watched}/temporal_backlog_count`,
      )
      .catch(() => undefined);
    return list?.items.length ? list.items : undefined;
  });
  assert.ok(
    backlog.every((item) => item.metricLabels['temporal.io/deployment-name'] === 'orders'),
    JSON.stringify(backlog),
  );

  // Left alone: no status, no Deployment, and no request of the controller's outside its namespaces.
  assert.equal((await other.read('orders')).status, undefined, 'the worker deployment in another namespace');
  assert.equal((await other.buildDeployments()).size, 0);
  const requests = controllerRequests(sharedEnvironment().auditLogPath, installed.namespace, installed.serviceAccount);
  assert.ok(requests.length > 0, 'the audit log holds the controller requests');
  assert.deepEqual(
    requests.filter((r) => r.forbidden).map((r) => r.uri),
    [],
    'no request refused for lack of RBAC',
  );
  assert.deepEqual(
    [...new Set(requests.map((r) => r.namespace).filter((ns) => ns !== undefined))].sort(),
    // kube-system: the API server's front-proxy CA, which the external metrics API trusts.
    ['kube-system', installed.namespace, installed.watched].sort(),
    'namespaced requests only in its own namespace, the one it watches and the front-proxy CA ConfigMap',
  );

  await eventually(
    'the controller to renew its serving certificate',
    async () =>
      (await core.readNamespacedSecret(certificateSecret)).data?.['tls.crt'] !== firstCertificate ? true : undefined,
    120_000,
  );
  assert.match(
    await createOwnedResource(installed.watched, { apiVersion: 'apps/v1', kind: 'Deployment' }),
    /denied the request/,
    'the webhook answers with the renewed certificate',
  );
});

test('two replicas: the leader is killed mid-rollout; the other takes over and finishes it', async (t) => {
  const installed = await install(t, ['replicas=2']);
  const client = workerDeployments(installed.watched);
  await createTemporalConnection(installed.watched, { hostPort: temporalHostPort() });
  await client.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Progressive', steps: [{ rampPercentage: 25, pauseDuration: '30s' }] },
    template: client.template('blue'),
  });
  const first = await client.until('orders', 'the first rollout', rolledOut);
  await client.patchSpec('orders', { template: client.template('green') });
  await client.until('orders', 'the second build to ramp', (twd) => twd.status?.targetVersion?.rampPercentage === 25);

  const leases = kubeConfig().makeApiClient(CoordinationV1Api);
  const lease = { namespace: installed.namespace, name: `${installed.release}-temporal-worker-controller` };
  const leader = (await leases.readNamespacedLease(lease)).spec?.holderIdentity ?? '';
  const leaderPod = leader.slice(0, leader.lastIndexOf('_'));
  assert.ok(
    (await controllerPods(installed.namespace)).some((pod) => pod.name === leaderPod),
    `${leader} is a Pod`,
  );
  const killed = Date.now();
  await run('kill', ['-KILL', String(containerPid(leaderPod))]);
  // The standby, or the killed replica restarted by the node agent as a kubelet would: whichever
  // asks first once the Lease expires.
  const successor = await eventually(
    'a new holder of the Lease',
    async () => {
      const holder = (await leases.readNamespacedLease(lease)).spec?.holderIdentity ?? '';
      return holder && holder !== leader ? holder : undefined;
    },
    60_000,
  );
  const takeover = (Date.now() - killed) / 1000;
  console.log(
    `# takeover by ${successor} after the leader was killed: ${takeover.toFixed(1)} s (goal ≤ 17 s: the Lease's 15 s and a 2 s retry)`,
  );

  const done = await client.until(
    'orders',
    'the rollout to finish under the new leader',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== first.status?.currentVersion?.buildID,
    120_000,
  );
  assert.equal(await kstatusOf(done), 'Current');
});
