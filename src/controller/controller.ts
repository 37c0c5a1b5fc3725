// Wires the reconciler to events: informers fill the caches and queue the affected worker
// deployments (watches.ts says which), the work queue runs reconciles (dispatch.ts), and each
// reconcile asks to be run again when Temporal may have changed (drainage) or a pause or delay
// runs out. The order of construction: the caches, Temporal, the figures, the dependencies, the queue.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLLER_HISTORY_MS,
  DEFAULT_RECONCILE_TIMEOUT_MS,
} from '../api/defaults.ts';
import type { BacklogAsk, BuildBacklog } from '../domain/backlog.ts';
import { temporalDeploymentName } from '../k8s/names.ts';
import { Backoff, RetrySchedule } from '../runtime/backoff.ts';
import { Deliveries, httpSend } from '../runtime/deliveries.ts';
import { realTimers } from '../runtime/timers.ts';
import { KubernetesApi } from '../runtime/kube/api-client.ts';
import { silentLogger } from '../runtime/logger.ts';
import { Metrics } from '../runtime/metrics.ts';
import { type Priority, ReconcileTimeoutError, WorkQueue } from '../runtime/work-queue.ts';
import { Caches } from './caches.ts';
import type { ControllerOptions } from './controller-options.ts';
import { sharedDependencies } from './dependencies.ts';
import { reconcileByKey } from './dispatch.ts';
import { LastDescribed } from './last-described.ts';
import { Notifier } from './notifications.ts';
import { forgetAdmittedSpec } from './observe-kubernetes.ts';
import { ofOwnedResource } from './owned-resources.ts';
import { RolloutCosts } from './rollout-costs.ts';
import { TemporalAccess } from './temporal-access.ts';
import { temporalFigures, type TemporalFiguresReader } from './temporal-figures.ts';
import { SpecChanges } from './worker-deployment-changes.ts';

export class Controller {
  private readonly api: KubernetesApi;
  private readonly caches: Caches;
  private readonly temporal: TemporalAccess;
  private readonly figures: TemporalFiguresReader | undefined;
  private readonly queue: WorkQueue<string>;
  /** Per copy of an owned resource (`namespace/twor/copy`), when applying it may be tried again. */
  private readonly copyRetries = new RetrySchedule<string>(new Backoff({ baseMs: 5_000, maxMs: 300_000, jitter: 0.2 }));
  /** Per worker deployment, its backoff while Temporal rate-limits its reads. */
  private readonly temporalBackoff: Backoff<string>;
  private readonly lastDescribed = new LastDescribed();
  /** What each rollout costs, for the metrics. */
  private readonly rollouts: RolloutCosts;
  /** spec.notifications' webhook deliveries, sent in the background. */
  private readonly deliveries: Deliveries;

  constructor(options: ControllerOptions) {
    const metrics = options.metrics ?? new Metrics();
    const log = options.log ?? silentLogger;
    const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.temporalBackoff = new Backoff({ baseMs: pollIntervalMs, maxMs: 300_000, jitter: 0.2 });
    this.rollouts = new RolloutCosts(metrics.countRollout);
    const api = (this.api = new KubernetesApi({
      access: options.access,
      count: metrics.countKubernetesRequest,
      ...(options.kubernetesRate ? { rate: options.kubernetesRate } : {}),
    }));
    const specChanges = new SpecChanges();
    this.caches = new Caches({
      api,
      namespaces: options.namespaces,
      clusterConnections: options.clusterConnections ?? !options.namespaces,
      enqueue: (key, priority) => this.queue.add(key, priority),
      hooks: {
        workerDeployment: {
          before: (event, twd) => {
            if (event === 'delete') this.forget(twd);
          },
          after: (_event, twd) => specChanges.changed(twd),
        },
        connection: {
          after: (event, { metadata }) => {
            if (event !== 'delete') return;
            this.temporal.release(metadata.namespace ?? '', metadata.name ?? '');
            metrics.setConnectionCertificates(metadata.namespace ?? '', metadata.name ?? '', []);
          },
        },
        ownedResource: {
          before: (event, { metadata }) => {
            if (event === 'delete')
              this.copyRetries.forgetWhere(ofOwnedResource(metadata.namespace ?? '', metadata.name ?? ''));
          },
        },
      },
      log,
    });
    this.temporal = new TemporalAccess({
      ...options,
      api,
      secret: (namespace, name) => this.caches.secrets.get(namespace, name),
      pollIntervalMs,
      metrics,
      log,
    });
    const enqueue = (key: string, priority: Priority) => this.queue.add(key, priority);
    const { caches, temporal } = this;
    const pollerHistoryMs = options.pollerHistoryMs ?? DEFAULT_POLLER_HISTORY_MS;
    this.figures = options.backlogMetrics
      ? temporalFigures({ caches, temporal, pollIntervalMs, pollerHistoryMs, enqueue, log })
      : undefined;
    // A scrape of the gauges asks for every build's figures.
    if (this.figures) metrics.observeBacklog(() => this.backlogFigures({ by: 'scrape' }));
    // Only the leader reconciles, so only it queues; a leader that loses the Lease exits, and what
    // it had queued goes with it: the next leader tells what it sees happen from then on.
    this.deliveries = new Deliveries({ send: httpSend(), timers: realTimers, count: metrics.countNotification, log });
    const notifier = new Notifier({
      allowed: options.notificationDestinations ?? [],
      secret: (namespace, name) => this.caches.secrets.get(namespace, name),
      deliveries: this.deliveries,
      countRefused: () => metrics.countNotification('refused'),
      log,
      now: () => new Date(),
    });
    const dependencies = sharedDependencies({
      notifier,
      api,
      caches,
      metrics,
      options,
      pollIntervalMs,
      copyRetries: this.copyRetries,
      temporalBackoff: this.temporalBackoff,
      lastDescribed: this.lastDescribed,
      specChanges,
      pollersSeen: (namespace, name) => this.figures?.pollers(namespace, name),
    });
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.queue = new WorkQueue<string>({
      concurrency,
      timeoutMs: options.reconcileTimeoutMs ?? DEFAULT_RECONCILE_TIMEOUT_MS,
      observer: metrics.workQueueObserver('temporalworkerdeployment', concurrency),
      // dispatch.ts logs the other failures as their reconciles end; one past its deadline ends later.
      onError: (key, error, retryInMs) => {
        if (error instanceof ReconcileTimeoutError)
          log.warn({ object: key, retryInMs: Math.round(retryInMs) }, `${error.message}: its slot goes to the next`);
      },
      reconcile: reconcileByKey({ caches, temporal, dependencies, log, rollouts: this.rollouts }),
    });
  }

  /** What the controller keeps of a worker deployment gone from the API: nothing more is learnt of it. */
  private forget(twd: TemporalWorkerDeployment): void {
    const namespace = twd.metadata.namespace ?? '';
    const name = twd.metadata.name ?? '';
    this.caches.ownWrites.forget(namespace, name);
    forgetAdmittedSpec(namespace, name);
    this.temporalBackoff.reset(`${namespace}/${name}`);
    this.lastDescribed.drop(`${namespace}/${name}`);
    this.rollouts.forget(`${namespace}/${name}`);
    for (const twor of this.caches.ownedResources.list(namespace))
      if (twor.spec.workerRef.name === name)
        this.copyRetries.forgetWhere(ofOwnedResource(namespace, twor.metadata.name ?? ''));
    this.temporal.drainage.forget(temporalDeploymentName(namespace, name));
  }

  /**
   * Each build's backlog as last read, where recent enough to act on; empty with backlog metrics
   * off. Only builds something asks for are read: `asked` asks for the builds it picks.
   */
  backlogFigures(asked?: BacklogAsk): BuildBacklog[] {
    return this.figures?.backlog(asked) ?? [];
  }

  async start(): Promise<void> {
    await this.caches.start();
    this.figures?.start();
  }

  async stop(): Promise<void> {
    this.figures?.stop();
    await this.caches.stop();
    await this.queue.shutdown();
    this.deliveries.stop();
    await this.temporal.close();
    this.api.close();
  }
}
