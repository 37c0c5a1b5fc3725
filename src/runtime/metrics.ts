// The controller's Prometheus metrics, under controller-runtime's names where it has one, on a
// registry of their own so that tests and benchmarks read their own counts; and the counters and
// work queue observers that feed them.
import { Counter, exponentialBuckets, Gauge, Histogram, Registry } from 'prom-client';
import { BACKLOG_FIGURES, type BuildBacklog, type TaskQueueFigures } from '../domain/backlog.ts';
import type { ReadCertificate } from '../domain/certificates.ts';
import type { RolloutCost } from '../domain/rollout-cost.ts';
import type { StatusFigures } from '../domain/status-figures.ts';
import { labelsText, seriesLine } from './exposition.ts';
import type { KubernetesRequestCounter } from './kube/api-client.ts';
import { StatusGauges } from './status-gauges.ts';
import { WrittenGauge } from './written-gauge.ts';
import type { ReconcileOutcome, WorkQueueObserver } from './work-queue.ts';

const OUTCOMES: readonly ReconcileOutcome[] = ['success', 'requeue_after', 'error'];

type ConnectionCertificateLabel = 'namespace' | 'connection' | 'secret' | 'key' | 'subject' | 'serial_number';

type BacklogLabel = 'namespace' | 'worker_deployment' | 'build_id' | 'task_queue' | 'task_queue_type';
const BACKLOG_LABELS: BacklogLabel[] = ['namespace', 'worker_deployment', 'build_id', 'task_queue', 'task_queue_type'];

function sameBuild(a: BuildBacklog, b: BuildBacklog): boolean {
  return a.namespace === b.namespace && a.workerDeployment === b.workerDeployment && a.buildId === b.buildId;
}

export class Metrics {
  readonly registry: Registry;
  private readonly reconcileTotal: Counter<'controller' | 'result'>;
  private readonly reconcileErrors: Counter<'controller'>;
  private readonly reconcileTime: Histogram<'controller'>;
  private readonly activeWorkers: Gauge<'controller'>;
  private readonly maxConcurrentReconciles: Gauge<'controller'>;
  private readonly depth: Gauge<'name'>;
  private readonly adds: Counter<'name'>;
  private readonly retries: Counter<'name'>;
  private readonly queueDuration: Histogram<'name' | 'priority'>;
  private readonly workDuration: Histogram<'name'>;
  private readonly leader: Gauge<'name'>;
  private readonly kubernetesRequests: Counter<'verb' | 'resource' | 'code'>;
  private readonly temporalRequests: Counter<'method' | 'code'>;
  private readonly temporalCutOffs: Counter<'method' | 'by'>;
  private readonly reconcileTimeouts: Counter<'controller'>;
  private readonly certificateExpiry: Gauge<'certificate'>;
  private readonly certificateRenewals: Counter<'certificate'>;
  private readonly certificateFailures: Counter;
  private readonly connectionCertificateExpiry: Gauge<ConnectionCertificateLabel>;
  /** The series of connectionCertificateExpiry each connection (`namespace/name`) has. */
  private readonly connectionCertificateSeries = new Map<string, Record<ConnectionCertificateLabel, string>[]>();
  private readonly pinnedWorkflows: Gauge<'namespace' | 'worker_deployment' | 'build_id'>;
  private readonly missingConfiguration: Gauge<'namespace' | 'worker_deployment'>;
  private readonly buildsWithoutPollers: Gauge<'namespace' | 'worker_deployment'>;
  private readonly drainageCorrections: Counter<'temporal_deployment'>;
  private readonly tokenRefusals: Counter<'reason'>;
  private readonly secretCopyRevocations: Counter<'namespace' | 'connection' | 'result'>;
  private readonly copiesForbidden: Counter<'namespace' | 'kind' | 'verb'>;
  private readonly notifications: Counter<'result'>;
  private readonly analysisVerdicts: Counter<'namespace' | 'worker_deployment' | 'verdict'>;
  private readonly analysisQueries: Counter<'namespace' | 'result'>;
  private readonly pinnedWorkflowMoves: Counter<'namespace' | 'worker_deployment' | 'result'>;
  private readonly failedMoveRounds: Counter<'namespace' | 'worker_deployment'>;
  private readonly callSlotWait: Histogram<'temporal_namespace'>;
  private readonly callsInFlight: Gauge<'temporal_namespace'>;
  private readonly rollouts: Counter;
  private readonly rolloutCalls: Counter<'method'>;
  private readonly rolloutReconciles: Counter;
  private readonly rolloutWait: Histogram<'on'>;
  /** Where the backlog gauges read their figures at each scrape, once observed. */
  private backlogSource: (() => readonly BuildBacklog[]) | undefined;
  /** Each queue's labels on the backlog gauges, as last written for its build (see backlogLabels). */
  private readonly backlogLabelsWritten = new WeakMap<TaskQueueFigures, { build: BuildBacklog; text: string }>();
  /** The builds each worker deployment (`namespace/name`) has a series of pinnedWorkflows for. */
  private readonly pinnedWorkflowBuilds = new Map<string, string[]>();
  private readonly statusGauges: StatusGauges;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    const reconcileBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
    // From 1µs to 1000s, as wide as a key can wait or a reconcile can run.
    const queueBuckets = exponentialBuckets(1e-6, 10, 10);
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: reconcileBuckets,
      registers,
    });
    this.activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    this.maxConcurrentReconciles = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.depth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'],
      registers,
    });
    this.adds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    this.retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    this.queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested, by the lane it waited in',
      labelNames: ['name', 'priority'],
      buckets: queueBuckets,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name'],
      buckets: queueBuckets,
      registers,
    });
    this.leader = new Gauge({
      name: 'leader_election_master_status',
      help: 'Whether this process holds the lease (1) or not (0)',
      labelNames: ['name'],
      registers,
    });
    this.kubernetesRequests = new Counter({
      name: 'twc_kubernetes_requests_total',
      help: 'Requests to the Kubernetes API by verb, resource and HTTP status ("error" when no response came)',
      labelNames: ['verb', 'resource', 'code'],
      registers,
    });
    this.temporalRequests = new Counter({
      name: 'twc_temporal_requests_total',
      help: 'Calls to Temporal by RPC method and gRPC status, each retry counted',
      labelNames: ['method', 'code'],
      registers,
    });
    this.temporalCutOffs = new Counter({
      name: 'twc_temporal_timeouts_total',
      help: "Calls to Temporal cut off unanswered, by RPC method and by what cut them off: their timeout (read, write) or their reconcile's (reconcile)",
      labelNames: ['method', 'by'],
      registers,
    });
    this.reconcileTimeouts = new Counter({
      name: 'twc_reconcile_timeouts_total',
      help: 'Reconciles that ran past --reconcile-timeout: their slot went to the next key and they were retried with backoff',
      labelNames: ['controller'],
      registers,
    });
    this.certificateExpiry = new Gauge({
      name: 'twc_webhook_certificate_expiry_timestamp_seconds',
      help: "When the webhook's self-managed certificate expires: the serving certificate, and the newest CA (authority)",
      labelNames: ['certificate'],
      registers,
    });
    this.certificateRenewals = new Counter({
      name: 'twc_webhook_certificate_renewals_total',
      help: 'Self-managed webhook certificates this replica issued: serving, or CA (authority)',
      labelNames: ['certificate'],
      registers,
    });
    this.connectionCertificateExpiry = new Gauge({
      name: 'twc_connection_certificate_expiry_timestamp_seconds',
      help: "When each certificate the controller or the workers read from a connection's Secrets expires (client certificates and CAs, each of a bundle); namespace is empty for a TemporalClusterConnection, secret is namespace/name",
      labelNames: ['namespace', 'connection', 'secret', 'key', 'subject', 'serial_number'],
      registers,
    });
    this.pinnedWorkflows = new Gauge({
      name: 'twc_pinned_workflows_running',
      help: 'Workflows still running on an old build (no longer current nor ramping), as last counted for spec.sunset.pinnedWorkflows',
      labelNames: ['namespace', 'worker_deployment', 'build_id'],
      registers,
    });
    this.missingConfiguration = new Gauge({
      name: 'twc_configuration_missing',
      help: "ConfigMaps and Secrets the target build's Pod templates read, not optionally, that do not exist (its Pods cannot start); no series when none",
      labelNames: ['namespace', 'worker_deployment'],
      registers,
    });
    this.buildsWithoutPollers = new Gauge({
      name: 'twc_builds_without_pollers',
      help: 'Current or ramping builds of a worker deployment whose Pods are Ready but on one of whose task queues Temporal remembers no poller of theirs (NoPollers); no series while not judged (--no-backlog-metrics)',
      labelNames: ['namespace', 'worker_deployment'],
      registers,
    });
    this.analysisVerdicts = new Counter({
      name: 'twc_analysis_verdicts_total',
      help: 'Steps judged by spec.rollout.analysis, by verdict (Passed, Failed)',
      labelNames: ['namespace', 'worker_deployment', 'verdict'],
      registers,
    });
    this.analysisQueries = new Counter({
      name: 'twc_analysis_queries_total',
      help: 'Queries of spec.rollout.analysis.metrics, by result (answered, no_sample, failed: the endpoint did not answer one number, refused: the spec names an endpoint the controller does not allow or lacks the token it requires)',
      labelNames: ['namespace', 'result'],
      registers,
    });
    this.pinnedWorkflowMoves = new Counter({
      name: 'twc_pinned_workflows_moved_total',
      help: 'Pinned workflows of rounds of spec.sunset.pinnedWorkflows.moveToCurrent that ended, by result (Moved onto the current build, or NotMoved: did not replay, skipped, no worker, or refused by Temporal)',
      labelNames: ['namespace', 'worker_deployment', 'result'],
      registers,
    });
    this.failedMoveRounds = new Counter({
      name: 'twc_pinned_workflow_move_rounds_failed_total',
      help: 'Rounds of spec.sunset.pinnedWorkflows.moveToCurrent that failed (a replay check or the move batch failed or is gone); each is tried again 10 minutes later',
      labelNames: ['namespace', 'worker_deployment'],
      registers,
    });
    this.drainageCorrections = new Counter({
      name: 'twc_temporal_drainage_corrections_total',
      help: "Builds Temporal's Worker Deployment still listed as Draining when their own record said Drained (the record is believed)",
      labelNames: ['temporal_deployment'],
      registers,
    });
    this.tokenRefusals = new Counter({
      name: 'twc_service_account_tokens_refused_total',
      help: "Service-account tokens a connection asked for that the controller refused to issue or send: OwnTokenAudienceNotAllowed, AcceptedByApiServer (the cluster's API server accepts it)",
      labelNames: ['reason'],
      registers,
    });
    this.secretCopyRevocations = new Counter({
      name: 'twc_secret_copy_revocations_total',
      help: "Copies of a TemporalClusterConnection's Secrets in a namespace that may no longer use it: deleted, or failed (a credential left where that namespace's editors read it; tried again at the next poll)",
      labelNames: ['namespace', 'connection', 'result'],
      registers,
    });
    this.notifications = new Counter({
      name: 'twc_notifications_total',
      help: 'Rollout notifications of spec.notifications, by how each ended: sent (a 2xx answer), failed (its tries spent), dropped (pushed out of a full queue, or waiting when leadership ended) or refused (its receiver not allowed, or its Secret unusable)',
      labelNames: ['result'],
      registers,
    });
    this.copiesForbidden = new Counter({
      name: 'twc_owned_resource_copies_forbidden_total',
      help: "Writes of owned-resource copies the API server refused to the twor's ServiceAccount (403), by namespace, kind and verb",
      labelNames: ['namespace', 'kind', 'verb'],
      registers,
    });
    // From a millisecond to over 15 minutes: a call's wait for a slot, a rollout's for everything.
    const waitBuckets = exponentialBuckets(0.001, 4, 10);
    this.callSlotWait = new Histogram({
      name: 'twc_temporal_call_slot_wait_seconds',
      help: 'How long each call to Temporal waited for a slot of its Temporal namespace (--temporal-concurrency), after its read token',
      labelNames: ['temporal_namespace'],
      buckets: waitBuckets,
      registers,
    });
    this.callsInFlight = new Gauge({
      name: 'twc_temporal_calls_in_flight',
      help: 'Calls to Temporal in flight, per Temporal namespace (at most --temporal-concurrency per frontend)',
      labelNames: ['temporal_namespace'],
      registers,
    });
    this.rollouts = new Counter({
      name: 'twc_rollouts_total',
      help: 'Rollouts completed: a new target made current, from the first reconcile that said it to the one that made it current',
      registers,
    });
    this.rolloutCalls = new Counter({
      name: 'twc_rollout_temporal_calls_total',
      help: "Calls to Temporal the completed rollouts' reconciles made, by RPC method (each call once, not its retries)",
      labelNames: ['method'],
      registers,
    });
    this.rolloutReconciles = new Counter({
      name: 'twc_rollout_reconciles_total',
      help: 'Reconciles of the completed rollouts',
      registers,
    });
    this.rolloutWait = new Histogram({
      name: 'twc_rollout_wait_seconds',
      help: "Per completed rollout, how long its reconciles waited: in the work queue (queue), for read tokens (read_token), for call slots (call_slot), on Temporal's answers (temporal)",
      labelNames: ['on'],
      buckets: waitBuckets,
      registers,
    });
    this.certificateFailures = new Counter({
      name: 'twc_webhook_certificate_failures_total',
      help: "Looks at the webhook's self-managed certificate that failed (each is retried with backoff)",
      registers,
    });
    this.statusGauges = new StatusGauges(registry);
  }

  /** Feeds controller-runtime's reconcile metrics and the workqueue metrics from one controller's queue. */
  workQueueObserver(controller: string, concurrency: number): WorkQueueObserver {
    this.maxConcurrentReconciles.set({ controller }, concurrency);
    this.activeWorkers.set({ controller }, 0);
    this.depth.set({ name: controller }, 0);
    this.reconcileErrors.inc({ controller }, 0);
    this.reconcileTimeouts.inc({ controller }, 0);
    for (const result of OUTCOMES) this.reconcileTotal.inc({ controller, result }, 0);
    return {
      added: (depth) => {
        this.adds.inc({ name: controller });
        this.depth.set({ name: controller }, depth);
      },
      started: (depth, active, waitedMs, priority) => {
        this.depth.set({ name: controller }, depth);
        this.activeWorkers.set({ controller }, active);
        this.queueDuration.observe({ name: controller, priority }, waitedMs / 1000);
      },
      finished: (active, outcome, durationMs) => {
        this.activeWorkers.set({ controller }, active);
        this.reconcileTotal.inc({ controller, result: outcome });
        if (outcome === 'error') this.reconcileErrors.inc({ controller });
        this.reconcileTime.observe({ controller }, durationMs / 1000);
        this.workDuration.observe({ name: controller }, durationMs / 1000);
      },
      retried: () => this.retries.inc({ name: controller }),
      timedOut: () => this.reconcileTimeouts.inc({ controller }),
    };
  }

  setLeader(lease: string, leading: boolean): void {
    this.leader.set({ name: lease }, leading ? 1 : 0);
  }

  /** Give it to the webhook's self-managed certificates. */
  readonly webhookCertificates = {
    expires: (certificate: string, notAfterMs: number) =>
      this.certificateExpiry.set({ certificate }, Math.floor(notAfterMs / 1000)),
    renewed: (certificate: string) => this.certificateRenewals.inc({ certificate }),
    failed: () => this.certificateFailures.inc(),
  };

  /** The counts of one worker deployment's old builds, replacing its earlier ones: a build not given has no series any more. */
  readonly setPinnedWorkflows = (namespace: string, name: string, running: Record<string, number>): void => {
    const key = `${namespace}/${name}`;
    for (const build_id of this.pinnedWorkflowBuilds.get(key) ?? [])
      if (!(build_id in running)) this.pinnedWorkflows.remove({ namespace, worker_deployment: name, build_id });
    for (const [build_id, count] of Object.entries(running))
      this.pinnedWorkflows.set({ namespace, worker_deployment: name, build_id }, count);
    this.pinnedWorkflowBuilds.set(key, Object.keys(running));
  };

  /**
   * The certificates of one connection (namespace '' for a cluster one) as last read, replacing its
   * earlier ones: a certificate not given (renewed, or the connection gone: none) has no series any more.
   */
  readonly setConnectionCertificates = (
    namespace: string,
    name: string,
    certificates: readonly ReadCertificate[],
  ): void => {
    const key = `${namespace}/${name}`;
    for (const labels of this.connectionCertificateSeries.get(key) ?? [])
      this.connectionCertificateExpiry.remove(labels);
    const series = certificates.map((c) => ({
      labels: {
        namespace,
        connection: name,
        secret: c.secret,
        key: c.key,
        subject: c.subject,
        serial_number: c.serialNumber,
      },
      seconds: Math.floor(c.notAfter.getTime() / 1000),
    }));
    for (const { labels, seconds } of series) this.connectionCertificateExpiry.set(labels, seconds);
    if (series.length > 0)
      this.connectionCertificateSeries.set(
        key,
        series.map((s) => s.labels),
      );
    else this.connectionCertificateSeries.delete(key);
  };

  /** How many objects the target build's Pods read are missing, as the last reconcile found; 0 takes the series away. */
  readonly setMissingConfiguration = (namespace: string, name: string, missing: number): void => {
    if (missing > 0) this.missingConfiguration.set({ namespace, worker_deployment: name }, missing);
    else this.missingConfiguration.remove({ namespace, worker_deployment: name });
  };

  /** A worker deployment's builds judged NoPollers; undefined: not judged, no series. */
  readonly setBuildsWithoutPollers = (namespace: string, name: string, count: number | undefined): void => {
    if (count === undefined) this.buildsWithoutPollers.remove({ namespace, worker_deployment: name });
    else this.buildsWithoutPollers.set({ namespace, worker_deployment: name }, count);
  };

  /** Gauges of each build's backlog, as `figures` gives it at each scrape: a build or queue it leaves out has no series. */
  observeBacklog(figures: () => readonly BuildBacklog[]): void {
    // A controller started again on the same registry (a test's restart) replaces the source.
    const registered = this.backlogSource !== undefined;
    this.backlogSource = figures;
    if (registered) return;
    for (const { name, help, figure } of BACKLOG_FIGURES) {
      const metric = `twc_temporal_${name}`;
      new WrittenGauge<BacklogLabel>(
        { name: metric, help, labelNames: BACKLOG_LABELS, registers: [this.registry] },
        () => this.backlogLines(metric, figure),
      );
    }
  }

  private *backlogLines(metric: string, figure: (queue: TaskQueueFigures) => number): Generator<string> {
    for (const build of this.backlogSource?.() ?? [])
      for (const queue of build.queues) yield seriesLine(metric, this.backlogLabels(build, queue), figure(queue));
  }

  /**
   * A queue's labels on the backlog gauges, written once for the four gauges of a scrape and the
   * scrapes until its figures are read again (a read makes new figures): a scrape writes thousands.
   */
  private backlogLabels(build: BuildBacklog, queue: TaskQueueFigures): string {
    const written = this.backlogLabelsWritten.get(queue);
    if (written && sameBuild(written.build, build)) return written.text;
    const text = labelsText({
      namespace: build.namespace,
      worker_deployment: build.workerDeployment,
      build_id: build.buildId,
      task_queue: queue.taskQueue,
      task_queue_type: queue.type,
    });
    this.backlogLabelsWritten.set(queue, { build, text });
    return text;
  }

  /** Counts one step of a worker deployment judged by its analysis. */
  readonly countAnalysisVerdict = (namespace: string, name: string, verdict: 'Passed' | 'Failed'): void => {
    this.analysisVerdicts.inc({ namespace, worker_deployment: name, verdict });
  };

  readonly countAnalysisQuery = (namespace: string, result: 'answered' | 'no_sample' | 'failed' | 'refused'): void => {
    this.analysisQueries.inc({ namespace, result });
  };

  /** Counts what the rounds of moves that ended moved and left, and those that failed. */
  readonly countPinnedWorkflowMoves = (
    namespace: string,
    name: string,
    outcomes: { moved: number; notMoved: number; failedRounds: number },
  ): void => {
    const labels = { namespace, worker_deployment: name };
    if (outcomes.moved > 0) this.pinnedWorkflowMoves.inc({ ...labels, result: 'Moved' }, outcomes.moved);
    if (outcomes.notMoved > 0) this.pinnedWorkflowMoves.inc({ ...labels, result: 'NotMoved' }, outcomes.notMoved);
    if (outcomes.failedRounds > 0) this.failedMoveRounds.inc(labels, outcomes.failedRounds);
  };

  /** Counts one build whose drainage the list of its Worker Deployment (`temporal_deployment`) had wrong. */
  readonly countDrainageCorrection = (deploymentName: string): void => {
    this.drainageCorrections.inc({ temporal_deployment: deploymentName });
  };

  /** Counts one service-account token refused (token-policy.ts), by why. */
  readonly countTokenRefusal = (reason: 'OwnTokenAudienceNotAllowed' | 'AcceptedByApiServer'): void => {
    this.tokenRefusals.inc({ reason });
  };

  /** Counts one copy of a cluster connection's Secret deleted from a namespace that may no longer use it, or one try that failed. */
  readonly countSecretCopyRevocation = (namespace: string, connection: string, result: 'deleted' | 'failed'): void => {
    this.secretCopyRevocations.inc({ namespace, connection, result });
  };

  /** Counts one notification's end (see runtime/deliveries.ts). */
  readonly countNotification = (result: 'sent' | 'failed' | 'dropped' | 'refused'): void => {
    this.notifications.inc({ result });
  };

  /** Counts one write of an owned-resource copy that its ServiceAccount may not make. */
  readonly countCopyForbidden = (namespace: string, kind: string, verb: string): void => {
    this.copiesForbidden.inc({ namespace, kind, verb });
  };

  /** Give it to a KubernetesApi to count its requests. */
  readonly countKubernetesRequest: KubernetesRequestCounter = (verb, resource, code) =>
    this.kubernetesRequests.inc({ verb, resource, code });

  /** Counts one call to Temporal cut off by its timeout (`read`, `write`) or by its reconcile's (`reconcile`). */
  readonly countTemporalTimeout = (method: string, by: string): void => {
    this.temporalCutOffs.inc({ method, by });
  };

  /** Observes one call's wait for a call slot of its Temporal namespace. */
  readonly observeCallSlotWait = (temporalNamespace: string, ms: number): void => {
    this.callSlotWait.observe({ temporal_namespace: temporalNamespace }, ms / 1000);
  };

  readonly setCallsInFlight = (temporalNamespace: string, calls: number): void => {
    this.callsInFlight.set({ temporal_namespace: temporalNamespace }, calls);
  };

  /** Counts one completed rollout and what it spent (see controller/rollout-costs.ts). */
  readonly countRollout = (cost: RolloutCost): void => {
    this.rollouts.inc();
    this.rolloutReconciles.inc(cost.reconciles);
    for (const [method, n] of cost.calls)
      this.rolloutCalls.inc({ method: method.charAt(0).toUpperCase() + method.slice(1) }, n);
    this.rolloutWait.observe({ on: 'queue' }, cost.queueMs / 1000);
    this.rolloutWait.observe({ on: 'read_token' }, cost.tokenWaitMs / 1000);
    this.rolloutWait.observe({ on: 'call_slot' }, cost.slotWaitMs / 1000);
    this.rolloutWait.observe({ on: 'temporal' }, cost.callMs / 1000);
  };

  /** Counts one attempt of a Temporal call, retries included: `code` is the gRPC status name, OK or NOT_FOUND. */
  readonly countTemporalRequest = (method: string, code: string): void => {
    this.temporalRequests.inc({ method, code });
  };

  /** The gauges of one worker deployment's status as last written; undefined (the object gone) takes them away. */
  readonly setStatusFigures = (namespace: string, name: string, figures: StatusFigures | undefined): void => {
    this.statusGauges.set(namespace, name, figures);
  };
}
