// `twc dashboard`: serves the read-only dashboard (./dashboard) of the worker deployments the
// kubeconfig may see, until stopped.
import { serveDashboard } from './dashboard/server.ts';
import type { CommandScope } from './kube-context.ts';
import { commandWatch } from './status/watch.ts';

export interface DashboardOptions extends CommandScope {
  address: string;
  port: number;
}

/** Resolves once `stop` aborts and everything is closed; `ready` hears the page's address. */
export async function runDashboard(
  options: DashboardOptions,
  ready: (url: string) => void,
  stop: AbortSignal,
): Promise<void> {
  const { watch, close } = commandWatch(options, undefined);
  try {
    await watch.start();
    const dashboard = await serveDashboard(watch, { address: options.address, port: options.port });
    ready(dashboard.url);
    await new Promise((resolve) => stop.addEventListener('abort', resolve, { once: true }));
    await dashboard.close();
  } finally {
    await close();
  }
}
