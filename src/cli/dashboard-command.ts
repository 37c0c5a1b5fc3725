// `twc dashboard`: serves the read-only dashboard (../dashboard) of the worker deployments the
// kubeconfig may see, until stopped.
import { serveDashboard } from '../dashboard/server.ts';
import { KubernetesApi } from '../runtime/kube/api-client.ts';
import { defaultClusterAccess, kubeconfigAccess } from '../runtime/kube/cluster-access.ts';
import { contextNamespace } from './kube-context.ts';
import { WorkerDeploymentWatch } from './status/watch.ts';

export interface DashboardOptions {
  namespace?: string;
  allNamespaces?: boolean;
  address: string;
  port: number;
  kubeconfig?: string;
}

/** Resolves once `stop` aborts and everything is closed; `ready` hears the page's address. */
export async function runDashboard(
  options: DashboardOptions,
  ready: (url: string) => void,
  stop: AbortSignal,
): Promise<void> {
  const access = options.kubeconfig ? kubeconfigAccess({ file: options.kubeconfig }) : defaultClusterAccess();
  const namespace = options.allNamespaces ? undefined : (options.namespace ?? contextNamespace(options.kubeconfig));
  const api = new KubernetesApi({ access });
  const watch = new WorkerDeploymentWatch(api, {
    namespaces: namespace === undefined ? undefined : [namespace],
    name: undefined,
  });
  try {
    await watch.start();
    const dashboard = await serveDashboard(watch, { address: options.address, port: options.port });
    ready(dashboard.url);
    await new Promise((resolve) => stop.addEventListener('abort', resolve, { once: true }));
    await dashboard.close();
  } finally {
    await watch.stop();
    api.close();
  }
}
