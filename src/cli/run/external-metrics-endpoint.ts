// The leader writes itself in as the one endpoint of the external metrics Service: only it holds
// the backlog figures the external metrics API serves.
import { publishLeaderEndpoint } from '../../k8s/leader-endpoint.ts';
import { Backoff } from '../../runtime/backoff.ts';
import { KubernetesApi } from '../../runtime/kube/api-client.ts';
import { errorMessage } from '../../runtime/kube/api-errors.ts';
import type { RunContext } from './context.ts';

/** Retried until written, or until `stopping`; nothing without --external-metrics-advertise-address. */
export async function advertiseExternalMetrics(
  { options, access, metrics, log }: RunContext,
  port: number,
  stopping: () => boolean,
): Promise<void> {
  const address = options.externalMetricsAdvertiseAddress;
  if (!address) return;
  const endpoint = { namespace: options.webhookNamespace, service: options.externalMetricsService, address, port };
  const endpointLog = log.child({ service: `${endpoint.namespace}/${endpoint.service}` });
  const api = new KubernetesApi({ access, count: metrics.countKubernetesRequest });
  const backoff = new Backoff<'write'>({ baseMs: 1000, maxMs: 60_000, jitter: 0.2 });
  while (!stopping()) {
    try {
      await publishLeaderEndpoint(api, endpoint);
      endpointLog.info({ address, port }, 'this replica is the endpoint of the external metrics Service');
      return;
    } catch (error) {
      const retryInMs = backoff.next('write');
      endpointLog.error(
        { error: errorMessage(error), retryInMs: Math.round(retryInMs) },
        'could not write this replica into the external metrics Service',
      );
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}
