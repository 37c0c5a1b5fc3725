// Drives one reconcile through the controller's own adapter interfaces (ClusterClient and
// WorkerDeploymentClient) over plain data, and records every call it makes, in order, as one line
// each: the orchestration tests assert that exact list. Nothing here imitates a server: each
// adapter method answers from the world the test describes, or throws the error the test gives it.
import type { V1ConfigMap, V1Deployment, V1Pod, V1Secret } from '@kubernetes/client-node';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import type { ReconcilerDependencies } from '../../src/controller/dependencies.ts';
import { LastDescribed } from '../../src/controller/last-described.ts';
import { Notifier } from '../../src/controller/notifications.ts';
import { fencedBy } from '../../src/controller/reconcile-deadline.ts';
import { reconcile } from '../../src/controller/reconciler.ts';
import type { OwnWrites } from '../../src/runtime/own-writes.ts';
import type { BatchProgress, BuildTaskQueues, GateRun, TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import type { MetricAnswer, OutcomeCounts } from '../../src/domain/observation.ts';
import type { PrometheusEndpoint } from '../../src/domain/analysis-prometheus.ts';
import { analysisMetricsReader } from '../../src/controller/analysis-metrics.ts';
import type { CheckRun, PinnedRun } from '../../src/domain/pinned-move.ts';
import type { PollersSeen } from '../../src/domain/pollers.ts';
import type { ServiceAccountRef } from '../../src/domain/token-policy.ts';
import type { ClusterClient, ListedObject } from '../../src/k8s/cluster-client.ts';
import { readConfiguration, withConfigurationDigests } from '../../src/k8s/configuration-digests.ts';
import { configurationReferences } from '../../src/k8s/configuration-references.ts';
import { versionedDeployment } from '../../src/k8s/versioned-deployment.ts';
import type { WorkerConnection } from '../../src/k8s/worker-connection.ts';
import { Backoff, RetrySchedule } from '../../src/runtime/backoff.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import type { ReconcileResult } from '../../src/runtime/work-queue.ts';
import type { WorkerDeploymentClient } from '../../src/temporal/worker-deployment-client.ts';

export const NAMESPACE = 'shop';
export const IDENTITY = 'twc-test';
export const TASK_QUEUE = 'orders';
/** The run ID Temporal gives every gate run the reconcile starts. */
export const STARTED_GATE_RUN = 'started-run';

export interface World {
  now: Date;
  workerDeployment: TemporalWorkerDeployment;
  connection: TemporalConnection;
  /** The connection as the API server holds it, read past the cache (readStored); default: as cached. */
  storedConnection?: TemporalConnection;
  deployments: V1Deployment[];
  /** The Pods of those Deployments; default: none. */
  pods?: V1Pod[];
  temporal: TemporalDeploymentState;
  /** The target's task queues; default: one queue polled for workflows and activities. */
  taskQueues?: BuildTaskQueues;
  unversionedPollers?: boolean;
  /** Gate runs by workflow ID. */
  gateRuns?: Record<string, GateRun>;
  /** What a ConfigMap or Secret key holds, by `Kind/name/key`. */
  keys?: Record<string, string>;
  /** An error thrown by the first call whose line starts with the key. */
  failures?: Record<string, unknown>;
  /** What deleteVersionRecord answers for a build whose pollers Temporal still remembers. */
  recordsWaiting?: string[];
  /** Workflows running per build, as visibility counts them; 0 when unsaid. */
  runningWorkflows?: Record<string, number>;
  /** Workflows closed per build in an analysis window, and how many failed; none when unsaid. */
  outcomes?: Record<string, OutcomeCounts>;
  /** The batch operations Temporal knows, by job ID. */
  batches?: Record<string, BatchProgress>;
  /** Per build: its running pinned workflows as visibility lists them. */
  pinnedRuns?: Record<string, PinnedRun[]>;
  /** Per workflow ID: a replay check's latest run. */
  replayChecks?: Record<string, CheckRun>;
  /** The worker deployment as the cache holds it from the first call whose line starts with `after` on (a change meanwhile, which the informer reports). */
  changed?: { after: string; workerDeployment: TemporalWorkerDeployment };
  /** Temporal never answers describe. */
  describeHangs?: boolean;
  /** Temporal answers describe only once this settles. */
  describeAnswersAfter?: Promise<unknown>;
  /** The reconcile's deadline: past it, its dependencies refuse every call, as the controller's do (reconcile-deadline.ts). */
  signal?: AbortSignal;
  /** Where the calls are recorded as they are made (default: a list of its own): a reconcile that never returns still shows them. */
  calls?: string[];
  /** The controller's record of its own status writes, shared by reconciles run one after another; default: none kept. */
  ownWrites?: OwnWrites<TemporalWorkerDeployment>;
  /** What Temporal last said of the Worker Deployment, shared by reconciles run one after another; default: nothing remembered. */
  lastDescribed?: LastDescribed;
  /** The builds' task queues and pollers the controller last read (see FiguresCollector); default: not read. */
  pollers?: PollersSeen;
  /** The TemporalWorkerOwnedResources of the namespace; default: none. */
  ownedResources?: TemporalWorkerOwnedResource[];
  /** Other objects of the namespace, as listObjects lists them (by kind and label selector); default: none. */
  objects?: ListedObject[];
  /** The Secrets of every namespace, as the cache holds them (and listObjects lists those of the worker deployment's); default: none. */
  secrets?: V1Secret[];
  /** The ConfigMaps of every namespace, as the cache holds them; default: none. */
  configMaps?: V1ConfigMap[];
  /** The worker deployment's namespace's labels, which a cluster connection's allowedNamespaces selects on; default: none. */
  namespaceLabels?: Record<string, string>;
  /** The controller's default ServiceAccount of owned resources' copies; default `copier`, '' for none. */
  copyAccount?: string;
  /** When refused copies are tried again, shared by reconciles run one after another; default: a schedule of its own. */
  copyRetries?: RetrySchedule<string>;
  /** The controller's --notification-destinations: spec.notifications is carried out (default: not at all, as without a notifier). */
  notificationDestinations?: string[];
  /** The Prometheus endpoints the controller allows (--analysis-prometheus); default: none. */
  analysisPrometheus?: PrometheusEndpoint[];
  /** Each Prometheus query's answer, by its text as sent; no series when unsaid. */
  metricAnswers?: Record<string, MetricAnswer>;
  /** The recorded Kubernetes adapter as the controller wraps it (OwnDeploymentWrites.noting, say); default: as it is. */
  cluster?: (recorded: ClusterClient) => ClusterClient;
}

function listedSecret(secret: V1Secret): ListedObject {
  const { name = '', namespace = '', ...metadata } = secret.metadata ?? {};
  return { apiVersion: 'v1', kind: 'Secret', metadata: { ...metadata, name, namespace } };
}

/** ` impersonating ns/name` when a call impersonates a ServiceAccount. */
function impersonating(as: ServiceAccountRef | undefined): string {
  return as ? ` impersonating ${as.namespace}/${as.name}` : '';
}

/** Whether a selector of `key=value` terms, comma-separated, selects these labels. */
function selects(selector: string, labels: Record<string, string>): boolean {
  return selector.split(',').every((term) => {
    const [key = '', value] = term.split('=');
    return labels[key] === value;
  });
}

export interface Recorded {
  result: ReconcileResult;
  /** Every adapter call, in order. */
  calls: string[];
  /** `Type Reason` of every event. */
  events: string[];
  /** Each event's reason and message: `Reason: message`. */
  eventMessages: string[];
  /** The status written, if one was. */
  status: TemporalWorkerDeployment['status'];
  /** The status written of each owned resource, by name. */
  ownedResourceStatuses: Record<string, TemporalWorkerOwnedResource['status']>;
  /** Each analysis verdict counted for the metric. */
  analysisVerdicts: string[];
  /** Each count of builds without pollers given to the metric (undefined: not judged). */
  buildsWithoutPollers: (number | undefined)[];
  /** Each cluster connection's copy revoked, or try failed, counted for the metric: `namespace connection result`. */
  secretCopyRevocations: string[];
  /** `Kind verb` of each copy write counted forbidden for the metric. */
  copiesForbidden: string[];
  /** Each notification queued: `receiver kind buildID`. */
  notifications: string[];
}

export const config = {
  identity: IDENTITY,
  pollIntervalMs: 10_000,
  maxIneligibleVersions: 75,
  maxVersionsInDeployment: 100,
  rollbackWindowMs: 3_600_000,
  pollerHistoryMs: 300_000,
};

export async function recordedReconcile(world: World): Promise<Recorded> {
  const calls: string[] = world.calls ?? [];
  const events: string[] = [];
  const analysisVerdicts: string[] = [];
  const buildsWithoutPollers: (number | undefined)[] = [];
  const secretCopyRevocations: string[] = [];
  const copiesForbidden: string[] = [];
  const eventMessages: string[] = [];
  const notifications: string[] = [];
  let status: Recorded['status'];
  const ownedResourceStatuses: Recorded['ownedResourceStatuses'] = {};
  const failures = new Map(Object.entries(world.failures ?? {}));
  let cachedWorkerDeployment = world.workerDeployment;
  const specListeners = new Set<() => void>();
  const call = (line: string): void => {
    calls.push(line);
    if (world.changed && line.startsWith(world.changed.after)) {
      cachedWorkerDeployment = world.changed.workerDeployment;
      for (const listener of specListeners) listener();
    }
    for (const [prefix, error] of failures) {
      if (!line.startsWith(prefix)) continue;
      failures.delete(prefix);
      throw error;
    }
  };
  let resourceVersion = Number(world.workerDeployment.metadata.resourceVersion ?? '1');
  const cluster: ClusterClient = {
    setFinalizers: (plural, object, finalizers) => {
      call(`k8s.setFinalizers ${plural}/${object.metadata.name} [${finalizers.join(',')}]`);
      return Promise.resolve(String(++resourceVersion));
    },
    readStored: (plural, object) => {
      call(`k8s.readStored ${plural}/${object.metadata.name}`);
      return Promise.resolve(plural.endsWith('connections') ? (world.storedConnection ?? world.connection) : undefined);
    },
    createDeployment: (d) => Promise.resolve(call(`k8s.createDeployment ${d.metadata?.name}`)),
    replaceDeployment: (d) => Promise.resolve(call(`k8s.replaceDeployment ${d.metadata?.name}`)),
    deleteDeployment: (_ns, name) => Promise.resolve(call(`k8s.deleteDeployment ${name}`)),
    scaleDeployment: (_ns, name, replicas) => Promise.resolve(call(`k8s.scaleDeployment ${name} ${replicas}`)),
    replaceStatus: (object) => {
      call(`k8s.replaceStatus ${object.metadata.name}@${object.metadata.resourceVersion}`);
      status = object.status;
      return Promise.resolve({
        ...object,
        metadata: { ...object.metadata, resourceVersion: String(++resourceVersion) },
      });
    },
    replaceConnectionStatus: (object) => {
      call(`k8s.replaceConnectionStatus ${object.metadata.name}`);
      return Promise.resolve('written');
    },
    replaceOwnedResourceStatus: (object) => {
      call(`k8s.replaceOwnedResourceStatus ${object.metadata.name}`);
      ownedResourceStatuses[object.metadata.name ?? ''] = object.status;
      return Promise.resolve('written');
    },
    setOwnerReferences: (plural, object, owners) => {
      call(
        `k8s.setOwnerReferences ${plural}/${object.metadata.name} [${owners.map((o) => `${o.kind}/${o.name}`).join(',')}]`,
      );
      return Promise.resolve(String(++resourceVersion));
    },
    apply: (object, fieldManager, as) =>
      Promise.resolve(call(`k8s.apply ${object.kind}/${object.metadata.name} as ${fieldManager}${impersonating(as)}`)),
    deleteObject: (object, as) =>
      Promise.resolve(call(`k8s.deleteObject ${object.kind}/${object.metadata.name}${impersonating(as)}`)),
    listObjects: (kind, namespace, selector, as) =>
      Promise.resolve(call(`k8s.listObjects ${kind.kind} ${selector}${impersonating(as)}`)).then(() =>
        [...(world.objects ?? []), ...(world.secrets ?? []).map(listedSecret)].filter(
          (o) =>
            o.kind === kind.kind && o.metadata.namespace === namespace && selects(selector, o.metadata.labels ?? {}),
        ),
      ),
    readKey: (_ns, ref) => {
      call(`k8s.readKey ${ref.kind}/${ref.name}`);
      const text = world.keys?.[`${ref.kind}/${ref.name}/${ref.key}`];
      return Promise.resolve(text === undefined ? { exists: false } : { exists: true, text });
    },
    namespaceLabels: (namespace) =>
      Promise.resolve(call(`k8s.namespaceLabels ${namespace}`)).then(() => world.namespaceLabels ?? {}),
  };
  const temporal: WorkerDeploymentClient = {
    describe: () =>
      Promise.resolve(call('temporal.describe'))
        .then(() => world.describeAnswersAfter)
        .then(() => (world.describeHangs ? new Promise<never>(() => {}) : world.temporal)),
    taskQueues: (buildId) =>
      Promise.resolve(call(`temporal.taskQueues ${buildId}`)).then(
        () => world.taskQueues ?? { workflow: [TASK_QUEUE], activity: [TASK_QUEUE] },
      ),
    unversionedPollersOnAll: (queues) =>
      Promise.resolve(call(`temporal.unversionedPollersOnAll ${queues.join(',')}`)).then(
        () => world.unversionedPollers ?? false,
      ),
    readGate: (id) => Promise.resolve(call(`temporal.readGate ${id}`)).then(() => world.gateRuns?.[id]),
    startGate: (buildId, gate) =>
      Promise.resolve(call(`temporal.startGate ${buildId} ${gate.workflowType} on ${gate.taskQueue}`)).then(
        () => STARTED_GATE_RUN,
      ),
    terminateGate: (id, runId) => Promise.resolve(call(`temporal.terminateGate ${id} ${runId}`)),
    deleteVersionRecord: (buildId, options) =>
      Promise.resolve(
        call(`temporal.deleteVersionRecord ${buildId}${options?.skipDrainage ? ' (skipping drainage)' : ''}`),
      ).then(() =>
        world.recordsWaiting?.includes(buildId)
          ? { deleted: false as const, waitingFor: `pollers of ${buildId}` }
          : { deleted: true as const },
      ),
    changeRouting: (change) => {
      const to =
        change.action === 'setCurrent'
          ? [change.buildId]
          : change.action === 'setRamp'
            ? [change.buildId, `${change.percentage}%`]
            : [];
      const claim = change.claimManager ? ['(claiming the manager identity)'] : [];
      const clearing =
        (change.action === 'setCurrent' || change.action === 'setUnversioned') && change.clearingRampOf
          ? [`clearing the ramp of ${change.clearingRampOf}`]
          : [];
      return Promise.resolve(call(['temporal.changeRouting', change.action, ...to, ...clearing, ...claim].join(' ')));
    },
    countRunningWorkflows: (buildId) =>
      Promise.resolve(call(`temporal.countRunningWorkflows ${buildId}`)).then(
        () => world.runningWorkflows?.[buildId] ?? 0,
      ),
    countOutcomes: (buildId, since) =>
      Promise.resolve(call(`temporal.countOutcomes ${buildId} since ${since.toISOString()}`)).then(
        () => world.outcomes?.[buildId] ?? { closed: 0, failed: 0 },
      ),
    deleteDeployment: () => Promise.resolve(call('temporal.deleteDeployment')),
    startBatch: (start) =>
      Promise.resolve(
        call(
          start.operation === 'Move'
            ? `temporal.startBatch Move ${start.jobId} onto ${start.onto}: ${start.executions.map((e) => e.workflowId).join(',')}`
            : `temporal.startBatch ${start.operation}${start.signalName ? ` ${start.signalName}` : ''} ${start.jobId} where ${start.query}`,
        ),
      ),
    listPinnedRuns: (buildId, limit) =>
      Promise.resolve(call(`temporal.listPinnedRuns ${buildId} (${limit})`)).then(
        () => world.pinnedRuns?.[buildId] ?? [],
      ),
    startReplayCheck: (onto, check) =>
      Promise.resolve(
        call(
          `temporal.startReplayCheck ${check.workflowId} on ${check.taskQueue} pinned to ${onto}: ${check.runs.map((r) => r.workflowId).join(',')}`,
        ),
      ),
    readReplayCheck: (id) =>
      Promise.resolve(call(`temporal.readReplayCheck ${id}`)).then(() => world.replayChecks?.[id]),
    describeBatch: (jobId) =>
      Promise.resolve(call(`temporal.describeBatch ${jobId}`)).then(() => world.batches?.[jobId]),
    stopBatch: (jobId) => Promise.resolve(call(`temporal.stopBatch ${jobId}`)),
    listRunningBatches: (prefix) =>
      Promise.resolve(call(`temporal.listRunningBatches ${prefix}`)).then(() =>
        Object.values(world.batches ?? {}).flatMap((b) =>
          b.state === 'Running' && b.jobId.startsWith(prefix) ? [b.jobId] : [],
        ),
      ),
  };
  const secret = (namespace: string, name: string) =>
    Promise.resolve(world.secrets?.find((s) => s.metadata?.namespace === namespace && s.metadata.name === name));
  const notifier = world.notificationDestinations
    ? new Notifier({
        allowed: world.notificationDestinations,
        secret,
        deliveries: {
          enqueue: (receiver, delivery) => {
            const { kind, buildID } = JSON.parse(delivery.body) as { kind: string; buildID: string };
            notifications.push(`${receiver} ${kind} ${buildID}`);
          },
        },
        countRefused: () => {},
        log: silentLogger,
        now: () => world.now,
      })
    : undefined;
  const deps: ReconcilerDependencies = {
    ...config,
    ...(notifier ? { notifier } : {}),
    cluster: world.cluster ? world.cluster(cluster) : cluster,
    workerDeployment: (namespace, name) =>
      namespace === NAMESPACE && name === world.workerDeployment.metadata.name
        ? (world.ownWrites?.newest(cachedWorkerDeployment) ?? cachedWorkerDeployment)
        : undefined,
    workerDeployments: () => [cachedWorkerDeployment],
    connection: (_namespace, name) => (name === world.connection.metadata.name ? world.connection : undefined),
    watchesClusterConnections: false,
    ownedResources: () => world.ownedResources ?? [],
    copyRetries: world.copyRetries ?? new RetrySchedule<string>(new Backoff({ baseMs: 5_000, maxMs: 300_000 })),
    ownedResourcesServiceAccount: world.copyAccount ?? 'copier',
    countCopyForbidden: (_namespace, kind, verb) => void copiesForbidden.push(`${kind} ${verb}`),
    deployments: () => world.deployments,
    pods: () => world.pods ?? [],
    secret,
    configMap: (namespace, name) =>
      Promise.resolve(world.configMaps?.find((c) => c.metadata?.namespace === namespace && c.metadata.name === name)),
    temporal: () => Promise.resolve(temporal),
    log: silentLogger,
    setPinnedWorkflows: () => {},
    setBuildsWithoutPollers: (_namespace, _name, count) => void buildsWithoutPollers.push(count),
    pollersSeen: () => world.pollers,
    countAnalysisVerdict: (_namespace, _name, verdict) => void analysisVerdicts.push(verdict),
    analysisMetrics: analysisMetricsReader({
      endpoints: world.analysisPrometheus ?? [],
      secret,
      query: ({ url, query, bearerToken }) =>
        Promise.resolve(
          call(`prometheus.query ${url} ${query}${bearerToken ? ` with bearer ${bearerToken}` : ''}`),
        ).then(() => world.metricAnswers?.[query] ?? { noSample: 'no series' }),
    }),
    countSecretCopyRevocation: (namespace, connection, result) =>
      void secretCopyRevocations.push(`${namespace} ${connection} ${result}`),
    wroteStatus: (replaced, stored) => world.ownWrites?.wrote(replaced, stored),
    recordEvent: (_about, event) => {
      events.push(`${event.type} ${event.reason}`);
      eventMessages.push(`${event.reason}: ${event.message}`);
      return Promise.resolve();
    },
    now: () => world.now,
    temporalBackoff: new Backoff({ baseMs: 10_000, maxMs: 300_000 }),
    lastDescribed: world.lastDescribed ?? new LastDescribed(),
    specChange: () => {
      let listener = (): void => {};
      const changed = new Promise<void>((resolve) => (listener = resolve));
      specListeners.add(listener);
      return { changed, stop: () => specListeners.delete(listener) };
    },
  };
  const result = await reconcile(
    world.signal ? fencedBy(deps, world.signal) : deps,
    NAMESPACE,
    world.workerDeployment.metadata.name ?? '',
  );
  // The notifier reads its receivers' Secrets before it queues: what it queued is in once they are read.
  if (notifier) await new Promise((resolve) => setImmediate(resolve));
  return {
    result,
    calls,
    events,
    eventMessages,
    status,
    ownedResourceStatuses,
    analysisVerdicts,
    buildsWithoutPollers,
    secretCopyRevocations,
    copiesForbidden,
    notifications,
  };
}

/** A worker deployment as the cache holds it, with the finalizer already on unless said otherwise. */
export function workerDeployment(
  spec: Partial<TemporalWorkerDeployment['spec']> & { buildId: string },
  metadata: Partial<TemporalWorkerDeployment['metadata']> = {},
  status?: TemporalWorkerDeployment['status'],
): TemporalWorkerDeployment {
  const { buildId, ...rest } = spec;
  return {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerDeployment',
    metadata: {
      name: 'orders',
      namespace: NAMESPACE,
      uid: 'uid-orders',
      generation: 1,
      resourceVersion: '10',
      finalizers: ['temporal.io/delete-protection'],
      ...metadata,
    },
    spec: {
      replicas: 2,
      workerOptions: {
        connectionRef: { name: 'temporal' },
        temporalNamespace: 'default',
        unsafeCustomBuildID: buildId,
      },
      template: { spec: { containers: [{ name: 'worker', image: `orders:${buildId}` }] } },
      ...rest,
    },
    ...(status ? { status } : {}),
  };
}

export function connection(finalizers = ['temporal.io/delete-protection']): TemporalConnection {
  return {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalConnection',
    metadata: { name: 'temporal', namespace: NAMESPACE, finalizers },
    spec: { hostPort: 'temporal:7233' },
  };
}

/** The Deployment the controller makes for a build of `owner`, available since `since` at `replicas`. */
export function deployment(
  owner: TemporalWorkerDeployment,
  buildId: string,
  options: {
    replicas?: number;
    since?: Date;
    available?: boolean;
    pool?: string;
    hostPort?: string;
    /** The connection as its workers see it (workerConnection); default: plaintext to hostPort. */
    workers?: WorkerConnection;
    /** The ConfigMaps and Secrets (each with its kind) when it was rolled: it carries the digests of those its template reads. */
    configuredWith?: (V1ConfigMap | V1Secret)[];
  } = {},
): V1Deployment {
  const pool = options.pool ? owner.spec.pools?.find((p) => p.name === options.pool) : undefined;
  const template = {
    ...owner,
    spec: { ...owner.spec, workerOptions: { ...owner.spec.workerOptions, unsafeCustomBuildID: buildId } },
  };
  const object = versionedDeployment({
    workerDeployment: template,
    connection: options.workers ?? { hostPort: options.hostPort ?? 'temporal:7233' },
    buildId,
    ...(pool ? { pool } : {}),
  });
  if (options.configuredWith && object.spec) {
    const objects = options.configuredWith;
    const read = readConfiguration(configurationReferences(object.spec.template), (kind, name) =>
      objects.find((o) => o.kind === kind && o.metadata?.name === name),
    );
    object.spec.template = withConfigurationDigests(object.spec.template, read.digests);
  }
  const replicas = options.replicas ?? object.spec?.replicas ?? 1;
  const available = options.available ?? true;
  return {
    ...object,
    metadata: {
      ...object.metadata,
      uid: `uid-${object.metadata?.name ?? ''}`,
      generation: 1,
      resourceVersion: '5',
      ownerReferences: [
        {
          apiVersion: 'temporal.io/v1alpha1',
          kind: 'TemporalWorkerDeployment',
          name: 'orders',
          uid: 'uid-orders',
          controller: true,
        },
      ],
    },
    spec: { ...object.spec!, replicas },
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      availableReplicas: available ? replicas : 0,
      conditions: [
        {
          type: 'Available',
          status: available ? 'True' : 'False',
          lastTransitionTime: options.since ?? new Date(0),
          reason: 'r',
        },
      ],
    },
  };
}
