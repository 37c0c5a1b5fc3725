// What `twc run` makes of its settings (cli/config.ts): the combinations it refuses, and the
// Controller's options.
import type { ControllerOptions } from '../../controller/controller-options.ts';
import type { BindAddress, Config } from '../config.ts';
import type { RunContext } from './context.ts';

/** Why these settings cannot run together; undefined when they can. */
export function settingsConflict(options: Config): string | undefined {
  if (options.leaderElectRenewDeadline >= options.leaderElectLeaseDuration)
    return `--leader-elect-renew-deadline (${options.leaderElectRenewDeadline / 1000}s) must be shorter than --leader-elect-lease-duration (${options.leaderElectLeaseDuration / 1000}s)`;
  if (options.leaderElectRenewPeriod >= options.leaderElectRenewDeadline)
    return `--leader-elect-renew-period (${options.leaderElectRenewPeriod / 1000}s) must be shorter than --leader-elect-renew-deadline (${options.leaderElectRenewDeadline / 1000}s)`;
  const sameAddress = (a: BindAddress | false, b: BindAddress | false) =>
    a && b && a.port === b.port && (a.host ?? '') === (b.host ?? '');
  if (options.metricsSecure && sameAddress(options.metricsBindAddress, options.healthProbeBindAddress))
    return '--metrics-secure serves /metrics over HTTPS, which the probes on the same --health-probe-bind-address cannot share: give --metrics-bind-address an address of its own';
  const unknown = options.analysisPrometheusTenantAuth.find(
    (n) => !options.analysisPrometheus.some((e) => e.name === n),
  );
  if (unknown !== undefined)
    return `--analysis-prometheus-tenant-auth names ${unknown}, which --analysis-prometheus does not`;
  const longestCall = Math.max(options.temporalReadTimeout, options.temporalWriteTimeout);
  if (options.reconcileTimeout <= longestCall)
    return `--reconcile-timeout (${options.reconcileTimeout / 1000}s) must be longer than --temporal-read-timeout and --temporal-write-timeout (${longestCall / 1000}s)`;
  return undefined;
}

export function controllerOptions({ options, access, metrics, log }: RunContext): ControllerOptions {
  return {
    access,
    identity: options.identity,
    ...(options.namespace ? { namespaces: options.namespace } : {}),
    pollIntervalMs: options.pollInterval,
    concurrency: options.concurrency,
    maxIneligibleVersions: options.maxIneligibleVersions,
    maxVersionsInDeployment: options.temporalMaxVersionsInDeployment,
    rollbackWindowMs: options.rollbackWindow,
    certificateExpiryWarningMs: options.certificateExpiryWarning,
    pollerHistoryMs: options.pollerHistory,
    temporalReadBudget: options.temporalReadBudget,
    temporalConcurrency: options.temporalConcurrency,
    temporalTimeouts: { readMs: options.temporalReadTimeout, writeMs: options.temporalWriteTimeout },
    reconcileTimeoutMs: options.reconcileTimeout,
    ...(options.temporalConnectTo ? { temporalConnectTo: options.temporalConnectTo } : {}),
    kubernetesRate: { perSecond: options.kubeApiQps, burst: options.kubeApiBurst },
    backlogMetrics: options.backlogMetrics,
    ...(options.serviceAccount ? { serviceAccount: options.serviceAccount } : {}),
    ownTokenAudiences: options.ownTokenAudiences,
    notificationDestinations: options.notificationDestinations,
    analysisPrometheus: options.analysisPrometheus.map((endpoint) => ({
      ...endpoint,
      tenantAuth: options.analysisPrometheusTenantAuth.includes(endpoint.name),
    })),
    ...(options.ownedResourcesServiceAccount
      ? { ownedResourcesServiceAccount: options.ownedResourcesServiceAccount }
      : {}),
    metrics,
    log,
  };
}
