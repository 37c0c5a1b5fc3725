// The dashboard `twc run` serves beside the controller (--dashboard-bind-address), as `twc
// dashboard` serves it: every replica, leader or not, since it reads the cluster, not the controller.
import { GROUP, KINDS } from '../../api/kinds.ts';
import { bearerAccess } from '../../runtime/bearer-access.ts';
import { KubernetesApi } from '../../runtime/kube/api-client.ts';
import { errorMessage } from '../../runtime/kube/api-errors.ts';
import type { ClusterAccess } from '../../runtime/kube/cluster-access.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { BindAddress } from '../config.ts';
import { ACCESS_REVIEW_RATE } from './endpoints.ts';

/** The dashboard's watch and page; a failure to start is logged, and the controller runs on without it. */
export async function startDashboard(
  access: ClusterAccess,
  namespaces: readonly string[] | undefined,
  address: BindAddress,
  log: Logger,
  requireToken: boolean,
): Promise<{ close(): Promise<void> } | undefined> {
  // Loaded only when asked for: the watch's module brings the Kubernetes client library.
  const [{ WorkerDeploymentWatch }, { serveDashboard }] = await Promise.all([
    import('../status/watch.ts'),
    import('../dashboard/server.ts'),
  ]);
  const dashboardLog = log.child({ server: 'dashboard' });
  const api = new KubernetesApi({ access });
  const watch = new WorkerDeploymentWatch(api, { namespaces, name: undefined });
  try {
    await watch.start();
    // Whoever may list the worker deployments the dashboard shows may see them there.
    const list = (namespace?: string) => ({
      resourceAttributes: {
        group: GROUP,
        resource: KINDS.TemporalWorkerDeployment.plural,
        verb: 'list',
        ...(namespace ? { namespace } : {}),
      },
    });
    const protection = requireToken
      ? {
          access: bearerAccess(
            new KubernetesApi({ access, rate: ACCESS_REVIEW_RATE }),
            namespaces?.map(list) ?? [list()],
          ),
        }
      : {};
    const served = await serveDashboard(
      watch,
      { ...(address.host ? { address: address.host } : {}), port: address.port },
      protection,
    );
    dashboardLog.info({ url: served.url }, 'serving the dashboard');
    return {
      close: async () => {
        await served.close();
        await watch.stop();
        api.close();
      },
    };
  } catch (error) {
    dashboardLog.error({ error: errorMessage(error) }, 'cannot serve the dashboard');
    await watch.stop();
    api.close();
    return undefined;
  }
}
