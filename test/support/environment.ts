// What an integration test gets from the shared environment, and helpers that keep tests apart:
// each test works in a Kubernetes namespace and on Temporal task queues of its own.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { KubernetesApi, type KubernetesRequestCounter } from '../../src/runtime/kube/api-client.ts';
import { type ClusterAccess, kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { TemporalChannel } from '../../src/temporal/channel.ts';
import type { WorkflowService } from '../../src/temporal/protocol.ts';
import { parse, stringify } from 'yaml';

export const SHARED_ENVIRONMENT_VARIABLE = 'TWC_TEST_ENVIRONMENT';

export interface SharedEnvironment {
  kubeconfigPath: string;
  temporalAddress: string;
  temporalNamespace: string;
  dir: string;
  kubeBinary: string;
  /** Acts as the chart's ServiceAccount, with the chart's RBAC (see controller-rbac.ts). */
  controllerKubeconfigPath: string;
  /** Images loaded here run as processes in the Pods that name them; their output goes to podLogDir. */
  imageStore: string;
  podLogDir: string;
  /** The API server's record of every service account's requests. */
  auditLogPath: string;
  /** Where the hosted sample workers' SDK metrics are served (`host:port`, path /metrics), for Prometheus. */
  workerMetricsAddress: string;
}

export function sharedEnvironment(): SharedEnvironment {
  const value = process.env[SHARED_ENVIRONMENT_VARIABLE];
  if (!value) {
    throw new Error(
      `${SHARED_ENVIRONMENT_VARIABLE} is not set: integration tests run under \`npm test\`, whose global setup starts the environment`,
    );
  }
  return JSON.parse(value) as SharedEnvironment;
}

export function kubeConfig(): KubeConfig {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(sharedEnvironment().kubeconfigPath);
  return kubeconfig;
}

/** The shared cluster as an administrator reaches it. */
export function clusterAccess(): ClusterAccess {
  return kubeconfigAccess({ file: sharedEnvironment().kubeconfigPath });
}

/** The shared cluster as the controller installed by the chart reaches it: with the chart's RBAC. */
export function controllerAccess(): ClusterAccess {
  return kubeconfigAccess({ file: sharedEnvironment().controllerKubeconfigPath });
}

/** Writes to `file` the kubeconfig at `base` with `token` in place of its users' credentials; returns `file`. */
export function kubeconfigWithToken(base: string, token: string, file: string): string {
  const kubeconfig = parse(readFileSync(base, 'utf8')) as { users: { user: Record<string, unknown> }[] };
  for (const entry of kubeconfig.users) entry.user = { token };
  writeFileSync(file, stringify(kubeconfig), { mode: 0o600 });
  return file;
}

/** The controller's own client of the shared cluster, closed when the test ends. */
export function kubernetesApi(t: TestContext, options: { count?: KubernetesRequestCounter } = {}): KubernetesApi {
  const api = new KubernetesApi({ access: clusterAccess(), ...options });
  t.after(() => api.close());
  return api;
}

/** A name unique to this run, usable as a namespace, Deployment, task queue or deployment name. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A fresh namespace for one test, deleted when the test ends. */
export async function testNamespace(t: TestContext, prefix = 'test'): Promise<string> {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name } } });
  t.after(() => core.deleteNamespace({ name }).then(() => undefined));
  return name;
}

/** A Temporal client on the shared dev server, closed when the test ends. */
export async function temporalClient(t: TestContext): Promise<Client> {
  const { temporalAddress, temporalNamespace } = sharedEnvironment();
  const connection = await Connection.connect({ address: temporalAddress });
  t.after(() => connection.close());
  return new Client({ connection, namespace: temporalNamespace });
}

/** The controller's own channel to Temporal at `address` (the shared server's by default), closed when the test ends. */
export function temporalService(t: TestContext, address = sharedEnvironment().temporalAddress): WorkflowService {
  const channel = new TemporalChannel({ address });
  t.after(() => channel.close());
  return channel.service;
}

/** Polls until `check` returns a value; the failure names what was awaited and the last value seen. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result !== undefined) return result;
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs / 1000}s waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
