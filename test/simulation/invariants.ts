// The promise, checked against the model's truth (never the controller's beliefs), as things
// happen and after every step:
// - no routing (current or ramping) to a build without a ready Pod in every pool;
// - no routing to a build before every gate of the spec passed on every task queue (an explicit
//   promote, and a rollback to a build current within the rollback window, aside);
// - no Deployment of a build that holds a running pinned workflow scaled to 0 or deleted (forced
//   deletion aside), nor of a build that is current or ramping;
// - no batch on a current, ramping or target build (but a move off an aborted target), nor
//   touching a non-pinned workflow; no step of the ladder touching a workflow no longer on its
//   build (moved away);
// - no workflow moved onto a build whose code does not replay it, nor onto a build not current;
// - a build that failed an analysis, or that the user aborted, never takes traffic again without a
//   new template or an explicit promote of it while the spec still has an analysis; one that failed
//   a gate is never made current while the spec still has that gate (a user who takes them out or
//   changes them decided without them, and a build made current while none of its failures held
//   has earned its place: a failure of it is forgotten);
// - never two Deployments for one build and pool;
// - once faults and users stop, the target is current within a bounded time (liveness).
import canonicalize from 'canonicalize';
import type { Rollout } from '../../src/api/rollout.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { LABELS } from '../../src/domain/labels.ts';
import { FORCE_DELETE_ANNOTATION } from '../../src/domain/annotations.ts';
import { REPLAY_CHECK_WORKFLOW } from '../../src/domain/pinned-move.ts';
import type { Builds } from './builds.ts';
import { DEFAULT_QUEUE, type KubernetesHooks, type KubernetesModel, type ModelDeployment } from './kubernetes-model.ts';
import type { Batch, Routing, TemporalHooks, TemporalModel, Workflow } from './temporal-model.ts';

export type InvariantName =
  | 'routed-without-ready-pods'
  | 'routed-before-gates'
  | 'failed-build-routed'
  | 'routed-build-retired'
  | 'pinned-workflows-stranded'
  | 'batch-on-active-build'
  | 'batch-on-non-pinned-workflow'
  | 'ladder-on-moved-workflow'
  | 'moved-without-replay'
  | 'moved-onto-inactive-build'
  | 'duplicate-deployment'
  | 'liveness';

export interface Violation {
  invariant: InvariantName;
  step: number;
  message: string;
}

/** Quiet this long (no user, no fault) and a target that can go current must be current. */
export const LIVENESS_QUIET_MS = 75 * 60_000;
export const LIVENESS_QUIET_STEPS = 25;

export interface InvariantContext {
  kubernetes: KubernetesModel;
  temporal: TemporalModel;
  builds: Builds;
  rollbackWindowMs: number;
}

type Spec = TemporalWorkerDeployment['spec'];

function gateKey(workflowType: string, input: unknown): string {
  return `${workflowType} ${canonicalize(input ?? null) ?? ''}`;
}

export class Invariants implements KubernetesHooks, TemporalHooks {
  private readonly context: InvariantContext;
  step = 0;
  violation: Violation | undefined;
  /** Per build: why it may not take traffic again (a failed gate or analysis), until a new template or a promote. */
  private readonly failed = new Map<string, { why: string; gate?: string; analysis?: string; judgedBy?: string }>();

  /**
   * Why the build may not take traffic, by the spec the controller decides on: a failed analysis
   * holds while the spec still has that very analysis; a failed gate holds against making the build
   * current while the spec still has that very gate (type and input): a user who takes them out
   * or changes them decided without them, and every gate a routing change needs is checked anyway.
   */
  private failure(build: string, current: boolean): string | undefined {
    const failure = this.failed.get(build);
    if (!failure) return undefined;
    const rollout = this.spec()?.rollout;
    if (failure.gate === undefined)
      return rollout?.analysis && canonicalize(rollout.analysis) === failure.analysis ? failure.why : undefined;
    if (!current) return undefined;
    const gates = [rollout?.gate, ...(rollout?.steps ?? []).map((s) => s.gate)];
    return gates.some((g) => g !== undefined && gateKey(g.workflowType, g.input) === failure.gate)
      ? failure.why
      : undefined;
  }

  /** Per build current, ramping or the target: from which step on. */
  private readonly activeSince = new Map<string, number>();
  /** The last step a reconcile ran that met no injected fault and read an informer up to date. */
  private lastCleanReconcile = -1;
  /** Per build once current and no longer: from which step on. */
  private readonly notCurrentSince = new Map<string, number>();
  /** When each build was last current, in the model. */
  private readonly lastCurrentAt = new Map<string, number>();

  constructor(context: InvariantContext) {
    this.context = context;
  }

  private fail(invariant: InvariantName, message: string): void {
    this.violation ??= { invariant, step: this.step, message };
  }

  /**
   * The spec the running reconcile decided on (the informer's copy, which may lag what is stored):
   * a change the controller could not have seen yet is not held against it.
   */
  private spec(): Spec | undefined {
    return this.seen ?? this.context.kubernetes.stored?.spec;
  }

  private seen: Spec | undefined;

  /** A reconcile starts, on this copy of the worker deployment. */
  reconciling(spec: Spec | undefined): void {
    this.seen = spec;
  }

  private target(): string | undefined {
    return this.spec()?.workerOptions.unsafeCustomBuildID;
  }

  private forceDeleting(): boolean {
    const stored = this.context.kubernetes.stored;
    return stored?.metadata.annotations?.[FORCE_DELETE_ANNOTATION] === 'true';
  }

  // ---- Told by the world -------------------------------------------------------------------

  /** The user set the template to this build: a failure of it no longer holds. */
  templateSet(build: string): void {
    this.failed.delete(build);
  }

  /** `clean`: no injected fault met, and the informer showed what is stored (a stale one hides a new target). */
  reconciled(clean: boolean): void {
    if (clean) this.lastCleanReconcile = this.step;
  }

  // ---- Told by the models as things happen ---------------------------------------------------

  faulted(): void {}

  described(): void {}

  statusWritten(status: TemporalWorkerDeployment['status']): void {
    const analysis = status?.targetVersion?.analysis;
    const build = status?.targetVersion?.buildID;
    // The analysis the verdict was judged by is the spec's when the failure is first written: a
    // later status that carries the same verdict (same hash) may come from a reconcile that read
    // a newer spec, and says nothing of which analysis failed.
    const known = build === undefined ? undefined : this.failed.get(build);
    // The target's status no longer carries the verdict of the analysis that failed it (another
    // analysis, or none): the controller keeps one verdict per target, so the failure is forgotten,
    // as the README says ("until the analysis itself changes"); back to the old analysis, the build
    // is judged again.
    if (build !== undefined && known?.judgedBy && analysis?.specHash !== known.judgedBy) this.failed.delete(build);
    if (
      analysis?.verdict === 'Failed' &&
      build !== undefined &&
      !(known?.judgedBy && known.judgedBy === analysis.specHash)
    )
      this.failed.set(build, {
        why: `its analysis failed: ${analysis.message}`,
        analysis: canonicalize(this.spec()?.rollout?.analysis ?? {}) ?? '',
        ...(analysis.specHash ? { judgedBy: analysis.specHash } : {}),
      });
    // A person promoted the build and it is current: their word stands after they take it back.
    const promoted = this.spec()?.rollout?.promote;
    if (promoted !== undefined && this.context.temporal.routing().current === promoted) this.failed.delete(promoted);
  }

  gateEnded(workflow: Workflow): void {
    const build = workflow.build;
    // A replay check judges runs to move, not the build: it neither fails nor clears a gate.
    if (!build || !workflow.gate || workflow.type === REPLAY_CHECK_WORKFLOW) return;
    if (workflow.status === 'Completed') {
      // A gate that passed since clears a gate's failure, never an analysis's.
      if (this.failed.get(build)?.gate !== undefined) this.failed.delete(build);
      return;
    }
    // The controller terminating its own run to start it again is no verdict, nor is a run that
    // ends after its build stopped being the target (no rollout of it is judged any more).
    if (workflow.gate.message?.startsWith('terminated: replaced')) return;
    if (this.target() !== build) return;
    if (this.failed.has(build) && this.failed.get(build)?.gate === undefined) return;
    this.failed.set(build, {
      why: `gate ${workflow.type} on ${workflow.gate.queue} ended ${workflow.status}`,
      gate: gateKey(workflow.type, workflow.gate.input),
    });
  }

  routed(before: Routing, after: Routing): void {
    const now = this.context.temporal.clock.now;
    if (before.current && before.current !== after.current) {
      this.lastCurrentAt.set(before.current, now);
      this.notCurrentSince.set(before.current, this.step);
    }
    if (after.current) this.notCurrentSince.delete(after.current);
    const gains: string[] = [];
    if (after.current && after.current !== before.current) gains.push(after.current);
    if (
      after.ramping &&
      after.ramping !== after.current &&
      (after.ramping !== before.ramping || (after.percentage ?? 0) > (before.percentage ?? 0))
    )
      gains.push(after.ramping);
    for (const build of gains) this.gained(build, before, after);
    this.trackActive();
  }

  private gained(build: string, before: Routing, after: Routing): void {
    const spec = this.spec();
    if (!spec) return;
    const rollout: Rollout = spec.rollout ?? spec.cutover ?? { strategy: 'AllAtOnce' };
    const how = after.current === build ? 'current' : `ramping at ${after.percentage ?? 0}%`;
    this.readyPods(build, spec, how);
    const promoted = rollout.promote === build;
    const failure = this.failure(build, after.current === build);
    if (failure && !promoted) this.fail('failed-build-routed', `build ${build} made ${how} although ${failure}`);
    // Made current as a person asked: their word stands after they take the promote back. Made
    // current while no failure of it held (the user took the gate or the analysis out): it earned
    // its place, and the controller forgets the failure too (planner/failed-builds.ts).
    if ((promoted || !failure) && after.current === build) this.failed.delete(build);
    // An abort holds while the template names the build: "until the template names another build".
    if (rollout.abort === build && this.target() === build)
      this.fail('failed-build-routed', `build ${build} made ${how} although spec.rollout.abort names it`);
    const wasCurrentAt = this.lastCurrentAt.get(build);
    const rollback =
      wasCurrentAt !== undefined && this.context.temporal.clock.now - wasCurrentAt <= this.context.rollbackWindowMs;
    if (!promoted && !rollback) this.gates(build, spec, rollout, before, after, how);
  }

  /** Every pool the build runs (every pool of the spec, for the target) wants Pods and has a ready one. */
  private readyPods(build: string, spec: Spec, how: string): void {
    const byPool = this.context.kubernetes.readyByPool(build);
    const pools = spec.pools?.map((p) => p.name) ?? [undefined];
    const name = (pool: string | undefined) => (pool ? `pool ${pool}` : 'its Deployment');
    if (byPool.size === 0)
      return this.fail('routed-without-ready-pods', `build ${build} made ${how} with no Deployment`);
    const wanted = build === this.target() ? pools : pools.filter((p) => byPool.has(p));
    let stale = false;
    for (const pool of wanted) {
      const pods = byPool.get(pool);
      // A Pod lost while the informer lagged (a staleCache fault): the controller routed on what it
      // was shown, a ready Pod; no controller can do better, so it is counted, not a break.
      if (pods && pods.replicas > 0 && pods.ready === 0 && this.cacheShowsReady(build, pool)) {
        this.routedOnStaleView++;
        stale = true;
        continue;
      }
      if (!pods || pods.replicas === 0 || pods.ready === 0)
        return this.fail(
          'routed-without-ready-pods',
          `build ${build} made ${how} while ${name(pool)} has ${pods ? `${pods.ready} ready of ${pods.replicas} replicas` : 'no Deployment'}`,
        );
    }
    if (!stale && ![...byPool.values()].some((p) => p.ready > 0 && p.replicas > 0))
      this.fail('routed-without-ready-pods', `build ${build} made ${how} with no ready Pod`);
  }

  /** The informer's copy of the build's Deployment in `pool` says it wants and has a ready Pod. */
  private cacheShowsReady(build: string, pool: string | undefined): boolean {
    return this.context.kubernetes
      .cachedDeploymentList()
      .some(
        (d) =>
          d.metadata?.labels?.[LABELS.buildId] === build &&
          d.metadata.labels[LABELS.pool] === pool &&
          (d.spec?.replicas ?? 1) > 0 &&
          (d.status?.readyReplicas ?? 0) > 0,
      );
  }

  /** The gates this routing change needed, each passed by the build on every queue of the spec. */
  private gates(build: string, spec: Spec, rollout: Rollout, before: Routing, after: Routing, how: string): void {
    const steps = rollout.strategy === 'Progressive' ? (rollout.steps ?? []) : [];
    const from = before.current === build ? 101 : before.ramping === build ? (before.percentage ?? 0) : -1;
    const to = after.current === build ? 100 : (after.percentage ?? 0);
    const needed: { stage: string; gate: NonNullable<Rollout['gate']> }[] = [];
    if (from < 0 && rollout.gate) needed.push({ stage: 'rollout', gate: rollout.gate });
    steps.forEach((s, i) => {
      if (s.gate && s.rampPercentage > Math.max(from, 0) && s.rampPercentage <= to)
        needed.push({ stage: `step-${i + 1}`, gate: s.gate });
    });
    const queues = [...new Set((spec.pools ?? [{ name: '' }]).map((p) => p.taskQueue ?? DEFAULT_QUEUE))];
    for (const { stage, gate } of needed)
      for (const queue of queues)
        if (!this.passed(build, gate, queue))
          return this.fail(
            'routed-before-gates',
            `build ${build} made ${how} before gate ${stage} (${gate.workflowType}) passed on task queue ${queue}${before.current === undefined && after.current === build ? ' (no build was current: promoted directly)' : ''}`,
          );
  }

  private passed(build: string, gate: NonNullable<Rollout['gate']>, queue: string): boolean {
    const input = canonicalize(gate.input ?? null);
    return this.context.temporal.workflows.some(
      (w) =>
        w.gate !== undefined &&
        w.build === build &&
        w.gate.judges === build &&
        w.status === 'Completed' &&
        w.type === gate.workflowType &&
        w.gate.queue === queue &&
        canonicalize(w.gate.input ?? null) === input,
    );
  }

  scaled(deployment: ModelDeployment, replicas: number): void {
    if (replicas === 0) this.retired(deployment, 'scaled to 0', false);
  }

  deleted(deployment: ModelDeployment, collected: boolean): void {
    this.retired(deployment, collected ? 'garbage-collected with its worker deployment' : 'deleted', collected);
  }

  private retired(deployment: ModelDeployment, how: string, collected: boolean): void {
    const { buildId } = deployment;
    const temporal = this.context.temporal;
    if ((buildId === temporal.current || buildId === temporal.ramping) && !collected && !this.forceDeleting())
      this.fail(
        'routed-build-retired',
        `Deployment ${deployment.name} ${how} while build ${buildId} is ${buildId === temporal.current ? 'current' : 'ramping'}`,
      );
    const pinned = temporal.pinnedRunning(buildId);
    if (pinned.length > 0 && !this.forceDeleting())
      this.fail(
        'pinned-workflows-stranded',
        `Deployment ${deployment.name} ${how} while ${pinned.length} pinned workflow(s) run on build ${buildId} (${pinned
          .slice(0, 3)
          .map((w) => w.id)
          .join(', ')})`,
      );
  }

  private active(build: string): boolean {
    const temporal = this.context.temporal;
    return build === temporal.current || build === temporal.ramping || build === this.target();
  }

  batchStarted(batch: Batch): void {
    if (batch.onto !== undefined && batch.onto !== this.context.temporal.current)
      this.fail(
        'moved-onto-inactive-build',
        `Move batch ${batch.jobId} started onto build ${batch.onto}, which is not current (${this.context.temporal.current ?? 'none'} is)`,
      );
    for (const build of batch.builds)
      if (this.active(build) && !(batch.onto !== undefined && this.abortedTarget(build)))
        this.fail(
          'batch-on-active-build',
          `${batch.operation} batch ${batch.jobId} started on build ${build}, ${this.role(build)}`,
        );
  }

  /**
   * The target of a rollout aborted (by the spec, or a failure the status records), neither current
   * nor ramping: its pinned workflows may move off it (spec.rollout.onAbort, twc move).
   */
  private abortedTarget(build: string): boolean {
    const { temporal, kubernetes } = this.context;
    if (build !== this.target() || build === temporal.current || build === temporal.ramping) return false;
    const failed = (kubernetes.stored?.status?.failedBuilds ?? []).some((f) => f.buildID === build);
    return this.spec()?.rollout?.abort === build || failed;
  }

  batchTouched(batch: Batch, workflow: Workflow): void {
    if (workflow.behavior !== 'Pinned')
      this.fail(
        'batch-on-non-pinned-workflow',
        `${batch.operation} batch ${batch.jobId} acted on ${workflow.behavior} workflow ${workflow.id} (last task on build ${workflow.build ?? 'unversioned'})`,
      );
    else if (batch.onto !== undefined) this.moved(batch, batch.onto, workflow);
    else if (workflow.build === undefined || !batch.builds.includes(workflow.build))
      this.fail(
        'ladder-on-moved-workflow',
        `${batch.operation} batch ${batch.jobId} of build ${batch.builds.join(', ')} acted on workflow ${workflow.id}, which runs on build ${workflow.build ?? 'unversioned'}${workflow.moved ? ` (moved there at ${new Date(workflow.moved.at).toISOString()})` : ''}`,
      );
    for (const build of batch.builds) {
      if (batch.onto !== undefined && this.abortedTarget(build)) continue;
      // Active now, not only at the last step's end: a new template may have just taken the target role away.
      const since = this.active(build) ? this.activeSince.get(build) : undefined;
      // The controller had a clean look since the build became active: it should have stopped the batch.
      if (since !== undefined && since < this.lastCleanReconcile)
        this.fail(
          'batch-on-active-build',
          `${batch.operation} batch ${batch.jobId} still acts on workflow ${workflow.id} of build ${build}, ${this.role(build)} since step ${since}`,
        );
    }
  }

  private moved(batch: Batch, onto: string, workflow: Workflow): void {
    const { builds, temporal } = this.context;
    if (workflow.build !== onto && !builds.replays(onto, workflow.type))
      this.fail(
        'moved-without-replay',
        `Move batch ${batch.jobId} moved workflow ${workflow.id} (${workflow.type}) from build ${workflow.build ?? 'unversioned'} onto build ${onto}, whose code does not replay it`,
      );
    // The controller had a clean look since the build stopped being current: it should have stopped the batch.
    const since = this.notCurrentSince.get(onto);
    if (onto !== temporal.current && since !== undefined && since < this.lastCleanReconcile)
      this.fail(
        'moved-onto-inactive-build',
        `Move batch ${batch.jobId} still moves workflow ${workflow.id} onto build ${onto}, not current since step ${since}`,
      );
  }

  private role(build: string): string {
    const temporal = this.context.temporal;
    if (build === temporal.current) return 'current';
    if (build === temporal.ramping) return 'ramping';
    return 'the target';
  }

  private trackActive(): void {
    const builds = new Set([
      ...this.activeSince.keys(),
      this.context.temporal.current,
      this.context.temporal.ramping,
      this.target(),
    ]);
    for (const build of builds) {
      if (build === undefined) continue;
      if (this.active(build)) {
        if (!this.activeSince.has(build)) this.activeSince.set(build, this.step);
      } else this.activeSince.delete(build);
    }
  }

  // ---- After every step ---------------------------------------------------------------------

  afterStep(quiet: { steps: number; ms: number }): void {
    this.trackActive();
    const seen = new Map<string, string>();
    for (const d of this.context.kubernetes.deployments.values()) {
      const key = `${d.buildId}/${d.pool ?? ''}`;
      const other = seen.get(key);
      if (other)
        this.fail(
          'duplicate-deployment',
          `Deployments ${other} and ${d.name} both run build ${d.buildId}${d.pool ? ` in pool ${d.pool}` : ''}`,
        );
      seen.set(key, d.name);
    }
    if (quiet.steps >= LIVENESS_QUIET_STEPS && quiet.ms >= LIVENESS_QUIET_MS) this.liveness(quiet.ms);
  }

  /** Why the target cannot be expected to go current on its own; undefined when it can. */
  excuse(): string | undefined {
    const stored = this.context.kubernetes.stored;
    if (!stored) return 'the worker deployment is gone';
    if ((stored.metadata as { deletionTimestamp?: unknown }).deletionTimestamp) return 'it is being deleted';
    const spec = stored.spec;
    const target = this.target() ?? '';
    const rollout: Rollout = spec.rollout ?? spec.cutover ?? { strategy: 'AllAtOnce' };
    const builds = this.context.builds;
    if (rollout.strategy === 'Manual' && rollout.promote !== target) return 'Manual';
    if (rollout.paused) return 'paused';
    if (rollout.abort === target) return 'aborted';
    if (builds.crashes(target)) return 'its Pods crash';
    const failure = this.failure(target, true);
    if (failure) return failure;
    const gates = [
      rollout.gate,
      ...(rollout.strategy === 'Progressive' ? (rollout.steps ?? []).map((s) => s.gate) : []),
    ];
    for (const gate of gates)
      if (gate && builds.gate(target, gate.workflowType).outcome !== 'pass')
        return `its ${gate.workflowType} gate does not pass`;
    const analysis = rollout.analysis;
    if (analysis) {
      if (builds.failureRate(target) > 0) return 'its workflows fail, for its analysis to see';
      if ((analysis.minSamples ?? 10) > 0 && analysis.tooFewSamples !== 'Pass') return 'its analysis may lack samples';
    }
    return undefined;
  }

  /** Looks at which liveness held with nothing to excuse the target: the check is not vacuous. */
  livenessHeld = 0;
  /** Routings to a build whose Pod was lost while the informer still showed it ready (see readyPods). */
  routedOnStaleView = 0;

  private liveness(quietMs: number): void {
    const target = this.target();
    if (!target || this.excuse() !== undefined) return;
    if (this.context.temporal.current === target) {
      this.livenessHeld++;
      return;
    }
    const minutes = Math.round(quietMs / 60_000);
    this.fail(
      'liveness',
      `build ${target} is not current after ${minutes} minutes without faults or changes (current: ${this.context.temporal.current ?? 'none'}${this.context.temporal.ramping ? `, ramping: ${this.context.temporal.ramping} at ${this.context.temporal.percentage}%` : ''})`,
    );
  }
}
