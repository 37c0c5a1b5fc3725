// The Temporal the controller depends on, for one Worker Deployment: versions that register once
// a build's Pods are ready and poll, routing (current, ramping and its percentage, the conflict
// token, the manager identity), drainage reported with a lag (Draining, then Drained once no
// pinned workflow has run there for a while, as visibility saw it), pinned and auto-upgrade
// workflows, gate workflows that pass, fail or hang, the worker library's replay check (a gate
// that says which runs a build's code replays), batch operations acting on exactly the workflows
// their query matches (a move, on the runs it names), and visibility that lags the workflows. The controller reaches
// it only through WorkerDeploymentClient; every call may meet an injected fault (faults.ts).
import { TemporalCallError, GrpcStatus } from '../../src/temporal/call-status.ts';
import type {
  BatchOperationKind,
  BatchProgress,
  BuildTaskQueues,
  GateRun,
  TemporalDeploymentState,
  TemporalVersion,
} from '../../src/domain/snapshot.ts';
import type { MetricAnswer, OutcomeCounts } from '../../src/domain/observation.ts';
import {
  type CheckRun,
  type PinnedRun,
  REPLAY_CHECK_WORKFLOW,
  type ReplayCheckResult,
} from '../../src/domain/pinned-move.ts';
import type { BatchStart } from '../../src/temporal/batch-operations.ts';
import type { ReplayCheckStart } from '../../src/temporal/replay-checks.ts';
import { closedWorkflowsQuery, runningBatchesQuery, runningWorkflowsQuery } from '../../src/domain/visibility.ts';
import type { RoutingChange } from '../../src/domain/routing-change.ts';
import type { WorkerDeploymentClient } from '../../src/temporal/worker-deployment-client.ts';
import { type Clock, DEFAULT_QUEUE } from './kubernetes-model.ts';
import type { Prng } from './prng.ts';
import { exhausted } from './temporal-errors.ts';
import { matches, parseQuery, type Query, type Row, valuesCompared } from './visibility-query.ts';

/** Temporal remembers a build's pollers this long (matching.PollerHistoryTTL). */
const POLLER_TTL_MS = 5 * 60_000;
/** Drained once visibility counted no pinned workflow on the build for this long (the server's grace plus its refresh). */
const DRAINAGE_GRACE_MS = 90_000;
/** Visibility shows a change of a workflow this long after it happened; always below the drainage grace. */
const VISIBILITY_LAG_MS = 20_000;
/** A gate that has not decided within this long times out (the adapter's workflowExecutionTimeout). */
const GATE_TIMEOUT_MS = 3_600_000;
/** Workflows a batch acts on between two looks. */
const BATCH_RATE = 4;
/** Batches that may run at once in the namespace. */
const MAX_BATCHES = 3;
/**
 * A queue's partitions learn that a build polls it this long after the build's description lists
 * it; meanwhile the activities of a workflow pinned to the build run on the queue's current build.
 */
const PARTITIONS_LEARN_MS = 5_000;

export type Behavior = 'Pinned' | 'AutoUpgrade';
type WorkflowStatus = 'Running' | 'Completed' | 'Failed' | 'Canceled' | 'Terminated' | 'ContinuedAsNew' | 'TimedOut';

export interface GateTraits {
  outcome: 'pass' | 'fail' | 'hang';
  /** Work it needs, in ms of a worker polling its queue. */
  workMs: number;
}

/** What a build does in Temporal, fixed per build (see builds.ts). */
export interface BuildBehaviour {
  /** Share of its workflows that fail. */
  failureRate(buildId: string): number;
  gate(buildId: string, workflowType: string): GateTraits;
  /** Whether the build's code replays the histories of that workflow type made on other builds. */
  replays(buildId: string, workflowType: string): boolean;
}

/** Whether a build's workers poll (a queue): from the Kubernetes model. */
export interface Workers {
  polls(buildId: string, queue?: string): boolean;
  queuesPolled(buildId: string): string[];
}

export interface Workflow {
  id: string;
  runId: string;
  type: string;
  /** Its task queue: a replay check of it runs there. */
  queue: string;
  behavior: Behavior;
  /** The build of its last workflow task (its pinned build, for a pinned workflow); undefined: unversioned. */
  build: string | undefined;
  status: WorkflowStatus;
  startedAt: number;
  /** When its work is done, given a worker. */
  endsAt: number;
  closedAt?: number;
  fails: boolean;
  /** An auto-upgrade workflow that sleeps takes no task until it ends. */
  sleeps: boolean;
  cancelRequested?: boolean;
  continueAsNewRequested?: boolean;
  gate?: {
    queue: string;
    input?: unknown;
    traits: GateTraits;
    /** The build whose workers ran its activities: the one it judges. */
    judges: string;
    workedMs: number;
    attempts: number;
    message?: string;
    /** A replay check's results, once it completed. */
    results?: ReplayCheckResult[];
  };
  /** Moved by a Move batch: onto which build, when. */
  moved?: { onto: string; at: number };
  /** What visibility shows, as of `changedAt + lag`. */
  visible?: Row;
  changedAt: number;
  /** The `changedAt` the visible row shows. */
  visibleAsOf?: number;
}

interface Version {
  buildId: string;
  createdAt: number;
  firstActivationAt?: number;
  lastCurrentAt?: number;
  lastDeactivationAt?: number;
  drainage: 'none' | 'unspecified' | 'draining' | 'drained';
  drainageChangedAt?: number;
  /** When the deactivation reaches the list as Draining. */
  drainageReportAt?: number;
  emptySince?: number;
  queues: Set<string>;
  /** When each queue was first listed. */
  listedAt: Map<string, number>;
  lastPollAt: number;
}

export interface Batch {
  jobId: string;
  operation: BatchOperationKind;
  signalName?: string;
  /** What a ladder batch acts on; a move acts on `executions`. */
  query?: Query;
  /** A move's runs, and the build it pins them to. */
  executions?: { workflowId: string; runId: string }[];
  onto?: string;
  /** The builds its query names. */
  builds: string[];
  state: 'Running' | 'Completed' | 'Failed';
  startTime: number;
  closeTime?: number;
  touched: Set<Workflow>;
  failed: number;
}

/** What the Temporal model tells the checks about as it happens (see invariants.ts). */
export interface TemporalHooks {
  /** A routing change took effect: what was routed before and after. */
  routed(before: Routing, after: Routing): void;
  batchStarted(batch: Batch): void;
  batchTouched(batch: Batch, workflow: Workflow): void;
  gateEnded(workflow: Workflow): void;
  /** The controller read the Worker Deployment: what users do while a reconcile waits for Temporal happens here. */
  described(): void;
  faulted(): void;
}

/** Faults of Temporal's calls, armed by faults.ts: each call asks before it is answered. */
export interface TemporalFaults {
  /** Throws the error the call meets, if any; `applied`: asked again after the call took effect (its answer lost). */
  check(method: string, applied: boolean): void;
  /** Someone else changes the Worker Deployment right after this description: its conflict token goes stale. */
  meddles(): boolean;
  /** Temporal changed the Worker Deployment at `now` (its workflow continues as new). */
  changed(now: number): void;
  /** The Worker Deployment answers not found at `now`, as it does between the runs of its workflow. */
  betweenRuns(now: number): boolean;
}

export interface Routing {
  current?: string;
  ramping?: string;
  percentage?: number;
}

export class TemporalModel {
  readonly clock: Clock;
  private readonly rng: Prng;
  private readonly builds: BuildBehaviour;
  private readonly workers: Workers;
  hooks: TemporalHooks;
  faults: TemporalFaults;
  readonly temporalName: string;
  /** Seed trait: the server reports lastCurrentTime (newer than 1.29). */
  readonly reportsLastCurrentTime: boolean;
  exists = false;
  readonly versions = new Map<string, Version>();
  current?: string;
  currentChangedAt?: number;
  ramping?: string;
  percentage = 0;
  rampChangedAt?: number;
  token = 1;
  manager?: string;
  lastModifier?: string;
  readonly workflows: Workflow[] = [];
  readonly batches = new Map<string, Batch>();
  private ids = 0;
  /** Lines of the calls the controller made, shared with the Kubernetes model so that they keep their order. */
  readonly calls: string[];

  constructor(options: {
    calls: string[];
    clock: Clock;
    rng: Prng;
    builds: BuildBehaviour;
    workers: Workers;
    hooks: TemporalHooks;
    faults: TemporalFaults;
    temporalName: string;
    reportsLastCurrentTime: boolean;
  }) {
    this.clock = options.clock;
    this.calls = options.calls;
    this.rng = options.rng;
    this.builds = options.builds;
    this.workers = options.workers;
    this.hooks = options.hooks;
    this.faults = options.faults;
    this.temporalName = options.temporalName;
    this.reportsLastCurrentTime = options.reportsLastCurrentTime;
  }

  routing(): Routing {
    return {
      ...(this.current ? { current: this.current } : {}),
      ...(this.ramping ? { ramping: this.ramping, percentage: this.percentage } : {}),
    };
  }

  /** Running pinned workflows of users (not gates) on a build: what its Pods must stay for. */
  pinnedRunning(buildId: string): Workflow[] {
    return this.workflows.filter(
      (w) => w.status === 'Running' && w.behavior === 'Pinned' && !w.gate && w.build === buildId,
    );
  }

  // ---- What happens between two looks -------------------------------------------------------

  progress(elapsedMs: number): void {
    const now = this.clock.now;
    this.register();
    this.arrive();
    for (const w of this.workflows) if (w.status === 'Running') this.work(w, elapsedMs);
    this.see();
    for (const batch of this.batches.values()) if (batch.state === 'Running') this.runBatch(batch);
    this.see();
    this.drain();
    // Closed workflows older than any analysis window are of no more use.
    const horizon = now - 3 * 3_600_000;
    for (let i = this.workflows.length - 1; i >= 0; i--) {
      const w = this.workflows[i];
      // Gate runs are kept: the checks ask whether a gate ever passed.
      if (w && !w.gate && w.closedAt !== undefined && w.closedAt < horizon && w.visible?.ExecutionStatus !== 'Running')
        this.workflows.splice(i, 1);
    }
  }

  /** A build whose workers poll is listed, with the queues they poll. */
  private register(): void {
    const now = this.clock.now;
    for (const buildId of this.candidateBuilds()) {
      const queues = this.workers.queuesPolled(buildId);
      if (queues.length === 0) continue;
      let v = this.versions.get(buildId);
      if (!v) {
        v = { buildId, createdAt: now, drainage: 'none', queues: new Set(), listedAt: new Map(), lastPollAt: now };
        this.versions.set(buildId, v);
        this.exists = true;
      }
      for (const q of queues) {
        v.queues.add(q);
        if (!v.listedAt.has(q)) v.listedAt.set(q, now);
      }
      v.lastPollAt = now;
    }
  }

  /** Set by the world: the builds that have Deployments. */
  candidateBuilds: () => Iterable<string> = () => [];

  private nextId(prefix: string): string {
    return `${prefix}-${++this.ids}`;
  }

  /** New workflows, routed as Temporal routes them: the ramping build takes its share. */
  private arrive(): void {
    const count = this.rng.int(0, 2);
    for (let i = 0; i < count; i++) {
      const build =
        this.ramping && this.rng.float() * 100 < this.percentage ? this.ramping : (this.current ?? undefined);
      const behavior: Behavior = this.rng.chance(0.5) ? 'Pinned' : 'AutoUpgrade';
      this.start({ type: this.rng.pick(['order', 'payment']), behavior, build });
    }
  }

  private start(options: { type: string; behavior: Behavior; build: string | undefined }): Workflow {
    const queues = options.build === undefined ? [] : this.workers.queuesPolled(options.build).sort();
    const now = this.clock.now;
    const length = this.rng.weighted({ short: 6, medium: 3, long: 1 });
    const durationMs =
      length === 'short'
        ? this.rng.int(10, 120) * 1000
        : length === 'medium'
          ? this.rng.int(2, 20) * 60_000
          : this.rng.int(30, 120) * 60_000;
    const id = this.nextId('wf');
    const workflow: Workflow = {
      id,
      runId: `${id}-run`,
      type: options.type,
      queue: queues.length > 0 ? this.rng.pick(queues) : DEFAULT_QUEUE,
      behavior: options.behavior,
      build: options.build,
      status: 'Running',
      startedAt: now,
      endsAt: now + durationMs,
      fails: options.build !== undefined && this.rng.float() < this.builds.failureRate(options.build),
      sleeps: options.behavior === 'AutoUpgrade' && this.rng.chance(0.3),
      changedAt: now,
    };
    this.workflows.push(workflow);
    return workflow;
  }

  /** Where the workflow's next task runs: its pinned build, or the current build for an auto-upgrade one. */
  private taskBuild(w: Workflow): string | undefined {
    return w.behavior === 'Pinned' ? w.build : this.current;
  }

  private work(w: Workflow, elapsedMs: number): void {
    const now = this.clock.now;
    if (w.gate) return this.workGate(w, elapsedMs);
    const build = this.taskBuild(w);
    // No worker of the build: the workflow's tasks wait.
    if (build !== undefined && !this.workers.polls(build)) return;
    const takesTask = !w.sleeps || now >= w.endsAt || w.cancelRequested || w.continueAsNewRequested;
    if (!takesTask) return;
    if (w.behavior === 'AutoUpgrade' && w.build !== build) this.change(w, { build });
    if (w.continueAsNewRequested) {
      this.close(w, 'ContinuedAsNew');
      if (this.current) this.start({ type: w.type, behavior: w.behavior, build: this.current });
    } else if (w.cancelRequested) {
      this.close(w, 'Canceled');
    } else if (now >= w.endsAt) {
      this.close(w, w.fails ? 'Failed' : 'Completed');
    }
  }

  private workGate(w: Workflow, elapsedMs: number): void {
    const gate = w.gate;
    if (!gate) return;
    const now = this.clock.now;
    if (now - w.startedAt >= GATE_TIMEOUT_MS) {
      gate.message = 'timedout: no decision within 60 minutes';
      this.close(w, 'TimedOut');
      return;
    }
    if (!w.build || !this.workers.polls(w.build, gate.queue)) return;
    if (w.cancelRequested) {
      gate.message = 'canceled';
      this.close(w, 'Canceled');
      return;
    }
    gate.attempts++;
    if (gate.traits.outcome === 'hang') return;
    gate.workedMs += elapsedMs;
    if (gate.workedMs < gate.traits.workMs) return;
    if (gate.traits.outcome === 'pass') {
      if (w.type === REPLAY_CHECK_WORKFLOW) gate.results = this.replayed(w.build, gate.input);
      this.close(w, 'Completed');
    } else {
      gate.message = 'failed: the gate found the build unfit';
      this.close(w, 'Failed');
    }
  }

  private change(w: Workflow, change: Partial<Workflow>): void {
    Object.assign(w, change);
    w.changedAt = this.clock.now;
  }

  private close(w: Workflow, status: WorkflowStatus): void {
    this.change(w, { status, closedAt: this.clock.now });
    if (w.gate) this.hooks.gateEnded(w);
  }

  /** Visibility catches up with what happened at least its lag ago. */
  private see(): void {
    const now = this.clock.now;
    for (const w of this.workflows) {
      if (w.visibleAsOf === w.changedAt || now - w.changedAt < VISIBILITY_LAG_MS) continue;
      w.visible = this.rowOf(w);
      w.visibleAsOf = w.changedAt;
    }
  }

  private rowOf(w: Workflow): Row {
    return {
      ...(w.build !== undefined ? { TemporalWorkerDeploymentVersion: `${this.temporalName}:${w.build}` } : {}),
      TemporalWorkflowVersioningBehavior: w.behavior,
      ExecutionStatus: w.status,
      WorkflowType: w.type,
      WorkflowId: w.id,
      StartTime: new Date(w.startedAt).toISOString(),
      ...(w.closedAt !== undefined ? { CloseTime: new Date(w.closedAt).toISOString() } : {}),
    };
  }

  /** What a replay check pinned to `buildId` says of the runs it was given, as it completes. */
  private replayed(buildId: string, input: unknown): ReplayCheckResult[] {
    const runs = (input as { workflows?: { workflowId: string; runId: string }[] } | undefined)?.workflows ?? [];
    return runs.map(({ workflowId, runId }) => {
      const w = this.workflows.find((x) => x.id === workflowId && x.runId === runId && !x.gate);
      if (!w || w.status !== 'Running') return { workflowId, runId, replays: false, skipped: 'the run is gone' };
      return w.build === buildId || this.builds.replays(buildId, w.type)
        ? { workflowId, runId, replays: true }
        : {
            workflowId,
            runId,
            replays: false,
            event: '5 ActivityTaskScheduled',
            message: `[TMPRL1100] ${w.type} diverges on build ${buildId}`,
          };
    });
  }

  /** The runs a batch has yet to act on: a ladder's, as visibility shows them; a move's, by their IDs. */
  private todo(batch: Batch): Workflow[] {
    const { query, executions } = batch;
    if (executions)
      return this.workflows.filter(
        (w) =>
          w.status === 'Running' &&
          !w.gate &&
          !batch.touched.has(w) &&
          executions.some((e) => e.workflowId === w.id && e.runId === w.runId),
      );
    return this.workflows.filter(
      (w) => w.status === 'Running' && w.visible && !batch.touched.has(w) && !!query && matches(query.where, w.visible),
    );
  }

  private runBatch(batch: Batch): void {
    const now = this.clock.now;
    const todo = this.todo(batch);
    for (const w of todo.slice(0, BATCH_RATE)) {
      batch.touched.add(w);
      this.hooks.batchTouched(batch, w);
      switch (batch.operation) {
        case 'Terminate':
          if (w.gate) w.gate.message = 'terminated: by a batch operation';
          this.close(w, 'Terminated');
          break;
        case 'Cancel':
          this.change(w, { cancelRequested: true });
          break;
        case 'Signal':
          // The signal asks the workflow to continue as new onto the current build; a gate ignores it.
          if (!w.gate) this.change(w, { continueAsNewRequested: true });
          break;
        case 'Move':
          // A pinned versioning override: its next task runs on the build it names.
          if (batch.onto) this.change(w, { build: batch.onto, moved: { onto: batch.onto, at: now } });
          break;
      }
    }
    // Runs named that closed before the move reached them are its failures.
    if (batch.executions && todo.length <= BATCH_RATE) batch.failed = batch.executions.length - batch.touched.size;
    if (todo.length <= BATCH_RATE) {
      batch.state = 'Completed';
      batch.closeTime = now;
    }
  }

  /** The drainage of every build no longer current nor ramping, as the server reports it. */
  private drain(): void {
    const now = this.clock.now;
    for (const v of this.versions.values()) {
      if (v.drainage === 'unspecified' && now >= (v.drainageReportAt ?? 0)) {
        v.drainage = 'draining';
        v.drainageChangedAt = now;
        v.emptySince = undefined;
      }
      if (v.drainage !== 'draining') continue;
      const version = `${this.temporalName}:${v.buildId}`;
      const seen = this.workflows.some(
        (w) =>
          w.visible?.ExecutionStatus === 'Running' &&
          w.visible.TemporalWorkflowVersioningBehavior === 'Pinned' &&
          w.visible.TemporalWorkerDeploymentVersion === version,
      );
      if (seen) {
        v.emptySince = undefined;
        continue;
      }
      v.emptySince ??= now;
      if (now - v.emptySince >= DRAINAGE_GRACE_MS) {
        v.drainage = 'drained';
        v.drainageChangedAt = now;
      }
    }
  }

  private activate(buildId: string): void {
    const v = this.versions.get(buildId);
    if (!v) return;
    v.firstActivationAt ??= this.clock.now;
    v.drainage = 'none';
    v.drainageReportAt = undefined;
  }

  private deactivate(buildId: string, wasCurrent: boolean): void {
    const v = this.versions.get(buildId);
    if (!v) return;
    const now = this.clock.now;
    if (wasCurrent) v.lastCurrentAt = now;
    v.lastDeactivationAt = now;
    v.drainage = 'unspecified';
    v.drainageReportAt = now + this.rng.int(0, 45) * 1000;
  }

  // ---- The controller's calls ----------------------------------------------------------------

  private call(method: string, line: string): void {
    this.calls.push(`temporal.${line}`);
    this.faults.check(method, false);
  }

  private answered(method: string): void {
    this.faults.check(method, true);
  }

  private refuse(method: string, code: number, details: string): never {
    throw new TemporalCallError(method, { code, details });
  }

  describe(): TemporalDeploymentState {
    this.call('describe', 'describe');
    this.hooks.described();
    if (!this.exists || this.faults.betweenRuns(this.clock.now)) return { exists: false, versions: [] };
    const versions = [...this.versions.values()].map((v): TemporalVersion => {
      const status =
        v.buildId === this.current
          ? 'Current'
          : v.buildId === this.ramping
            ? 'Ramping'
            : v.drainage === 'draining'
              ? 'Draining'
              : v.drainage === 'drained'
                ? 'Drained'
                : 'Inactive';
      const lastCurrentAt = this.reportsLastCurrentTime ? v.lastCurrentAt : undefined;
      const everActive = status !== 'Inactive' || v.firstActivationAt !== undefined || lastCurrentAt !== undefined;
      return {
        buildId: v.buildId,
        status,
        everActive,
        ...(status === 'Drained' && v.drainageChangedAt !== undefined
          ? { drainedSince: new Date(v.drainageChangedAt) }
          : {}),
        ...(lastCurrentAt !== undefined ? { lastCurrentAt: new Date(lastCurrentAt) } : {}),
        ...(v.lastDeactivationAt !== undefined ? { deactivatedAt: new Date(v.lastDeactivationAt) } : {}),
        ...(v.firstActivationAt !== undefined ? { firstActiveAt: new Date(v.firstActivationAt) } : {}),
      };
    });
    const described = {
      exists: true,
      versions,
      ...(this.current ? { currentBuildId: this.current } : {}),
      ...(this.current && this.currentChangedAt !== undefined
        ? { currentChangedAt: new Date(this.currentChangedAt) }
        : {}),
      ...(this.ramping ? { rampingBuildId: this.ramping, rampPercentage: this.percentage } : {}),
      ...(this.ramping && this.rampChangedAt !== undefined ? { rampChangedAt: new Date(this.rampChangedAt) } : {}),
      conflictToken: new Uint8Array([this.token & 255, (this.token >> 8) & 255, (this.token >> 16) & 255]),
      ...(this.manager ? { managerIdentity: this.manager } : {}),
      ...(this.lastModifier ? { lastModifierIdentity: this.lastModifier } : {}),
    };
    if (this.faults.meddles()) this.token++;
    return described;
  }

  private tokenMatches(token: Uint8Array | undefined): boolean {
    if (!token) return true;
    return (
      token[0] === (this.token & 255) &&
      token[1] === ((this.token >> 8) & 255) &&
      token[2] === ((this.token >> 16) & 255)
    );
  }

  /** As the adapter does it: claim the manager identity, clear another build's ramp, then the change itself, each a call. */
  changeRouting(change: RoutingChange, identity: string): void {
    const what = [
      'changeRouting',
      change.action,
      'buildId' in change ? change.buildId : '',
      'percentage' in change ? `${change.percentage}%` : '',
    ]
      .filter(Boolean)
      .join(' ');
    this.call('changeRouting', what);
    let token = change.conflictToken;
    const write = (method: string, apply: () => void): void => {
      if (!this.tokenMatches(token)) this.refuse(method, GrpcStatus.FAILED_PRECONDITION, 'conflict token mismatch');
      if (this.manager && this.manager !== identity && method !== 'SetWorkerDeploymentManager')
        this.refuse(method, GrpcStatus.FAILED_PRECONDITION, `the deployment is managed by ${this.manager}`);
      const before = this.routing();
      apply();
      this.token++;
      this.faults.changed(this.clock.now);
      this.lastModifier = identity;
      token = this.describeToken();
      this.hooks.routed(before, this.routing());
    };
    if (change.claimManager) {
      write('SetWorkerDeploymentManager', () => (this.manager = identity));
      this.faults.check('changeRouting', true);
    }
    if ((change.action === 'setCurrent' || change.action === 'setUnversioned') && change.clearingRampOf) {
      write('SetWorkerDeploymentRampingVersion', () => this.clearRamp());
      this.faults.check('changeRouting', true);
    }
    switch (change.action) {
      case 'setCurrent': {
        const buildId = change.buildId;
        if (!this.versions.has(buildId))
          this.refuse('SetWorkerDeploymentCurrentVersion', GrpcStatus.NOT_FOUND, `version ${buildId} not found`);
        write('SetWorkerDeploymentCurrentVersion', () => this.setCurrent(buildId));
        break;
      }
      case 'setRamp': {
        const { buildId, percentage } = change;
        if (!this.versions.has(buildId))
          this.refuse('SetWorkerDeploymentRampingVersion', GrpcStatus.NOT_FOUND, `version ${buildId} not found`);
        if (buildId === this.current)
          this.refuse(
            'SetWorkerDeploymentRampingVersion',
            GrpcStatus.FAILED_PRECONDITION,
            'the current version cannot ramp',
          );
        write('SetWorkerDeploymentRampingVersion', () => this.setRamp(buildId, percentage));
        break;
      }
      case 'clearRamp':
        write('SetWorkerDeploymentRampingVersion', () => this.clearRamp());
        break;
      case 'setUnversioned':
        write('SetWorkerDeploymentCurrentVersion', () => {
          if (this.current) this.deactivate(this.current, true);
          this.current = undefined;
          this.currentChangedAt = this.clock.now;
        });
        break;
    }
    this.answered('changeRouting');
  }

  private describeToken(): Uint8Array {
    return new Uint8Array([this.token & 255, (this.token >> 8) & 255, (this.token >> 16) & 255]);
  }

  private setCurrent(buildId: string): void {
    const now = this.clock.now;
    const previous = this.current;
    if (this.ramping === buildId) {
      this.ramping = undefined;
      this.percentage = 0;
      this.rampChangedAt = now;
    }
    this.current = buildId;
    this.currentChangedAt = now;
    this.activate(buildId);
    if (previous && previous !== buildId) this.deactivate(previous, true);
  }

  private setRamp(buildId: string, percentage: number): void {
    const now = this.clock.now;
    const previous = this.ramping;
    if (previous !== buildId || this.percentage !== percentage) this.rampChangedAt = now;
    this.ramping = buildId;
    this.percentage = percentage;
    this.activate(buildId);
    if (previous && previous !== buildId) this.deactivate(previous, false);
  }

  private clearRamp(): void {
    const previous = this.ramping;
    this.ramping = undefined;
    this.percentage = 0;
    this.rampChangedAt = this.clock.now;
    if (previous) this.deactivate(previous, false);
  }

  taskQueues(buildId: string): BuildTaskQueues {
    this.call('taskQueues', `taskQueues ${buildId}`);
    const queues = [...(this.versions.get(buildId)?.queues ?? [])].sort();
    return { workflow: queues, activity: [...queues] };
  }

  readGate(workflowId: string): GateRun | undefined {
    this.call('readGate', `readGate ${workflowId}`);
    const run = this.latestRun(workflowId);
    if (!run) return undefined;
    const base = {
      workflowId,
      runId: run.runId,
      workflowType: run.type,
      ...(run.build === undefined ? {} : { pinnedTo: { deploymentName: this.temporalName, buildId: run.build } }),
    };
    if (run.status === 'Running') {
      const stuck = run.gate?.traits.outcome === 'hang' && (run.gate.attempts ?? 0) > 1;
      return stuck
        ? { ...base, status: 'Running', stuck: 'its workflow task fails: the gate cannot decide' }
        : { ...base, status: 'Running' };
    }
    if (run.status === 'Completed') return { ...base, status: 'Completed' };
    return { ...base, status: 'Failed', message: run.gate?.message ?? run.status.toLowerCase() };
  }

  private latestRun(workflowId: string): Workflow | undefined {
    return this.workflows.findLast((w) => w.gate && w.id === workflowId);
  }

  /** WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE: a running run stays (no run ID given); a closed one is followed by a new run. */
  startGate(
    buildId: string,
    gate: { workflowId: string; workflowType: string; taskQueue: string; input?: unknown },
  ): string | undefined {
    this.call('startGate', `startGate ${buildId} ${gate.workflowType} on ${gate.taskQueue}`);
    const latest = this.latestRun(gate.workflowId);
    if (latest?.status === 'Running') {
      this.answered('startGate');
      return undefined;
    }
    const now = this.clock.now;
    const runId = this.nextId('run');
    const listedAt = this.versions.get(buildId)?.listedAt.get(gate.taskQueue) ?? -Infinity;
    const judges = now - listedAt < PARTITIONS_LEARN_MS && this.current ? this.current : buildId;
    const workflow: Workflow = {
      id: gate.workflowId,
      runId,
      type: gate.workflowType,
      queue: gate.taskQueue,
      behavior: 'Pinned',
      build: buildId,
      status: 'Running',
      startedAt: now,
      endsAt: Infinity,
      fails: false,
      sleeps: false,
      gate: {
        queue: gate.taskQueue,
        ...(gate.input === undefined ? {} : { input: gate.input }),
        traits: this.builds.gate(judges, gate.workflowType),
        judges,
        workedMs: 0,
        attempts: 0,
      },
      changedAt: now,
    };
    this.workflows.push(workflow);
    this.answered('startGate');
    return runId;
  }

  terminateGate(workflowId: string, runId: string): void {
    this.call('terminateGate', `terminateGate ${workflowId} ${runId}`);
    // No run ID: Temporal ends the workflow ID's latest run.
    const run = this.workflows.findLast((w) => w.gate && w.id === workflowId && (runId === '' || w.runId === runId));
    if (run && run.status === 'Running') {
      if (run.gate) run.gate.message = 'terminated: replaced by the controller';
      this.close(run, 'Terminated');
    }
    this.answered('terminateGate');
  }

  deleteVersionRecord(
    buildId: string,
    skipDrainage: boolean,
  ): { deleted: true } | { deleted: false; waitingFor: string } {
    this.call('deleteVersionRecord', `deleteVersionRecord ${buildId}${skipDrainage ? ' (skipping drainage)' : ''}`);
    const v = this.versions.get(buildId);
    if (!v) return { deleted: true };
    if (buildId === this.current || buildId === this.ramping)
      this.refuse('DeleteWorkerDeploymentVersion', GrpcStatus.FAILED_PRECONDITION, 'the version is current or ramping');
    if (!skipDrainage && (v.drainage === 'draining' || v.drainage === 'unspecified'))
      this.refuse('DeleteWorkerDeploymentVersion', GrpcStatus.FAILED_PRECONDITION, 'the version is draining');
    if (this.clock.now - v.lastPollAt < POLLER_TTL_MS)
      return {
        deleted: false,
        waitingFor: `Temporal keeps the record of build ${buildId} while it remembers its pollers`,
      };
    this.versions.delete(buildId);
    this.faults.changed(this.clock.now);
    this.answered('deleteVersionRecord');
    return { deleted: true };
  }

  deleteDeployment(): void {
    this.call('deleteDeployment', 'deleteDeployment');
    if (this.versions.size > 0)
      this.refuse('DeleteWorkerDeployment', GrpcStatus.FAILED_PRECONDITION, 'the deployment still has versions');
    this.exists = false;
    this.current = undefined;
    this.ramping = undefined;
    this.manager = undefined;
    this.answered('deleteDeployment');
  }

  /** Evaluates the query the real adapter sends, on what visibility shows. */
  countRunningWorkflows(buildId: string): number {
    this.call('countRunningWorkflows', `countRunningWorkflows ${buildId}`);
    const query = parseQuery(runningWorkflowsQuery(this.temporalName, [buildId]));
    return this.workflows.filter((w) => w.visible && matches(query.where, w.visible)).length;
  }

  countOutcomes(buildId: string, since: Date, workflowTypes?: string[]): OutcomeCounts {
    this.call('countOutcomes', `countOutcomes ${buildId} since ${since.toISOString()}`);
    return this.outcomes(buildId, since, workflowTypes);
  }

  /**
   * Prometheus beside Temporal, for spec.rollout.analysis.metrics: the simulated workers export
   * the share of their workflows that failed, so a query `failure_ratio{build="<id>"}[<n>s]` answers
   * that share over the build's workflows closed in the last n seconds, and no series when none closed.
   */
  prometheusQuery(query: string): MetricAnswer {
    this.call('prometheusQuery', `prometheusQuery ${query}`);
    const build = /build="([^"]+)"/.exec(query)?.[1] ?? '';
    const seconds = Number(/\[(\d+)s\]/.exec(query)?.[1] ?? '0');
    const { closed, failed } = this.outcomes(build, new Date(this.clock.now - seconds * 1000));
    return closed === 0 ? { noSample: 'no series' } : { value: failed / closed };
  }

  private outcomes(buildId: string, since: Date, workflowTypes?: string[]): OutcomeCounts {
    const query = parseQuery(closedWorkflowsQuery(this.temporalName, buildId, since, workflowTypes));
    const counts: OutcomeCounts = { closed: 0, failed: 0 };
    for (const w of this.workflows) {
      if (!w.visible || !matches(query.where, w.visible)) continue;
      // As workflow-outcomes.ts reads the groups: a continue-as-new is no outcome.
      const status = w.visible.ExecutionStatus;
      if (status === 'ContinuedAsNew') continue;
      counts.closed++;
      if (status === 'Failed' || status === 'TimedOut' || status === 'Terminated') counts.failed++;
    }
    return counts;
  }

  startBatch(start: BatchStart): void {
    const what = start.operation === 'Move' ? `onto ${start.onto}` : `where ${start.query}`;
    this.call('startBatch', `startBatch ${start.operation} ${start.jobId} ${what}`);
    if (this.batches.has(start.jobId)) return this.answered('startBatch');
    const running = [...this.batches.values()].filter((b) => b.state === 'Running').length;
    if (running >= MAX_BATCHES) throw exhausted('StartBatchOperation', 'concurrentBatches');
    const acts =
      start.operation === 'Move'
        ? { executions: start.executions, onto: start.onto, builds: this.buildsOf(start.executions) }
        : this.ladderTargets(start.query);
    const batch: Batch = {
      jobId: start.jobId,
      operation: start.operation,
      ...(start.operation !== 'Move' && start.signalName ? { signalName: start.signalName } : {}),
      ...acts,
      state: 'Running',
      startTime: this.clock.now,
      touched: new Set(),
      failed: 0,
    };
    this.batches.set(start.jobId, batch);
    this.hooks.batchStarted(batch);
    this.answered('startBatch');
  }

  private ladderTargets(text: string): Pick<Batch, 'query' | 'builds'> {
    const query = parseQuery(text);
    const versions = valuesCompared(query.where, 'TemporalWorkerDeploymentVersion');
    return { query, builds: versions.map((v) => v.slice(v.lastIndexOf(':') + 1)) };
  }

  /** The builds the runs named are on now. */
  private buildsOf(executions: { workflowId: string; runId: string }[]): string[] {
    const builds = this.workflows.flatMap((w) =>
      w.build !== undefined && executions.some((e) => e.workflowId === w.id && e.runId === w.runId) ? [w.build] : [],
    );
    return [...new Set(builds)];
  }

  describeBatch(jobId: string, operation: BatchOperationKind): BatchProgress | undefined {
    this.call('describeBatch', `describeBatch ${jobId}`);
    const batch = this.batches.get(jobId);
    if (!batch) return undefined;
    const remaining = batch.state === 'Running' ? this.todo(batch).length : 0;
    return {
      jobId,
      operation,
      state: batch.state,
      startTime: new Date(batch.startTime),
      ...(batch.closeTime !== undefined ? { closeTime: new Date(batch.closeTime) } : {}),
      total: batch.touched.size + remaining,
      completed: batch.touched.size,
      failed: batch.failed,
    };
  }

  /** Evaluates the query the real adapter sends on the batches as visibility shows them, a lag behind. */
  listRunningBatches(prefix: string): string[] {
    this.call('listRunningBatches', `listRunningBatches ${prefix}`);
    const query = parseQuery(runningBatchesQuery(prefix));
    const now = this.clock.now;
    return [...this.batches.values()].flatMap((batch) => {
      if (now - batch.startTime < VISIBILITY_LAG_MS) return [];
      const closedAsSeen = batch.closeTime !== undefined && now - batch.closeTime >= VISIBILITY_LAG_MS;
      const row: Row = {
        TemporalNamespaceDivision: 'TemporalBatcher',
        WorkflowId: batch.jobId,
        ExecutionStatus: closedAsSeen ? (batch.state === 'Completed' ? 'Completed' : 'Terminated') : 'Running',
        StartTime: new Date(batch.startTime).toISOString(),
      };
      return matches(query.where, row) ? [batch.jobId] : [];
    });
  }

  /** The workflows visibility lists as running pinned on the build, up to `limit`. */
  listPinnedRuns(buildId: string, limit: number): PinnedRun[] {
    this.call('listPinnedRuns', `listPinnedRuns ${buildId}`);
    const query = parseQuery(runningWorkflowsQuery(this.temporalName, [buildId]));
    return this.workflows
      .filter((w) => w.visible && matches(query.where, w.visible))
      .slice(0, limit)
      .map((w) => ({ workflowId: w.id, runId: w.runId, taskQueue: w.queue }));
  }

  startReplayCheck(onto: string, check: ReplayCheckStart): void {
    this.startGate(onto, {
      workflowId: check.workflowId,
      workflowType: REPLAY_CHECK_WORKFLOW,
      taskQueue: check.taskQueue,
      input: { workflows: check.runs },
    });
  }

  readReplayCheck(workflowId: string): CheckRun | undefined {
    const run = this.readGate(workflowId);
    const results = this.latestRun(workflowId)?.gate?.results;
    return run?.status === 'Completed' ? { ...run, results: results ?? [] } : run;
  }

  stopBatch(jobId: string): void {
    this.call('stopBatch', `stopBatch ${jobId}`);
    const batch = this.batches.get(jobId);
    if (batch && batch.state === 'Running') {
      batch.state = 'Failed';
      batch.closeTime = this.clock.now;
    }
    this.answered('stopBatch');
  }

  /** The Prometheus adapter's instant query, as prometheusQuery answers it, failing as Temporal's calls do under a fault. */
  prometheus(): (query: string) => Promise<MetricAnswer> {
    return async (query) => Promise.resolve(this.prometheusQuery(query));
  }

  client(identity: string): WorkerDeploymentClient {
    // Async: a refusal thrown by the model reaches the controller as the rejection an adapter gives.
    const run = async <T>(f: () => T): Promise<T> => Promise.resolve(f());
    return {
      describe: () => run(() => this.describe()),
      taskQueues: (buildId) => run(() => this.taskQueues(buildId)),
      unversionedPollersOnAll: () =>
        run(() => {
          this.call('unversionedPollersOnAll', 'unversionedPollersOnAll');
          return false;
        }),
      readGate: (id) => run(() => this.readGate(id)),
      startGate: (buildId, gate) => run(() => this.startGate(buildId, gate)),
      terminateGate: (id, runId) => run(() => this.terminateGate(id, runId)),
      deleteVersionRecord: (buildId, options) =>
        run(() => this.deleteVersionRecord(buildId, options?.skipDrainage ?? false)),
      changeRouting: (change) => run(() => this.changeRouting(change, identity)),
      countRunningWorkflows: (buildId) => run(() => this.countRunningWorkflows(buildId)),
      countOutcomes: (buildId, since, types) => run(() => this.countOutcomes(buildId, since, types)),
      deleteDeployment: () => run(() => this.deleteDeployment()),
      startBatch: (start) => run(() => this.startBatch(start)),
      describeBatch: (jobId, operation) => run(() => this.describeBatch(jobId, operation)),
      stopBatch: (jobId) => run(() => this.stopBatch(jobId)),
      listRunningBatches: (prefix) => run(() => this.listRunningBatches(prefix)),
      listPinnedRuns: (buildId, limit) => run(() => this.listPinnedRuns(buildId, limit)),
      startReplayCheck: (onto, check) => run(() => this.startReplayCheck(onto, check)),
      readReplayCheck: (id) => run(() => this.readReplayCheck(id)),
    };
  }
}
