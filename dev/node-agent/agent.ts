// A stand-in for the kubelet, since nothing runs containers here: it registers its Nodes, binds
// the Pods nobody schedules to one they fit (placement.ts) or marks them Unschedulable as the
// scheduler would, runs each bound Pod, and reports Pod status the way a kubelet would, so that
// the real Deployment controller sees real availability. A Pod whose image was loaded into the
// image store (the controller's own) runs as a real process of that image (image-container.ts);
// every other Pod runs as a sample worker hosted in this process, or, told to only poll, as a
// loop of polls (poller-host.ts).
import {
  CoreV1Api,
  type Informer,
  type KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Container,
  type V1Pod,
  type V1PodCondition,
  type V1PodStatus,
  type V1Secret,
} from '@kubernetes/client-node';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { httpStatus } from '../../src/runtime/kube/api-errors.ts';
import { readConfig } from '../sample-worker/config.ts';
import { resolveEnv, type EnvSources } from './container-env.ts';
import { startContainer, type ContainerMount } from './image-container.ts';
import { containerProcess, mountsServiceAccount, SERVICE_ACCOUNT_PATH } from './image-container-spec.ts';
import { findImage, type StoredImage } from './image-store.ts';
import { type LocalNode, placePod } from './placement.ts';
import { podStatus, type WorkerState } from './pod-status.ts';
import {
  mountVolumes,
  PodVolumeError,
  renewTokens,
  tokenRenewalMs,
  underMounts,
  type VolumeSources,
} from './pod-volumes.ts';
import { createPodNetwork, PodNetworkError, SERVICE_HOST_ADDRESS, type PodNetwork } from './pod-network.ts';
import { PollerHost, pollingWindowMs } from './poller-host.ts';
import { watchReadiness } from './readiness-probe.ts';
import { projectServiceAccount, requestPodToken, type ServiceAccountVolume } from './service-account-volume.ts';
import { WorkerHost, type HostedWorker } from './worker-host.ts';

export type AgentLog = (message: string) => void;

/** The worker of one Pod, restarted with backoff like a kubelet restarts a container. */
interface PodWorker {
  current?: HostedWorker;
  stopped: AbortController;
  supervised: Promise<void>;
  /** Of a Pod that runs an image: kept across restarts of its container, as a Pod's sandbox is. */
  network?: PodNetwork;
  serviceAccount?: ServiceAccountVolume;
  /** Renews the projected service-account tokens of the running container's volumes. */
  tokenRenewal?: NodeJS.Timeout;
}

export interface NodeAgentOptions {
  /**
   * Cluster DNS as the Pods here see it: a Service's host:port (temporal-frontend.temporal.svc:7233)
   * and the local address that serves it.
   */
  serviceAddresses?: ReadonlyMap<string, string>;
  /** Images Pods may run as processes (image-store.ts); without it every Pod is a sample worker. */
  imageStore?: string;
  /** Where the containers of image Pods write their output, one file per Pod. */
  podLogDir?: string;
  /** Renew projected service-account tokens this long after they were written, not at 80% of their life (tests). */
  tokenRenewAfterMs?: number;
  log?: AgentLog;
}

/** A container's stop waits at most this long after SIGTERM: the agent's own shutdown has 10 s. */
const MAX_GRACE_MS = 8_000;

const BACKOFF_START_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

export class NodeAgent {
  readonly nodes: readonly LocalNode[];
  private readonly kubeconfig: KubeConfig;
  private readonly api: CoreV1Api;
  private readonly log: AgentLog;
  private readonly host = new WorkerHost();
  private readonly pollers = new PollerHost();
  private readonly workers = new Map<string, PodWorker>();
  private readonly binding = new Set<string>();
  private readonly finalizing = new Set<string>();
  private informer: Informer<V1Pod> | undefined;
  /** Where each Pod's volumes are written, one directory per Pod UID; only this process may read it. */
  private volumesDir: string | undefined;
  private stopped = false;

  private readonly options: NodeAgentOptions;

  constructor(kubeconfig: KubeConfig, nodes: readonly LocalNode[], options: NodeAgentOptions = {}) {
    if (nodes.length === 0) throw new Error('the node agent needs a node');
    this.kubeconfig = kubeconfig;
    this.nodes = nodes;
    this.options = options;
    this.api = kubeconfig.makeApiClient(CoreV1Api);
    this.log = options.log ?? ((m) => console.error(m));
  }

  async start(): Promise<void> {
    await this.host.prepare();
    this.volumesDir = await mkdtemp(path.join(tmpdir(), 'twc-node-agent-volumes-'));
    for (const node of this.nodes) await this.registerNode(node);
    const informer = makeInformer<V1Pod>(this.kubeconfig, '/api/v1/pods', () => this.api.listPodForAllNamespaces());
    this.informer = informer;
    const onPod = (pod: V1Pod): void => void this.sync(pod);
    informer.on('add', onPod);
    informer.on('update', onPod);
    informer.on('delete', (pod) => void this.stopWorker(pod.metadata?.uid ?? ''));
    informer.on('error', (error: unknown) => {
      if (this.stopped) return;
      this.log(`pod watch failed, restarting in 1s: ${String(error)}`);
      setTimeout(
        () => void informer.start().catch((e: unknown) => this.log(`pod watch restart failed: ${String(e)}`)),
        1000,
      );
    });
    await informer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer?.stop();
    await Promise.all([...this.workers.keys()].map((uid) => this.stopWorker(uid)));
    await this.host.close();
    await this.pollers.close();
    if (this.volumesDir) await rm(this.volumesDir, { recursive: true, force: true });
  }

  private async registerNode(node: LocalNode): Promise<void> {
    try {
      await this.api.createNode({
        body: {
          metadata: { name: node.name, labels: { ...node.labels, 'kubernetes.io/hostname': node.name } },
          spec: { taints: node.taints },
        },
      });
    } catch (error) {
      if (httpStatus(error) !== 409) throw error;
    }
    const now = new Date();
    await this.api.patchNodeStatus(
      {
        name: node.name,
        body: {
          status: {
            capacity: { cpu: '64', memory: '256Gi', pods: '10000' },
            allocatable: { cpu: '64', memory: '256Gi', pods: '10000' },
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'NodeAgentReady',
                message: 'local node agent is running',
                lastHeartbeatTime: now,
                lastTransitionTime: now,
              },
            ],
            addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  private async sync(pod: V1Pod): Promise<void> {
    if (this.stopped) return;
    const uid = pod.metadata?.uid ?? '';
    const nodeName = pod.spec?.nodeName;
    try {
      if (!nodeName) {
        if (!pod.metadata?.deletionTimestamp) await this.bind(pod, uid);
      } else if (this.nodes.some((node) => node.name === nodeName)) {
        if (pod.metadata?.deletionTimestamp) await this.finalize(pod, uid);
        else if (!this.workers.has(uid) && !isFinished(pod)) this.run(pod, uid);
      }
    } catch (error) {
      this.log(`pod ${podName(pod)}: ${errorMessage(error)}`);
    }
  }

  private async bind(pod: V1Pod, uid: string): Promise<void> {
    if (this.binding.has(uid)) return;
    this.binding.add(uid);
    try {
      const placement = placePod(pod, this.nodes);
      if ('unschedulable' in placement) {
        await this.markUnschedulable(pod, placement.unschedulable);
        return;
      }
      await this.api.createNamespacedPodBinding({
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? '',
        body: {
          metadata: { name: pod.metadata?.name ?? '' },
          target: { apiVersion: 'v1', kind: 'Node', name: placement.node },
        },
      });
    } catch (error) {
      // 409: someone bound it already; the next update event shows where.
      if (httpStatus(error) !== 409) throw error;
    } finally {
      this.binding.delete(uid);
    }
  }

  /** As the scheduler does; written only when it says something new, since the write comes back as an update. */
  private async markUnschedulable(pod: V1Pod, message: string): Promise<void> {
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (scheduled?.reason === 'Unschedulable' && scheduled.message === message) return;
    const condition: V1PodCondition = {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message,
      lastTransitionTime: new Date(),
    };
    this.log(`pod ${podName(pod)}: ${message}`);
    await this.patchStatus(pod, { phase: 'Pending', conditions: [condition] });
  }

  private run(pod: V1Pod, uid: string): void {
    const stopped = new AbortController();
    const entry: PodWorker = { stopped, supervised: Promise.resolve() };
    entry.supervised = this.supervise(pod, entry).catch((error: unknown) =>
      this.log(`pod ${podName(pod)}: ${errorMessage(error)}`),
    );
    this.workers.set(uid, entry);
  }

  /**
   * Runs the Pod's worker until the Pod goes away. A worker whose volumes cannot be mounted
   * waits (ContainerCreating), one that cannot be configured too (CreateContainerConfigError); one
   * that fails is restarted with backoff (CrashLoopBackOff), unless the Pod's restartPolicy is
   * Never, which makes the Pod Failed.
   */
  private async supervise(pod: V1Pod, entry: PodWorker): Promise<void> {
    const signal = entry.stopped.signal;
    const restartPolicy = pod.spec?.restartPolicy ?? 'Always';
    let restarts = 0;
    let failures = 0; // in a row, for the backoff
    while (!signal.aborted) {
      const backoff = Math.min(BACKOFF_START_MS * 2 ** failures++, BACKOFF_MAX_MS);
      let launch: () => Promise<HostedWorker>;
      try {
        launch = await this.prepare(pod, entry);
      } catch (error) {
        const reason =
          error instanceof PodVolumeError || error instanceof PodNetworkError
            ? 'ContainerCreating'
            : 'CreateContainerConfigError';
        await this.report(pod, entry, { kind: 'waiting', reason, message: errorMessage(error), restarts });
        await sleep(backoff, signal);
        continue;
      }
      let phase = 'failed to start';
      try {
        entry.current = await launch();
        if (signal.aborted) break;
        phase = 'stopped';
        failures = 0;
        await this.reportReadiness(pod, entry, entry.current, restarts);
        await entry.current.done;
        return; // a requested stop
      } catch (error) {
        entry.current = undefined;
        if (signal.aborted) break;
        const failure = `worker ${phase}: ${errorMessage(error)}`;
        this.log(`pod ${podName(pod)}: ${failure}`);
        if (restartPolicy === 'Never') {
          await this.report(pod, entry, { kind: 'failed', message: failure, restarts });
          return;
        }
        restarts++;
        const message = `back-off ${backoff / 1000}s restarting the failed worker`;
        await this.report(pod, entry, {
          kind: 'waiting',
          reason: 'CrashLoopBackOff',
          message,
          restarts,
          lastFailure: failure,
        });
        await sleep(backoff, signal);
      }
    }
    await entry.current?.stop();
  }

  /** Mounts the Pod's volumes and resolves its configuration; the result starts its container. */
  private async prepare(pod: V1Pod, entry: PodWorker): Promise<() => Promise<HostedWorker>> {
    const container = pod.spec?.containers[0];
    if (!container) throw new Error('the Pod has no container');
    const dir = this.podDir(pod.metadata?.uid ?? '');
    const volumes = path.join(dir, 'volumes');
    const mounts = await mountVolumes(pod, container, this.volumeSources, volumes);
    this.renewTokens(pod, container, entry, volumes);
    const image = this.options.imageStore && findImage(this.options.imageStore, container.image ?? '');
    if (!image) {
      const config = readConfig(underMounts(await resolveEnv(pod, container, this.envSources), mounts));
      const address = this.options.serviceAddresses?.get(config.address) ?? config.address;
      const host = pollingWindowMs(config.behaviour) === undefined ? this.host : this.pollers;
      return () => host.start({ ...config, address }, `${podName(pod)}@${pod.spec?.nodeName ?? ''}`);
    }
    return this.prepareImage(pod, container, image, entry, mounts);
  }

  private async prepareImage(
    pod: V1Pod,
    container: V1Container,
    image: StoredImage,
    entry: PodWorker,
    mounts: Map<string, string>,
  ): Promise<() => Promise<HostedWorker>> {
    const dir = this.podDir(pod.metadata?.uid ?? '');
    entry.network ??= await createPodNetwork((pod.metadata?.uid ?? '').replaceAll('-', '').slice(0, 10));
    const network = entry.network;
    const containerMounts: ContainerMount[] = [...mounts].map(([target, source]) => {
      const mount = container.volumeMounts?.find((m) => m.mountPath === target);
      const volume = pod.spec?.volumes?.find((v) => v.name === mount?.name);
      return { source, target, readOnly: (mount?.readOnly ?? false) || !volume?.emptyDir };
    });
    if (mountsServiceAccount(pod, container)) {
      entry.serviceAccount ??= await projectServiceAccount(
        this.api,
        pod,
        this.apiServer.ca,
        path.join(dir, 'serviceaccount'),
        this.log,
      );
      containerMounts.push({ source: entry.serviceAccount.dir, target: SERVICE_ACCOUNT_PATH, readOnly: true });
    }
    const env = await resolveEnv(pod, container, this.envSources, network.ip);
    const run = containerProcess(pod, container, image.config, {
      env,
      apiServer: { host: SERVICE_HOST_ADDRESS, port: this.apiServer.port },
    });
    const logDir = this.options.podLogDir ?? dir;
    await mkdir(logDir, { recursive: true });
    return () =>
      startContainer({
        process: run,
        rootfs: image.rootfs,
        dir: path.join(dir, 'container'),
        networkNamespace: network.namespacePath,
        mounts: containerMounts,
        hostname: pod.metadata?.name ?? '',
        podIP: network.ip,
        logFile: path.join(logDir, `${pod.metadata?.namespace ?? ''}_${pod.metadata?.name ?? ''}.log`),
        graceMs: Math.min((pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000, MAX_GRACE_MS),
      });
  }

  /** Keeps the projected tokens just mounted fresh until the container restarts or stops. */
  private renewTokens(pod: V1Pod, container: V1Container, entry: PodWorker, volumes: string): void {
    clearInterval(entry.tokenRenewal);
    const every = tokenRenewalMs(pod, container, this.options.tokenRenewAfterMs);
    if (every === undefined) return;
    entry.tokenRenewal = setInterval(() => {
      renewTokens(pod, container, this.volumeSources, volumes).catch((error: unknown) =>
        this.log(`pod ${podName(pod)}: renewing a projected service-account token: ${errorMessage(error)}`),
      );
    }, every);
    entry.tokenRenewal.unref();
  }

  /** Reports the started worker Ready, or, for a container with a readiness probe, whenever the probe turns. */
  private async reportReadiness(pod: V1Pod, entry: PodWorker, worker: HostedWorker, restarts: number): Promise<void> {
    const container = pod.spec?.containers[0];
    const probe = container?.readinessProbe;
    if (!entry.network || !container || !probe) {
      await this.report(pod, entry, { kind: 'running', ready: true, restarts });
      return;
    }
    await this.report(pod, entry, { kind: 'running', ready: false, restarts });
    const probing = new AbortController();
    const stop = (): void => probing.abort();
    entry.stopped.signal.addEventListener('abort', stop, { once: true });
    void worker.done.catch(() => undefined).finally(stop);
    void watchReadiness(probe, container, entry.network.ip, probing.signal, (ready) => {
      if (!probing.signal.aborted) void this.report(pod, entry, { kind: 'running', ready, restarts });
    }).catch((error: unknown) => this.log(`pod ${podName(pod)}: readiness probe: ${errorMessage(error)}`));
  }

  /** The kubelet's half of graceful deletion: stop the worker, then remove the Pod for good. */
  private async finalize(pod: V1Pod, uid: string): Promise<void> {
    if (this.finalizing.has(uid)) return;
    this.finalizing.add(uid);
    try {
      await this.stopWorker(uid);
      await this.api
        .deleteNamespacedPod({
          name: pod.metadata?.name ?? '',
          namespace: pod.metadata?.namespace ?? '',
          body: { gracePeriodSeconds: 0, preconditions: { uid } },
        })
        .catch((error: unknown) => {
          if (httpStatus(error) !== 404 && httpStatus(error) !== 409) throw error;
        });
    } finally {
      this.finalizing.delete(uid);
    }
  }

  private async stopWorker(uid: string): Promise<void> {
    const entry = this.workers.get(uid);
    if (!entry) return;
    this.workers.delete(uid);
    entry.stopped.abort();
    await entry.current?.stop();
    await entry.supervised;
    entry.serviceAccount?.close();
    clearInterval(entry.tokenRenewal);
    await entry.network?.remove().catch((error: unknown) => this.log(`removing a Pod network: ${errorMessage(error)}`));
    await rm(this.podDir(uid), { recursive: true, force: true });
  }

  /** The API server as Pods reach it, and the CA its serving certificate chains to. */
  private get apiServer(): { port: number; ca: string } {
    const cluster = this.kubeconfig.getCurrentCluster();
    const url = new URL(cluster?.server ?? '');
    const ca = cluster?.caData ? Buffer.from(cluster.caData, 'base64').toString('utf8') : '';
    return { port: Number(url.port || 443), ca };
  }

  private podDir(uid: string): string {
    if (!this.volumesDir) throw new Error('the node agent has not started');
    return path.join(this.volumesDir, uid);
  }

  private async report(pod: V1Pod, entry: PodWorker, state: WorkerState): Promise<void> {
    await this.patchStatus(pod, podStatus(pod, state, new Date(), entry.network?.ip)).catch((error: unknown) =>
      this.log(`pod ${podName(pod)}: could not report status: ${errorMessage(error)}`),
    );
  }

  private async patchStatus(pod: V1Pod, status: V1PodStatus): Promise<void> {
    if (this.stopped) return;
    await this.api.patchNamespacedPodStatus(
      { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  private readonly envSources: EnvSources = {
    secretValue: async (namespace, name, key) =>
      (await this.volumeSources.secret(namespace, name))?.[key]?.toString('utf8'),
    configMapValue: async (namespace, name, key) =>
      (await this.volumeSources.configMap(namespace, name))?.[key]?.toString('utf8'),
    secretData: async (namespace, name) => texts(await this.volumeSources.secret(namespace, name)),
    configMapData: async (namespace, name) => texts(await this.volumeSources.configMap(namespace, name)),
  };

  private readonly volumeSources: VolumeSources = {
    serviceAccountToken: (pod, projection) => requestPodToken(this.api, pod, projection),
    secret: async (namespace, name) => {
      const secret = await absentIfNotFound(this.api.readNamespacedSecret({ name, namespace }));
      return secret && decoded(secret.data);
    },
    configMap: async (namespace, name) => {
      const configMap = await absentIfNotFound(this.api.readNamespacedConfigMap({ name, namespace }));
      return (
        configMap && {
          ...Object.fromEntries(Object.entries(configMap.data ?? {}).map(([k, v]) => [k, Buffer.from(v)])),
          ...decoded(configMap.binaryData),
        }
      );
    },
  };
}

async function absentIfNotFound<T extends V1Secret | V1ConfigMap>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (httpStatus(error) === 404) return undefined;
    throw error;
  }
}

function texts(data: Record<string, Buffer> | undefined): Record<string, string> | undefined {
  return data && Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toString('utf8')]));
}

function decoded(data: Record<string, string> | undefined): Record<string, Buffer> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
}

/** Resolves after `ms`, or at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return sleepFor(ms, undefined, { signal }).catch(() => undefined);
}

function isFinished(pod: V1Pod): boolean {
  return pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
}

function podName(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}
