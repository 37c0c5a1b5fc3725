// The validating webhook of TemporalWorkerOwnedResources, served by every replica, leader or not:
// the API server calls whichever the Service picks. With backlog metrics, the external metrics API
// shares its port, answered by the leader only, which holds the figures (a standby says so).
import { externalMetricsHandler, type ExternalMetricsOptions } from '../../external-metrics/api-server.ts';
import { KubernetesApi } from '../../runtime/kube/api-client.ts';
import { errorMessage } from '../../runtime/kube/api-errors.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { Metrics } from '../../runtime/metrics.ts';
import { SelfManagedCertificates } from '../../webhook/self-managed-certificates.ts';
import {
  OWNED_RESOURCE_WEBHOOK_PATH,
  type RunningWebhook,
  startWebhook,
  WEBHOOK_KUBERNETES_RATE,
} from '../../webhook/server.ts';
import { directoryCertificates, type ServingCertificates } from '../../webhook/serving-certificates.ts';
import type { BindAddress, Config } from '../config.ts';
import type { RunContext } from './context.ts';

export interface ServedWebhook {
  /** The server once it serves; undefined when stopped first. */
  running: Promise<RunningWebhook | undefined>;
  /** Whether it serves: it has its certificate. */
  serving(): boolean;
  certificates: ServingCertificates;
}

/**
 * Not waited for: a certificate that cannot be had yet is retried, and the replica is not ready
 * meanwhile. A webhook that cannot be served ends the process, unless it is `stopping`.
 * `figures`: the backlog figures a query asks for, undefined while this replica does not lead.
 */
export function serveWebhook(
  { options, access, metrics, log }: RunContext,
  address: BindAddress,
  figures: ExternalMetricsOptions['figures'],
  stopping: () => boolean,
): ServedWebhook {
  const webhookLog = log.child({ webhook: OWNED_RESOURCE_WEBHOOK_PATH });
  const api = new KubernetesApi({ access, count: metrics.countKubernetesRequest, rate: WEBHOOK_KUBERNETES_RATE });
  const certificates = servingCertificates(options, api, metrics, webhookLog);
  let serving = false;
  const running = startWebhook({
    bindAddress: address,
    certificates,
    api,
    bannedKinds: options.ownedResourceBannedKinds,
    ...(options.ownedResourcesServiceAccount
      ? { ownedResourcesServiceAccount: options.ownedResourcesServiceAccount }
      : {}),
    log: webhookLog,
    ...(options.backlogMetrics
      ? { alsoServe: externalMetricsHandler({ api, figures, log: log.child({ api: 'external.metrics.k8s.io' }) }) }
      : {}),
  }).then(
    (running) => {
      serving = true;
      webhookLog.info({ address: `${address.host ?? '*'}:${running.port}` }, 'serving the webhook');
      return running;
    },
    (error: unknown) => {
      if (stopping()) return undefined;
      webhookLog.error({ error: errorMessage(error) }, 'could not serve the webhook; exiting');
      process.exit(1);
    },
  );
  return { running, serving: () => serving, certificates };
}

function servingCertificates(options: Config, api: KubernetesApi, metrics: Metrics, log: Logger): ServingCertificates {
  if (options.webhookCerts === 'cert-dir') return directoryCertificates(options.webhookCertDir, log);
  const services = [options.webhookService, ...(options.backlogMetrics ? [options.externalMetricsService] : [])].map(
    (name) => `${name}.${options.webhookNamespace}.svc`,
  );
  return new SelfManagedCertificates({
    api,
    secret: { namespace: options.webhookNamespace, name: options.webhookCertSecret },
    configuration: options.webhookConfiguration,
    ...(options.backlogMetrics && options.externalMetricsApiService
      ? { apiService: options.externalMetricsApiService }
      : {}),
    hosts: services.flatMap((service) => [service, `${service}.cluster.local`]),
    lifetimeMs: options.webhookCertLifetime,
    log,
    report: metrics.webhookCertificates,
  });
}
