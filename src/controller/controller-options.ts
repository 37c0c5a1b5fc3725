// What a Controller is made with: how to reach the cluster, who it is in Temporal, what it
// watches and the settings of `twc run` (cli/run/settings.ts maps them); a setting left out takes
// its default (api/defaults.ts).
import type { ClusterAccess } from '../runtime/kube/cluster-access.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import type { TokenRate } from '../runtime/token-bucket.ts';
import type { CallTimeouts } from '../temporal/channel.ts';
import type { ServiceAccountRef } from '../k8s/service-account-tokens.ts';
import type { PrometheusEndpoint } from '../domain/analysis-prometheus.ts';

export interface ControllerOptions {
  /** How to reach the Kubernetes API (a kubeconfig, or the cluster the controller runs in). */
  access: ClusterAccess;
  /** Unique to this installation: the manager identity it claims in Temporal. */
  identity: string;
  /** Watch only these namespaces (default: all). */
  namespaces?: readonly string[];
  pollIntervalMs?: number;
  concurrency?: number;
  maxIneligibleVersions?: number;
  /** The server's matching.maxVersionsInDeployment (default: Temporal's own, DEFAULT_MAX_VERSIONS_IN_DEPLOYMENT). */
  maxVersionsInDeployment?: number;
  rollbackWindowMs?: number;
  /** How long before a connection's certificate expires it is said (default: DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS). */
  certificateExpiryWarningMs?: number;
  /** The server's matching.PollerHistoryTTL, after which Ready Pods that never polled say NoPollers (default: DEFAULT_POLLER_HISTORY_MS). */
  pollerHistoryMs?: number;
  /** Reads per second of each Temporal namespace through each frontend, shared by all reconciles (default: DEFAULT_READS_PER_SECOND). */
  temporalReadBudget?: number;
  /** Calls to Temporal in flight at once per (frontend, Temporal namespace) (default: DEFAULT_TEMPORAL_CONCURRENCY). */
  temporalConcurrency?: number;
  /** How long a call to Temporal may take (default: DEFAULT_CALL_TIMEOUTS). */
  temporalTimeouts?: CallTimeouts;
  /** How long one reconcile may take before its slot goes to the next (default: DEFAULT_RECONCILE_TIMEOUT_MS). */
  reconcileTimeoutMs?: number;
  /** Temporal addresses dialled elsewhere (--temporal-connect-to). */
  temporalConnectTo?: ReadonlyMap<string, string>;
  /** Requests per second to the Kubernetes API beyond a burst (default: unlimited). */
  kubernetesRate?: TokenRate;
  /** Default: none. Each reconcile logs through a child with its `kind`, `object` (`namespace/name`) and `reconcile` (a count). */
  log?: Logger;
  /** Where the controller counts its reconciles and requests; default: a registry of its own. */
  metrics?: Metrics;
  /** How long a repeated event is only counted before its count is written (default 10 min; tests shorten it). */
  eventRepeatWindowMs?: number;
  /**
   * Read each build's backlog from Temporal for the backlog metrics, and each worker deployment's
   * pollers for its status (default: off).
   */
  backlogMetrics?: boolean;
  /**
   * Watch TemporalClusterConnections; default: only when watching every namespace (an install for
   * some namespaces has no right to them).
   */
  clusterConnections?: boolean;
  /** The controller's own service account, whose tokens cluster connections with serviceAccountToken send. */
  serviceAccount?: ServiceAccountRef;
  /** Audiences a cluster connection may have the controller's own token for (default: none). */
  ownTokenAudiences?: readonly string[];
  /** The ServiceAccount owned resources' copies are written as where a twor names none (default: none). */
  ownedResourcesServiceAccount?: string;
  /** URL prefixes spec.notifications may send to (--notification-destinations; default: none, notifications off). */
  notificationDestinations?: readonly string[];
  /** The Prometheus endpoints spec.rollout.analysis.metrics may query (--analysis-prometheus; default: none, metric analysis off). */
  analysisPrometheus?: readonly PrometheusEndpoint[];
  /** Renew each such token this long after it was issued, instead of at 80% of its life (tests). */
  serviceAccountTokenRenewMs?: number;
}
