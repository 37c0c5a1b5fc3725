// Wires the reconciler to events: informers fill the caches and queue the affected worker
// deployments, the work queue runs reconciles, and each reconcile asks to be run again when
// Temporal may have changed (drainage) or a pause or delay runs out.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { GROUP, KINDS, VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import { clusterClient } from '../k8s/cluster-client.ts';
import { LABELS, temporalDeploymentName } from '../k8s/names.ts';
import { podProblems } from '../k8s/pod-problems.ts';
import { Backoff, RetrySchedule } from '../runtime/backoff.ts';
import { NamespacedInformers } from '../runtime/namespaced-informers.ts';
import { KubernetesApi } from '../runtime/kube/api-client.ts';
import type { ClusterAccess } from '../runtime/kube/cluster-access.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';
import { Metrics } from '../runtime/metrics.ts';
import { OwnDeploymentWrites } from '../k8s/own-deployment-writes.ts';
import { OwnWrites } from '../runtime/own-writes.ts';
import { SecretWatches } from '../runtime/secret-watches.ts';
import type { TokenRate } from '../runtime/token-bucket.ts';
import { type Priority, type ReconcileResult, ReconcileTimeoutError, WorkQueue } from '../runtime/work-queue.ts';
import { statusName } from '../temporal/call-status.ts';
import type { CallTimeouts } from '../temporal/channel.ts';
import { TemporalClientPool } from '../temporal/client-pool.ts';
import { connectionKindOf, usesConnection } from '../domain/connection-ref.ts';
import { secretCopyNames } from '../k8s/secret-copies.ts';
import {
  type ServiceAccountRef,
  ServiceAccountTokens,
  tokenRequester,
  tokenReviewer,
} from '../k8s/service-account-tokens.ts';
import { ConnectionCaches } from './connection-caches.ts';
import { lookupSecrets, missingSecret, referencedSecrets, workerSecrets } from '../temporal/credentials.ts';
import { DEFAULT_READS_PER_SECOND, TemporalReadBudget } from '../temporal/read-budget.ts';
import { type WorkerDeploymentAddress, workerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import { DrainageRechecks } from '../temporal/drainage-rechecks.ts';
import { PollerRefusals } from '../temporal/version-records.ts';
import type { BuildBacklog } from '../domain/backlog.ts';
import { pollersByBuild } from '../temporal/task-queues.ts';
import { readVersionBacklog } from '../temporal/version-backlog.ts';
import { FiguresCollector, type FiguresSource } from './figures-collector.ts';
import {
  backlogKey,
  POLLERS_INTERVALS,
  type PollersSource,
  pollersKey,
  samePollers,
  type TemporalFigures,
} from './temporal-figures.ts';
import { checkConnection } from './connection-check.ts';
import { releaseConnection } from './connection-release.ts';
import { reconcileOwnedResource } from './owned-resource-release.ts';
import { ofOwnedResource } from './owned-resources.ts';
import { isBeingDeleted } from '../domain/finalizer.ts';
import { callsForReconcile, changeOf } from './worker-deployment-changes.ts';
import { EventRecorder } from './events.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import { fencedBy } from './reconcile-deadline.ts';
import { reconcile } from './reconciler.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';

/** Queue keys: `namespace/name` of a worker deployment, or this prefix and `namespace/name` of a connection. */
const CONNECTION_KEY = 'connection:';
const OWNED_RESOURCE_KEY = 'owned:';

/**
 * A backstop for what no call's own timeout bounds (many slow calls in a row): a reconcile takes
 * a second or two (2.5 s at the scale run's 99th percentile), and one whose Temporal call ran out
 * its timeout (30 s for a write) still has the time to write a status that says so (a Kubernetes
 * request waits up to 30 s), so the reconcile's own deadline seldom has to cut anything off.
 */
export const DEFAULT_RECONCILE_TIMEOUT_MS = 120_000;

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
  /** The server's matching.maxVersionsInDeployment (default 100, Temporal's default). */
  maxVersionsInDeployment?: number;
  rollbackWindowMs?: number;
  /** Reads per second of each Temporal namespace through each frontend, shared by all reconciles (default 20). */
  temporalReadBudget?: number;
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
  /** Renew each such token this long after it was issued, instead of at 80% of its life (tests). */
  serviceAccountTokenRenewMs?: number;
}

export class Controller {
  private readonly api: KubernetesApi;
  private readonly queue: WorkQueue<string>;
  private readonly workerDeployments: NamespacedInformers<TemporalWorkerDeployment>;
  /** Status writes the informer has not shown yet: reconciles decide on them, not on the older copy. */
  private readonly ownWrites = new OwnWrites<TemporalWorkerDeployment>();
  private readonly connections: ConnectionCaches;
  private readonly ownedResources: NamespacedInformers<TemporalWorkerOwnedResource>;
  private readonly deployments: NamespacedInformers<V1Deployment>;
  /** Scales and deletes of Deployments the informer has not shown yet: reconciles decide on them. */
  private readonly ownDeploymentWrites: OwnDeploymentWrites;
  private readonly pods: NamespacedInformers<V1Pod>;
  /** Per Pod uid, what it last said was wrong: only a change of that brings a reconcile. */
  private readonly podTrouble = new Map<string, string>();
  private readonly secrets: SecretWatches;
  private readonly clients: TemporalClientPool;
  private readonly metrics: Metrics;
  private readonly reads: TemporalReadBudget;
  private readonly refusals: PollerRefusals;
  private readonly drainage: DrainageRechecks;
  private readonly figures: FiguresCollector<TemporalFigures> | undefined;
  private readonly pollIntervalMs: number;
  /** Per worker deployment, what of it calls for a reconcile when it changes (see changeOf). */
  private readonly seenChanges = new Map<string, string>();
  /** Per worker deployment, the running reconciles to tell when what they act on changes (see changeOf). */
  private readonly specListeners = new Map<string, Set<() => void>>();
  /** Per copy of an owned resource (`namespace/twor/copy`), when applying it may be tried again. */
  private readonly copyRetries = new RetrySchedule<string>(new Backoff({ baseMs: 5_000, maxMs: 300_000, jitter: 0.2 }));
  /** Per worker deployment, its backoff while Temporal rate-limits its reads. */
  private readonly temporalBackoff: Backoff<string>;

  constructor(options: ControllerOptions) {
    this.metrics = options.metrics ?? new Metrics();
    this.pollIntervalMs = options.pollIntervalMs ?? 10_000;
    this.temporalBackoff = new Backoff({ baseMs: this.pollIntervalMs, maxMs: 300_000, jitter: 0.2 });
    this.api = new KubernetesApi({
      access: options.access,
      count: this.metrics.countKubernetesRequest,
      ...(options.kubernetesRate ? { rate: options.kubernetesRate } : {}),
    });
    const api = this.api;
    const log = options.log ?? silentLogger;
    const namespaces = options.namespaces ? { namespaces: options.namespaces } : {};
    const enqueue = (
      namespace: string | undefined,
      name: string | undefined,
      prefix = '',
      priority: Priority = 'high',
    ): void => {
      // A connection key may name a cluster connection, of namespace ''.
      if ((!namespace && prefix !== CONNECTION_KEY) || !name) return;
      this.queue.add(`${prefix}${namespace ?? ''}/${name}`, priority);
    };

    /** Of the connection `name` of `namespace`, or of the cluster connection `name` when namespace is ''. */
    const enqueueUsersOf = (namespace: string, name: string | undefined): void => {
      for (const twd of this.workerDeployments.list(namespace || undefined)) {
        if (usesConnection(twd, namespace, name ?? '')) enqueue(twd.metadata.namespace, twd.metadata.name);
      }
    };
    const onConnectionEvent = (event: string, connection: TemporalConnection): void => {
      const { namespace = '', name } = connection.metadata;
      enqueue(namespace, name, CONNECTION_KEY);
      enqueueUsersOf(namespace, name);
      if (event === 'delete') this.clients.release(namespace, name ?? '');
      this.secrets.watchOnly(this.connections.secretsToWatch(this.workerDeployments.list()));
    };

    this.secrets = new SecretWatches({
      api,
      // A changed Secret reaches the pool on the next check of its connection and reconcile of each
      // worker deployment using it.
      onChange: (namespace, name) => {
        // A copy of a cluster connection's Secret changed or went: its worker deployment writes it again.
        for (const twd of this.workerDeployments.list(namespace)) {
          const connection = this.connections.usedBy(twd);
          if (connection && secretCopyNames(connection, twd.metadata.name ?? '').includes(name))
            enqueue(namespace, twd.metadata.name);
        }
        for (const connection of this.connections.all()) {
          if (!referencedSecrets(connection).some((secret) => secret.namespace === namespace && secret.name === name))
            continue;
          const at = connection.metadata.namespace ?? '';
          enqueue(at, connection.metadata.name, CONNECTION_KEY);
          enqueueUsersOf(at, connection.metadata.name);
        }
      },
      log,
    });
    const tokens = new ServiceAccountTokens({
      own: options.serviceAccount,
      ownAudiences: options.ownTokenAudiences ?? [],
      request: tokenRequester(api),
      review: tokenReviewer(api),
      onRefused: this.metrics.countTokenRefusal,
      now: () => new Date(),
      ...(options.serviceAccountTokenRenewMs ? { renewAfterMs: options.serviceAccountTokenRenewMs } : {}),
    });
    this.clients = new TemporalClientPool({
      secret: (namespace, name) => this.secrets.get(namespace, name),
      serviceAccountToken: (request) => tokens.token(request),
      ...(options.temporalConnectTo ? { connectTo: options.temporalConnectTo } : {}),
      ...(options.temporalTimeouts ? { timeouts: options.temporalTimeouts } : {}),
      onAttempt: (method, status) => this.metrics.countTemporalRequest(method, statusName(status.code)),
      onCutOff: this.metrics.countTemporalTimeout,
    });
    /** A client of one Worker Deployment; `signal`, a reconcile's deadline, also cuts its calls off. */
    const temporalClient = async (
      connection: TemporalConnection,
      address: WorkerDeploymentAddress,
      signal: AbortSignal,
    ) =>
      workerDeploymentClient(
        this.drainage.checking(
          this.refusals.remembering(
            this.reads.paced(await this.clients.workflowService(connection, signal), connection.spec.hostPort),
            connection.spec.hostPort,
          ),
          connection.spec.hostPort,
        ),
        address,
      );
    this.workerDeployments = new NamespacedInformers<TemporalWorkerDeployment>({
      api,
      ...namespaces,
      path: (scope) => `/apis/${GROUP}/${VERSION}${scope}/${KINDS.TemporalWorkerDeployment.plural}`,
      onEvent: (event, twd) => {
        const key = `${twd.metadata.namespace ?? ''}/${twd.metadata.name ?? ''}`;
        if (!callsForReconcile(event, this.seenChanges.get(key), twd)) return;
        if (event === 'delete') this.forget(twd);
        else this.seenChanges.set(key, changeOf(twd));
        enqueue(twd.metadata.namespace, twd.metadata.name);
        // A worker deployment on a cluster connection has its copies watched; only such a one
        // changes what is watched (checking every one would be quadratic at start-up).
        if (event !== 'update' && twd.spec.workerOptions.connectionRef.kind === 'TemporalClusterConnection')
          this.secrets.watchOnly(this.connections.secretsToWatch(this.workerDeployments.list()));
        for (const listener of this.specListeners.get(key) ?? []) listener();
      },
      log,
    });
    this.connections = new ConnectionCaches({
      api,
      ...namespaces,
      cluster: options.clusterConnections ?? !options.namespaces,
      onEvent: onConnectionEvent,
      log,
    });
    this.ownedResources = new NamespacedInformers<TemporalWorkerOwnedResource>({
      api,
      ...namespaces,
      path: (scope) => `/apis/${GROUP}/${VERSION}${scope}/${KINDS.TemporalWorkerOwnedResource.plural}`,
      onEvent: (event, twor) => {
        if (event === 'delete')
          this.copyRetries.forgetWhere(ofOwnedResource(twor.metadata.namespace ?? '', twor.metadata.name ?? ''));
        enqueue(twor.metadata.namespace, twor.spec.workerRef.name);
        enqueue(twor.metadata.namespace, twor.metadata.name, OWNED_RESOURCE_KEY);
      },
      log,
    });
    this.deployments = new NamespacedInformers<V1Deployment>({
      api,
      ...namespaces,
      path: (scope) => `/apis/apps/v1${scope}/deployments`,
      labelSelector: LABELS.buildId,
      onEvent: (_event, deployment) => {
        const owner = deployment.metadata?.ownerReferences?.find(
          (o) => o.kind === KINDS.TemporalWorkerDeployment.kind && o.controller,
        );
        enqueue(deployment.metadata?.namespace, owner?.name);
      },
      log,
    });
    this.ownDeploymentWrites = new OwnDeploymentWrites((namespace) => this.deployments.list(namespace));

    // Only the Pods of the controller's Deployments: both labels are on every Pod template it makes.
    const ownPods = `${LABELS.deploymentName},${LABELS.buildId}`;
    this.pods = new NamespacedInformers<V1Pod>({
      api,
      ...namespaces,
      path: (scope) => `/api/v1${scope}/pods`,
      labelSelector: ownPods,
      onEvent: (event, pod) => {
        const uid = pod.metadata?.uid ?? '';
        const trouble = event === 'delete' ? '[]' : JSON.stringify(podProblems(pod));
        if ((this.podTrouble.get(uid) ?? '[]') === trouble) return;
        if (trouble === '[]') this.podTrouble.delete(uid);
        else this.podTrouble.set(uid, trouble);
        enqueue(pod.metadata?.namespace, pod.metadata?.labels?.[LABELS.deploymentName]);
      },
      log,
    });
    const events = new EventRecorder({
      api,
      instance: options.identity,
      ...(options.eventRepeatWindowMs === undefined ? {} : { repeatWindowMs: options.eventRepeatWindowMs }),
    });
    // Each reconcile's Temporal client is its own, cut off by its deadline (see `logged`).
    const dependencies: Omit<ReconcilerDependencies, 'temporal'> = {
      cluster: this.ownDeploymentWrites.noting(clusterClient(api)),
      recordEvent: events.record,
      setPinnedWorkflows: this.metrics.setPinnedWorkflows,
      countAnalysisVerdict: this.metrics.countAnalysisVerdict,
      countSecretCopyRevocation: this.metrics.countSecretCopyRevocation,
      pollersSeen: (namespace: string, name: string) => this.pollersSeen(namespace, name),
      log,
      workerDeployment: (namespace: string, name: string) =>
        this.ownWrites.newest(this.workerDeployments.get(namespace, name)),
      wroteStatus: (replaced, stored) => this.ownWrites.wrote(replaced, stored),
      workerDeployments: (namespace?: string) => this.workerDeployments.list(namespace),
      connection: (namespace: string, name: string) => this.connections.get(namespace, name),
      watchesClusterConnections: this.connections.readsClusterConnections,
      ownedResources: (namespace: string) => this.ownedResources.list(namespace),
      copyRetries: this.copyRetries,
      ownedResourcesServiceAccount: options.ownedResourcesServiceAccount,
      countCopyForbidden: this.metrics.countCopyForbidden,
      deployments: (namespace: string) => this.ownDeploymentWrites.newest(namespace),
      pods: (namespace: string) => this.pods.list(namespace),
      secret: (namespace: string, name: string) => this.secrets.get(namespace, name),
      identity: options.identity,
      now: () => new Date(),
      pollIntervalMs: this.pollIntervalMs,
      maxIneligibleVersions: options.maxIneligibleVersions ?? 75,
      maxVersionsInDeployment: options.maxVersionsInDeployment ?? 100,
      rollbackWindowMs: options.rollbackWindowMs ?? 3_600_000,
      temporalBackoff: this.temporalBackoff,
      specChange: (namespace: string, name: string) => {
        const key = `${namespace}/${name}`;
        const listeners = this.specListeners.get(key) ?? new Set<() => void>();
        this.specListeners.set(key, listeners);
        let listener = (): void => {};
        const changed = new Promise<void>((resolve) => (listener = resolve));
        listeners.add(listener);
        const stop = (): void => {
          listeners.delete(listener);
          if (listeners.size === 0) this.specListeners.delete(key);
        };
        return { changed, stop };
      },
    };
    this.reads = new TemporalReadBudget({ perSecond: options.temporalReadBudget ?? DEFAULT_READS_PER_SECOND });
    // A refused deletion is asked again at the next poll, not at every event.
    this.refusals = new PollerRefusals(dependencies.pollIntervalMs);
    this.drainage = new DrainageRechecks((deploymentName, buildId) => {
      this.metrics.countDrainageCorrection(deploymentName);
      log.warn(
        { temporalDeployment: deploymentName, build: buildId },
        `Temporal lists build ${buildId} of Worker Deployment ${deploymentName} as draining, but its own record says drained: the record is believed`,
      );
    });
    this.figures = options.backlogMetrics
      ? new FiguresCollector<TemporalFigures>({
          sources: () => this.figuresSources(),
          // A change of pollers is news for the status, which says how many workers each build has.
          onRead: ({ value }, previous) => {
            if (value.kind !== 'pollers' || samePollers(value, previous?.value)) return;
            // Routine news but while a rollout waits: its target's workers may have just registered.
            const status = this.workerDeployments.get(value.namespace, value.workerDeployment)?.status;
            const waiting = status?.targetVersion?.buildID !== status?.currentVersion?.buildID;
            enqueue(value.namespace, value.workerDeployment, '', waiting ? 'high' : 'low');
          },
          pollIntervalMs: dependencies.pollIntervalMs,
          log,
        })
      : undefined;
    if (this.figures) this.metrics.observeBacklog(() => this.backlogFigures());
    let reconciles = 0;
    /**
     * Runs one reconcile with a logger of its own, which also says why it failed (the queue then
     * retries it with backoff), and with dependencies that stop at its deadline (`signal`).
     */
    const logged = async <T extends ReconcileResult | void>(
      kind: string,
      namespace: string,
      name: string,
      signal: AbortSignal,
      run: (deps: ReconcilerDependencies) => Promise<T>,
    ): Promise<T> => {
      const child = log.child({ kind, object: `${namespace}/${name}`, reconcile: ++reconciles });
      try {
        const temporal = (connection: TemporalConnection, address: WorkerDeploymentAddress) =>
          temporalClient(connection, address, signal);
        const result = await run(fencedBy({ ...dependencies, log: child, temporal }, signal));
        child.debug(result ? { requeueAfterMs: result.requeueAfterMs } : {}, 'reconciled');
        return result;
      } catch (error) {
        child.error({ error: errorMessage(error) }, 'reconcile failed');
        throw error;
      }
    };
    const connectionBackoff = new Backoff<string>({ baseMs: 5_000, maxMs: 300_000, jitter: 0.2 });
    const concurrency = options.concurrency ?? 4;
    this.queue = new WorkQueue<string>({
      concurrency,
      timeoutMs: options.reconcileTimeoutMs ?? DEFAULT_RECONCILE_TIMEOUT_MS,
      observer: this.metrics.workQueueObserver('temporalworkerdeployment', concurrency),
      // `logged` logs the other failures as their reconciles end; one past its deadline ends later.
      onError: (key, error, retryInMs) => {
        if (error instanceof ReconcileTimeoutError)
          log.warn({ object: key, retryInMs: Math.round(retryInMs) }, `${error.message}: its slot goes to the next`);
      },
      reconcile: async (key, priority, signal) => {
        if (key.startsWith(OWNED_RESOURCE_KEY)) {
          const [namespace = '', name = ''] = key.slice(OWNED_RESOURCE_KEY.length).split('/');
          const twor = this.ownedResources.get(namespace, name);
          if (!twor) return undefined;
          const exists = this.workerDeployments.get(namespace, twor.spec.workerRef.name) !== undefined;
          await logged(KINDS.TemporalWorkerOwnedResource.kind, namespace, name, signal, (deps) =>
            reconcileOwnedResource(deps, twor, exists),
          );
          return undefined;
        }
        const connection = key.startsWith(CONNECTION_KEY);
        const [namespace = '', name = ''] = key.slice(connection ? CONNECTION_KEY.length : 0).split('/');
        if (!connection) {
          // A change, or what falls due, reads first; a routine look waits for a free read.
          const wait = priority === 'high' ? 0 : this.pollDelay(namespace, name, dependencies.pollIntervalMs);
          if (wait > 0) return { requeueAfterMs: wait };
          return logged(KINDS.TemporalWorkerDeployment.kind, namespace, name, signal, (deps) =>
            reconcile(deps, namespace, name),
          );
        }
        const object = this.connections.get(namespace, name);
        if (!object) return undefined;
        return logged(connectionKindOf(namespace), namespace, name, signal, async (deps) => {
          await releaseConnection(deps, object);
          if (isBeingDeleted(object)) return undefined;
          const connect = async (c: TemporalConnection) => {
            await this.clients.workflowService(c);
            // The workers' own Secrets: the controller connects without them, their Pods could not start.
            const uses = workerSecrets(c);
            const found = await lookupSecrets(uses, (secretNamespace, secret) =>
              this.secrets.get(secretNamespace, secret),
            );
            const missing = missingSecret(c, uses, found);
            if (missing) throw missing;
          };
          return checkConnection({ ...deps, connect, backoff: connectionBackoff }, object);
        });
      },
    });
  }

  /** What the controller keeps of a worker deployment gone from the API: nothing more is learnt of it. */
  private forget(twd: TemporalWorkerDeployment): void {
    const namespace = twd.metadata.namespace ?? '';
    const name = twd.metadata.name ?? '';
    this.seenChanges.delete(`${namespace}/${name}`);
    this.ownWrites.forget(namespace, name);
    this.temporalBackoff.reset(`${namespace}/${name}`);
    for (const twor of this.ownedResources.list(namespace))
      if (twor.spec.workerRef.name === name)
        this.copyRetries.forgetWhere(ofOwnedResource(namespace, twor.metadata.name ?? ''));
    this.drainage.forget(temporalDeploymentName(namespace, name));
  }

  /** How long a reconcile that only polls waits for its Temporal namespace's read budget; 0 to go now. */
  private pollDelay(namespace: string, name: string, spreadMs: number): number {
    const twd = this.workerDeployments.get(namespace, name);
    const connection = twd && this.connections.usedBy(twd);
    return connection
      ? this.reads.pollDelay(connection.spec.hostPort, twd.spec.workerOptions.temporalNamespace, spreadMs)
      : 0;
  }

  /** Each build's backlog as last read, where recent enough to act on; empty with backlog metrics off. */
  backlogFigures(): BuildBacklog[] {
    return (this.figures?.fresh() ?? []).flatMap(({ value, readAt }) =>
      value.kind === 'backlog' ? [{ ...value.build, readAt, queues: value.queues }] : [],
    );
  }

  /** The workers of each build of a worker deployment as last read; undefined when not read. */
  private pollersSeen(namespace: string, name: string): Record<string, number> | undefined {
    const figures = this.figures?.latest(pollersKey(namespace, name))?.value;
    return figures?.kind === 'pollers' ? figures.byBuild : undefined;
  }

  /**
   * Each build with replicas (its backlog), and each worker deployment whose workflow task queues
   * those reads found (its pollers), with how to read them within the Temporal namespace's read budget.
   */
  private figuresSources(): FiguresSource<TemporalFigures>[] {
    const sources = new Map<string, FiguresSource<TemporalFigures>>();
    const pollersSources = new Map<string, PollersSource>();
    for (const deployment of this.deployments.list()) {
      const namespace = deployment.metadata?.namespace ?? '';
      const buildId = deployment.metadata?.labels?.[LABELS.buildId];
      const owner = deployment.metadata?.ownerReferences?.find(
        (o) => o.kind === KINDS.TemporalWorkerDeployment.kind && o.controller,
      );
      // Nothing may scale a build at zero back up (its autoscalers are gone): no read is spent on it.
      if (!buildId || !owner || deployment.spec?.replicas === 0) continue;
      const key = backlogKey(namespace, owner.name, buildId);
      const twd = this.workerDeployments.get(namespace, owner.name);
      const connection = twd && this.connections.usedBy(twd);
      if (!twd || !connection || sources.has(key)) continue;
      const temporalNamespace = twd.spec.workerOptions.temporalNamespace;
      const takeRead = () => this.reads.mayReadBacklog(connection.spec.hostPort, temporalNamespace);
      const target = async () => ({
        service: this.reads.paced(await this.clients.workflowService(connection), connection.spec.hostPort),
        namespace: temporalNamespace,
        deploymentName: temporalDeploymentName(namespace, owner.name),
      });
      const pools = Object.fromEntries(
        (twd.spec.pools ?? []).flatMap((pool) => (pool.taskQueue ? [[pool.taskQueue, pool.name]] : [])),
      );
      const build = { namespace, workerDeployment: owner.name, buildId, pools };
      sources.set(key, {
        key,
        takeRead,
        read: async () => ({ kind: 'backlog', build, queues: await readVersionBacklog(await target(), buildId) }),
      });
      // The worker deployment's pollers: one read of the workflow task queues its builds' backlogs named.
      const pollers = pollersKey(namespace, owner.name);
      const known = pollersSources.get(pollers)?.queues ?? new Set<string>();
      const backlog = this.figures?.latest(key)?.value;
      for (const queue of backlog?.kind === 'backlog' ? backlog.queues : [])
        if (queue.type === 'workflow') known.add(queue.taskQueue);
      if (known.size === 0 || pollersSources.has(pollers)) continue;
      pollersSources.set(pollers, {
        key: pollers,
        // Temporal remembers pollers for minutes: their count changes slowly, the backlog does not.
        everyMs: POLLERS_INTERVALS * this.pollIntervalMs,
        queues: known,
        takeRead,
        read: async () => ({
          kind: 'pollers',
          namespace,
          workerDeployment: owner.name,
          byBuild: await pollersByBuild(await target(), [...known].sort()),
        }),
      });
    }
    return [...sources.values(), ...pollersSources.values()];
  }

  async start(): Promise<void> {
    // Connections, Deployments and Pods first, so the first reconciles read full caches.
    await Promise.all([
      this.connections.start(),
      this.ownedResources.start(),
      this.deployments.start(),
      this.pods.start(),
    ]);
    await this.workerDeployments.start();
    this.figures?.start();
  }

  async stop(): Promise<void> {
    this.figures?.stop();
    await Promise.all([
      this.workerDeployments.stop(),
      this.connections.stop(),
      this.ownedResources.stop(),
      this.deployments.stop(),
      this.pods.stop(),
      this.secrets.stop(),
    ]);
    await this.queue.shutdown();
    await this.clients.close();
    this.api.close();
  }
}
