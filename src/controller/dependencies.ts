// What a reconcile works with: the informers' caches to read, the adapters to Kubernetes and
// Temporal to act through, the clock, and the configuration the planner decides with; and where
// the controller builds them, all but what each reconcile adds of its own (dispatch.ts).
import type { V1ConfigMap, V1Deployment, V1Pod, V1Secret } from '@kubernetes/client-node';
import {
  DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS,
  DEFAULT_MAX_INELIGIBLE_VERSIONS,
  DEFAULT_MAX_VERSIONS_IN_DEPLOYMENT,
  DEFAULT_POLLER_HISTORY_MS,
  DEFAULT_ROLLBACK_WINDOW_MS,
} from '../api/defaults.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { ReadCertificate } from '../domain/certificates.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { cachedWorkerDeployment } from '../k8s/cached-objects.ts';
import { type ClusterClient, clusterClient } from '../k8s/cluster-client.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import type { PollersSeen } from '../domain/pollers.ts';
import type { Plan, PlannerConfig } from '../planner/plan.ts';
import type { Backoff, RetrySchedule } from '../runtime/backoff.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import type { WorkerDeploymentAddress, WorkerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import { statusFigures } from '../status/figures.ts';
import { analysisMetricsReader, type ReadAnalysisMetrics } from './analysis-metrics.ts';
import type { Caches } from './caches.ts';
import type { ControllerOptions } from './controller-options.ts';
import { EventRecorder, type RecordEvent } from './events.ts';
import type { LastDescribed } from './last-described.ts';
import type { Notifier } from './notifications.ts';
import type { SpecChanges } from './worker-deployment-changes.ts';

export interface ReconcilerDependencies extends PlannerConfig {
  cluster: ClusterClient;
  workerDeployment(namespace: string, name: string): TemporalWorkerDeployment | undefined;
  /** Of one namespace, or of every namespace watched. */
  workerDeployments(namespace?: string): readonly TemporalWorkerDeployment[];
  /** Whether TemporalClusterConnections are read at all (not by a controller of some namespaces). */
  watchesClusterConnections: boolean;
  /** A TemporalConnection, or with namespace '' a TemporalClusterConnection, as cached. */
  connection(namespace: string, name: string): TemporalConnection | undefined;
  /** The TemporalWorkerOwnedResources of a namespace, as cached. */
  ownedResources(namespace: string): readonly TemporalWorkerOwnedResource[];
  /** Per copy of an owned resource: when a refused one is tried again. */
  copyRetries: RetrySchedule<string>;
  /** The ServiceAccount owned resources' copies are written as where a twor names none (--owned-resources-service-account). */
  ownedResourcesServiceAccount?: string | undefined;
  /** A copy write its ServiceAccount may not make (see Metrics.countCopyForbidden). */
  countCopyForbidden?(namespace: string, kind: string, verb: string): void;
  deployments(namespace: string): V1Deployment[];
  /** The Pods of the controller's Deployments in the namespace, as cached. */
  pods(namespace: string): readonly V1Pod[];
  /** A Secret as cached, undefined when it does not exist. */
  secret(namespace: string, name: string): Promise<V1Secret | undefined>;
  /** A ConfigMap a Pod template reads, as cached, undefined when it does not exist. */
  configMap(namespace: string, name: string): Promise<V1ConfigMap | undefined>;
  /** A client of one Worker Deployment, through the connection's pooled and paced client. */
  temporal(connection: TemporalConnection, address: WorkerDeploymentAddress): Promise<WorkerDeploymentClient>;
  /** This reconcile's logger (its object and id bound): a line per action taken. */
  log: Logger;
  recordEvent: RecordEvent;
  /** Told of every status written (see runtime/own-writes.ts): `workerDeployment` returns it until the cache does. */
  wroteStatus(replaced: string | undefined, stored: TemporalWorkerDeployment): void;
  /** The workflows last counted on each old build of a worker deployment (see Metrics.setPinnedWorkflows). */
  setPinnedWorkflows(namespace: string, name: string, running: Record<string, number>): void;
  /** The objects the target build's Pods read that are missing (see Metrics.setMissingConfiguration); absent from models. */
  setMissingConfiguration?(namespace: string, name: string, missing: number): void;
  /** Reads spec.rollout.analysis.metrics (analysis-metrics.ts); absent: no endpoint is allowed, metric analysis is off. */
  analysisMetrics?: ReadAnalysisMetrics;
  /** A verdict of spec.rollout.analysis reached (see Metrics.countAnalysisVerdict). */
  countAnalysisVerdict(namespace: string, name: string, verdict: 'Passed' | 'Failed'): void;
  /** Rounds of moves of pinned workflows that ended (see Metrics.countPinnedWorkflowMoves); absent where nothing is measured. */
  countPinnedWorkflowMoves?(namespace: string, name: string, outcomes: NonNullable<Plan['moveOutcomes']>): void;
  /** Sends spec.notifications (see notifications.ts); absent where nothing is sent. */
  notifier?: Pick<Notifier, 'notify' | 'conditions'>;
  /** The status each reconcile leaves, for the gauges of /metrics (see Metrics.setStatusFigures); absent where nothing is measured. */
  statusSaid?(namespace: string, name: string, status: TemporalWorkerDeployment['status'] | undefined): void;
  /** The certificates of a connection's Secrets (see Metrics.setConnectionCertificates); absent where nothing is measured. */
  setConnectionCertificates?(namespace: string, name: string, certificates: readonly ReadCertificate[]): void;
  /** A cluster connection's copies revoked (see Metrics.countSecretCopyRevocation); absent from models without cluster connections. */
  countSecretCopyRevocation?(namespace: string, connection: string, result: 'deleted' | 'failed'): void;
  /** The builds' task queues and pollers as the leader last read them; undefined when not read (see FiguresCollector). */
  pollersSeen(namespace: string, name: string): PollersSeen | undefined;
  /** The builds of a worker deployment judged without pollers; undefined: not judged (see Metrics.setBuildsWithoutPollers). */
  setBuildsWithoutPollers(namespace: string, name: string, count: number | undefined): void;
  now(): Date;
  /** Per `namespace/name`: how long to wait after Temporal rate-limited a reconcile. */
  temporalBackoff: Backoff<string>;
  /** Per `namespace/name`: what Temporal last said of its Worker Deployment, in this process. */
  lastDescribed: LastDescribed;
  /** `changed` resolves when the informer next sees the worker deployment's spec change; `stop` when no longer waited for. */
  specChange(namespace: string, name: string): { changed: Promise<void>; stop(): void };
}

/** What every reconcile shares: each adds its own logger and Temporal client, cut off at its deadline. */
export type SharedDependencies = Omit<ReconcilerDependencies, 'log' | 'temporal'>;

export interface DependencySources {
  api: KubernetesApi;
  caches: Caches;
  metrics: Metrics;
  options: Pick<
    ControllerOptions,
    | 'identity'
    | 'eventRepeatWindowMs'
    | 'ownedResourcesServiceAccount'
    | 'maxIneligibleVersions'
    | 'maxVersionsInDeployment'
    | 'rollbackWindowMs'
    | 'certificateExpiryWarningMs'
    | 'pollerHistoryMs'
    | 'analysisPrometheus'
  >;
  pollIntervalMs: number;
  copyRetries: RetrySchedule<string>;
  temporalBackoff: Backoff<string>;
  lastDescribed: LastDescribed;
  specChanges: SpecChanges;
  pollersSeen: (namespace: string, name: string) => PollersSeen | undefined;
  notifier?: Notifier;
}

export function sharedDependencies(sources: DependencySources): SharedDependencies {
  const { api, caches, metrics, options } = sources;
  const limits = {
    maxIneligibleVersions: options.maxIneligibleVersions ?? DEFAULT_MAX_INELIGIBLE_VERSIONS,
    maxVersionsInDeployment: options.maxVersionsInDeployment ?? DEFAULT_MAX_VERSIONS_IN_DEPLOYMENT,
  };
  const events = new EventRecorder({
    api,
    instance: options.identity,
    ...(options.eventRepeatWindowMs === undefined ? {} : { repeatWindowMs: options.eventRepeatWindowMs }),
  });
  return {
    cluster: caches.ownDeploymentWrites.noting(clusterClient(api)),
    recordEvent: events.record,
    setPinnedWorkflows: metrics.setPinnedWorkflows,
    setMissingConfiguration: metrics.setMissingConfiguration,
    setBuildsWithoutPollers: metrics.setBuildsWithoutPollers,
    countAnalysisVerdict: metrics.countAnalysisVerdict,
    analysisMetrics: analysisMetricsReader({
      endpoints: options.analysisPrometheus ?? [],
      secret: (namespace, name) => caches.secrets.get(namespace, name),
      count: metrics.countAnalysisQuery,
    }),
    countPinnedWorkflowMoves: metrics.countPinnedWorkflowMoves,
    countSecretCopyRevocation: metrics.countSecretCopyRevocation,
    setConnectionCertificates: metrics.setConnectionCertificates,
    statusSaid: (namespace, name, status) =>
      metrics.setStatusFigures(namespace, name, status && statusFigures(status, limits)),
    pollersSeen: sources.pollersSeen,
    ...(sources.notifier ? { notifier: sources.notifier } : {}),
    workerDeployment: (namespace, name) => caches.ownWrites.newest(caches.workerDeployments.get(namespace, name)),
    // Kept as the informer keeps the object: until it shows the write, this copy stands for it.
    wroteStatus: (replaced, stored) => caches.ownWrites.wrote(replaced, cachedWorkerDeployment(stored)),
    workerDeployments: (namespace) => caches.workerDeployments.list(namespace),
    connection: (namespace, name) => caches.connections.get(namespace, name),
    watchesClusterConnections: caches.connections.readsClusterConnections,
    ownedResources: (namespace) => caches.ownedResources.list(namespace),
    copyRetries: sources.copyRetries,
    ownedResourcesServiceAccount: options.ownedResourcesServiceAccount,
    countCopyForbidden: metrics.countCopyForbidden,
    deployments: (namespace) => caches.ownDeploymentWrites.newest(namespace),
    pods: (namespace) => caches.pods.list(namespace),
    secret: (namespace, name) => caches.secrets.get(namespace, name),
    configMap: (namespace, name) => caches.configMaps.get(namespace, name),
    identity: options.identity,
    now: () => new Date(),
    pollIntervalMs: sources.pollIntervalMs,
    ...limits,
    rollbackWindowMs: options.rollbackWindowMs ?? DEFAULT_ROLLBACK_WINDOW_MS,
    certificateExpiryWarningMs: options.certificateExpiryWarningMs ?? DEFAULT_CERTIFICATE_EXPIRY_WARNING_MS,
    pollerHistoryMs: options.pollerHistoryMs ?? DEFAULT_POLLER_HISTORY_MS,
    temporalBackoff: sources.temporalBackoff,
    lastDescribed: sources.lastDescribed,
    specChange: (namespace, name) => sources.specChanges.wait(namespace, name),
  };
}
