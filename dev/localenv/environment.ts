// The local environment: real Kubernetes control-plane components, a real Temporal dev server
// and the node agent, each in its own process, all stopped together.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureBinaries, type Binaries, type Log, newerTemporal } from './binaries.ts';
import type { LocalNode } from '../node-agent/placement.ts';
import { installCrds } from './crds.ts';
import { startKubernetes } from './kubernetes.ts';
import { freePort } from './ports.ts';
import { Component } from './process.ts';
import { LOCAL_DYNAMIC_CONFIG, startTemporal } from './temporal.ts';

export interface EnvironmentOptions {
  /** A folder of CustomResourceDefinition YAML to install; waits until each is Established. */
  crdDir?: string;
  /** Run the node agent (default true); without it Pods stay Pending. */
  nodeAgent?: boolean;
  /** Nodes the agent registers besides NODE_NAME (no labels, no taints), e.g. one per node pool. */
  extraNodes?: LocalNode[];
  /**
   * The in-cluster host:port Temporal answers at for the Pods, as a Service's DNS name would in a
   * cluster (temporal-frontend.temporal.svc:7233); processes outside, such as a controller, dial
   * `temporalAddress` instead.
   */
  temporalServiceAddress?: string;
  /** Temporal dynamic config; defaults to short versioning intervals. */
  temporalDynamicConfig?: Record<string, unknown>;
  /**
   * Run the newer Temporal server (`Binaries.temporalNext`, 1.31.2) instead of 1.29.1. `npm start`
   * does: there a workflow asked to continue as new moves to the current build.
   */
  newerTemporal?: boolean;
  /** Serve Temporal's web UI (default: headless). */
  temporalUi?: boolean;
  /** Temporal namespaces to create besides `default`. */
  temporalNamespaces?: string[];
  /** Renew the Pods' projected service-account tokens this often instead of at 80% of their life (tests of rotation). */
  tokenRenewAfterSeconds?: number;
  /** Keep the temporary folder (logs, etcd data, kubeconfig) after stop(). */
  keepDir?: boolean;
  /** Keep Temporal's state in a file, so that `restart('temporal')` finds it again (default: in memory). */
  temporalKeepState?: boolean;
  log?: Log;
}

export interface Environment {
  /** Folder holding the kubeconfig, the components' logs and etcd's data. */
  dir: string;
  kubeconfigPath: string;
  kubeconfig: KubeConfig;
  /** Every request a service account made, as the API server's audit log (JSON lines). */
  auditLogPath: string;
  temporalAddress: string;
  temporalNamespace: string;
  /** Temporal's web UI, when asked for. */
  temporalUiUrl?: string;
  binaries: Binaries;
  /** The Temporal CLI whose dev server runs here, for commands against it. */
  temporalBinary: string;
  /** Where the node agent serves its hosted workers' SDK metrics (`host:port`, path /metrics), when it runs. */
  workerMetricsAddress?: string;
  /**
   * The node agent's image store: an image loaded here (`loadImage`) runs as a real process in
   * the Pods that name it, with its output in `podLogDir` (needs root; see image-container.ts).
   */
  imageStore: string;
  podLogDir: string;
  /** The processes it runs, for inspection. */
  processes: { name: string; pid: number | undefined }[];
  /**
   * Kills one component with SIGKILL, as a crash would, and starts it again after `downMs` with
   * the same ports and data; resolves once it serves again. Temporal needs `temporalKeepState`.
   */
  restart(component: RestartableComponent, downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export type RestartableComponent = 'etcd' | 'kube-apiserver' | 'temporal';

export const NODE_NAME = 'local-node';
const IMAGE_STORE = 'images';
const POD_LOG_DIR = 'pods';

export async function startEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
  const log = options.log ?? ((line: string) => console.error(line));
  const binaries = await ensureBinaries(log);
  const dir = mkdtempSync(path.join(tmpdir(), 'twc-env-'));
  const components: Component[] = [];
  const stop = async (): Promise<void> => {
    // Reverse order: workers before Temporal, the controller-manager before the apiserver before etcd.
    for (const component of components.reverse()) await component.stop();
    components.length = 0;
    if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const launchTemporal = (port?: number) =>
      startTemporal(
        dir,
        options.newerTemporal ? newerTemporal(binaries) : binaries,
        options.temporalDynamicConfig ?? LOCAL_DYNAMIC_CONFIG,
        {
          ui: options.temporalUi ?? false,
          namespaces: options.temporalNamespaces ?? [],
          ...(options.temporalKeepState ? { dbFilename: path.join(dir, 'temporal.db') } : {}),
          ...(port ? { port } : {}),
        },
      );
    // Both settle before either failure is thrown: the other may still be starting processes,
    // which the stop below must see to end them.
    const [started, launched] = await Promise.allSettled([
      startKubernetes(dir, binaries).then((k) => (components.push(...k.components), k)),
      launchTemporal().then((t) => (components.push(t.component), t)),
    ]);
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    const [kubernetes, temporal] = [started.value, launched.value];
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(kubernetes.kubeconfigPath);
    if (options.crdDir) await installCrds(kubeconfig, options.crdDir);
    let workerMetricsAddress: string | undefined;
    if (options.nodeAgent ?? true) {
      const nodes = [{ name: NODE_NAME, labels: {}, taints: [] }, ...(options.extraNodes ?? [])];
      const services = options.temporalServiceAddress ? { [options.temporalServiceAddress]: temporal.address } : {};
      workerMetricsAddress = `127.0.0.1:${await freePort()}`;
      components.push(
        await startNodeAgent(dir, kubernetes.kubeconfigPath, nodes, services, {
          tokenRenewAfterSeconds: options.tokenRenewAfterSeconds,
          sdkMetrics: workerMetricsAddress,
        }),
      );
    }
    return {
      dir,
      kubeconfigPath: kubernetes.kubeconfigPath,
      kubeconfig,
      auditLogPath: kubernetes.auditLogPath,
      temporalAddress: temporal.address,
      temporalNamespace: temporal.namespace,
      ...(temporal.uiUrl ? { temporalUiUrl: temporal.uiUrl } : {}),
      binaries,
      temporalBinary: options.newerTemporal ? binaries.temporalNext : binaries.temporal,
      ...(workerMetricsAddress ? { workerMetricsAddress } : {}),
      imageStore: path.join(dir, IMAGE_STORE),
      podLogDir: path.join(dir, POD_LOG_DIR),
      processes: components.map((c) => ({ name: c.name, pid: c.child.pid })),
      restart: async (name, downMs = 0) => {
        const index = components.findIndex((c) => c.name === (name === 'temporal' ? temporal.component.name : name));
        const old = components[index];
        if (!old) throw new Error(`no component ${name} to restart`);
        if (name === 'temporal') {
          if (!options.temporalKeepState) throw new Error('Temporal restarts only with temporalKeepState');
          old.child.kill('SIGKILL');
          await old.exited;
          await new Promise((resolve) => setTimeout(resolve, downMs));
          components[index] = (await launchTemporal(Number(temporal.address.split(':').at(-1)))).component;
          return;
        }
        const fresh = await old.restart(downMs);
        components[index] = fresh;
        // Either way the API server answers again once both are back.
        const core = kubeconfig.makeApiClient(CoreV1Api);
        await fresh.waitUntil('serving', () => core.listNamespace({ limit: 1 }).then(() => true), 90_000);
      },
      stop,
    };
  } catch (error) {
    await stop().catch(() => {}); // the error already carries the failed component's log tail
    throw error;
  }
}

async function startNodeAgent(
  dir: string,
  kubeconfigPath: string,
  nodes: LocalNode[],
  serviceAddresses: Record<string, string>,
  { tokenRenewAfterSeconds, sdkMetrics }: { tokenRenewAfterSeconds: number | undefined; sdkMetrics: string },
): Promise<Component> {
  const agent = new Component({
    name: 'node agent',
    command: process.execPath,
    args: [
      path.join(import.meta.dirname, '../node-agent/main.ts'),
      `--kubeconfig=${kubeconfigPath}`,
      `--nodes=${JSON.stringify(nodes)}`,
      `--service-addresses=${JSON.stringify(serviceAddresses)}`,
      `--image-store=${path.join(dir, IMAGE_STORE)}`,
      `--pod-log-dir=${path.join(dir, POD_LOG_DIR)}`,
      ...(tokenRenewAfterSeconds ? [`--token-renew-after=${tokenRenewAfterSeconds}`] : []),
      `--sdk-metrics=${sdkMetrics}`,
    ],
    logFile: path.join(dir, 'node-agent.log'),
    ipc: true,
  });
  let ready = false;
  agent.child.on('message', (message: { type?: string }) => (ready ||= message.type === 'ready'));
  try {
    await agent.waitUntil('ready', () => Promise.resolve(ready || undefined), 120_000);
  } catch (error) {
    await agent.stop();
    throw error;
  }
  return agent;
}
