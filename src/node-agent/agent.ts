// A stand-in for the kubelet, since nothing runs containers here: it registers its Nodes, binds
// the Pods nobody schedules to one they fit (placement.ts) or marks them Unschedulable as the
// scheduler would, runs each bound Pod as a sample worker, and reports Pod status the way a
// kubelet would, so that the real Deployment controller sees real availability.
import {
  CoreV1Api,
  type Informer,
  type KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Pod,
  type V1PodCondition,
  type V1PodStatus,
  type V1Secret,
} from '@kubernetes/client-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { httpStatus } from '../k8s/api-errors.ts';
import { readConfig } from '../sample-worker/config.ts';
import { resolveEnv, type EnvSources } from './container-env.ts';
import { type LocalNode, placePod } from './placement.ts';
import { podStatus, type WorkerState } from './pod-status.ts';
import { mountVolumes, PodVolumeError, underMounts, type VolumeSources } from './pod-volumes.ts';
import { WorkerHost, type HostedWorker } from './worker-host.ts';

export type AgentLog = (message: string) => void;

/** The worker of one Pod, restarted with backoff like a kubelet restarts a container. */
interface PodWorker {
  current?: HostedWorker;
  stopped: AbortController;
  supervised: Promise<void>;
}

const BACKOFF_START_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

export class NodeAgent {
  readonly nodes: readonly LocalNode[];
  private readonly kubeconfig: KubeConfig;
  private readonly api: CoreV1Api;
  private readonly log: AgentLog;
  private readonly host = new WorkerHost();
  private readonly workers = new Map<string, PodWorker>();
  private readonly binding = new Set<string>();
  private readonly finalizing = new Set<string>();
  private informer: Informer<V1Pod> | undefined;
  /** Where each Pod's volumes are written, one directory per Pod UID; only this process may read it. */
  private volumesDir: string | undefined;
  private stopped = false;

  /**
   * Cluster DNS as the Pods here see it: a Service's host:port (temporal-frontend.temporal.svc:7233)
   * and the local address that serves it.
   */
  private readonly serviceAddresses: ReadonlyMap<string, string>;

  constructor(
    kubeconfig: KubeConfig,
    nodes: readonly LocalNode[],
    options: { serviceAddresses?: ReadonlyMap<string, string>; log?: AgentLog } = {},
  ) {
    if (nodes.length === 0) throw new Error('the node agent needs a node');
    this.kubeconfig = kubeconfig;
    this.nodes = nodes;
    this.serviceAddresses = options.serviceAddresses ?? new Map();
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
   * waits (ContainerCreating), one that cannot be configured too (CreateContainerConfigError); one that fails is restarted with backoff (CrashLoopBackOff),
   * unless the Pod's restartPolicy is Never, which makes the Pod Failed.
   */
  private async supervise(pod: V1Pod, entry: PodWorker): Promise<void> {
    const signal = entry.stopped.signal;
    const restartPolicy = pod.spec?.restartPolicy ?? 'Always';
    let restarts = 0;
    let failures = 0; // in a row, for the backoff
    while (!signal.aborted) {
      const backoff = Math.min(BACKOFF_START_MS * 2 ** failures++, BACKOFF_MAX_MS);
      let config;
      try {
        const container = pod.spec?.containers[0];
        if (!container) throw new Error('the Pod has no container');
        const mounts = await mountVolumes(
          pod,
          container,
          this.volumeSources,
          this.podVolumesDir(pod.metadata?.uid ?? ''),
        );
        config = readConfig(underMounts(await resolveEnv(pod, container, this.envSources), mounts));
        config = { ...config, address: this.serviceAddresses.get(config.address) ?? config.address };
      } catch (error) {
        const reason = error instanceof PodVolumeError ? 'ContainerCreating' : 'CreateContainerConfigError';
        await this.report(pod, { kind: 'waiting', reason, message: errorMessage(error), restarts });
        await sleep(backoff, signal);
        continue;
      }
      let phase = 'failed to start';
      try {
        entry.current = await this.host.start(config, `${podName(pod)}@${pod.spec?.nodeName ?? ''}`);
        if (signal.aborted) break;
        phase = 'stopped';
        failures = 0;
        await this.report(pod, { kind: 'running', restarts });
        await entry.current.done;
        return; // a requested stop
      } catch (error) {
        entry.current = undefined;
        if (signal.aborted) break;
        const failure = `worker ${phase}: ${errorMessage(error)}`;
        this.log(`pod ${podName(pod)}: ${failure}`);
        if (restartPolicy === 'Never') {
          await this.report(pod, { kind: 'failed', message: failure, restarts });
          return;
        }
        restarts++;
        const message = `back-off ${backoff / 1000}s restarting the failed worker`;
        await this.report(pod, {
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
    await rm(this.podVolumesDir(uid), { recursive: true, force: true });
  }

  private podVolumesDir(uid: string): string {
    if (!this.volumesDir) throw new Error('the node agent has not started');
    return path.join(this.volumesDir, uid);
  }

  private async report(pod: V1Pod, state: WorkerState): Promise<void> {
    await this.patchStatus(pod, podStatus(pod, state, new Date())).catch((error: unknown) =>
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
  };

  private readonly volumeSources: VolumeSources = {
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
