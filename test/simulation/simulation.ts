// One simulated run: the Kubernetes and Temporal models, the controller's real reconcile driven
// through its adapter interfaces, and the checks, advanced step by step. A step lets time pass,
// applies what a user or a fault does (written down, so a replay repeats it), lets the models move
// on (Pods, workflows, batches, drainage), runs one reconcile (and again at once when it asks), and
// checks the promise. Everything random comes from the seed: the steps from one stream, what the
// models do from another, what each build does from the build's ID.
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { ReconcilerDependencies } from '../../src/controller/dependencies.ts';
import { analysisMetricsReader } from '../../src/controller/analysis-metrics.ts';
import { LastDescribed } from '../../src/controller/last-described.ts';
import { reconcile } from '../../src/controller/reconciler.ts';
import { Backoff, RetrySchedule } from '../../src/runtime/backoff.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { OwnDeploymentWrites } from '../../src/k8s/own-deployment-writes.ts';
import { OwnWrites } from '../../src/runtime/own-writes.ts';
import { config, NAMESPACE, workerDeployment } from '../support/recorded-world.ts';
import { Builds } from './builds.ts';
import { BETWEEN_RUNS_ARMED_STEPS, type Fault, ONE_SHOT_STEPS, randomFault, TemporalFaultState } from './faults.ts';
import { Invariants, type Violation } from './invariants.ts';
import { type Clock, KubernetesModel } from './kubernetes-model.ts';
import { Prng } from './prng.ts';
import { TemporalModel } from './temporal-model.ts';
import { applyToObject, randomUserAction, type UserAction } from './user-actions.ts';

/** The one Prometheus endpoint the simulated controller allows, which spec.rollout.analysis.prometheus names. */
const PROMETHEUS = { name: 'main', url: 'http://prometheus.sim', tenantAuth: false };

export interface Step {
  /** Time that passes before the step's event. */
  advanceMs: number;
  event?: UserAction | Fault;
}

export interface Outcome {
  seed: number;
  steps: Step[];
  violation?: Violation;
  reconciles: number;
  /** Steps at which liveness was judged, and held. */
  livenessHeld: number;
  routedOnStaleView: number;
  /** The calls of the step that failed, for the replay. */
  lastCalls?: string[];
}

const NAME = 'orders';
const START = Date.parse('2026-11-23T12:00:00Z');
const EXTRA_RECONCILES = 2;

/** The controller's process: whatever it keeps between reconciles, lost when it restarts. */
interface Process {
  ownWrites: OwnWrites<TemporalWorkerDeployment>;
  deps: ReconcilerDependencies;
}

export class Simulation {
  readonly seed: number;
  readonly clock: Clock = { now: START };
  private readonly rng: Prng;
  readonly builds: Builds;
  readonly kubernetes: KubernetesModel;
  readonly temporal: TemporalModel;
  readonly invariants: Invariants;
  private readonly temporalFaults = new TemporalFaultState();
  private process: Process;
  private staleSteps = 0;
  /** A user's change to make while the next reconcile reads Temporal. */
  private during: UserAction | undefined;
  /** The running reconciles waiting to hear of a spec change (ReconcilerDependencies.specChange). */
  private readonly specListeners = new Set<() => void>();
  private foreignManagerSteps = 0;
  /** Builds the user made, oldest first. */
  readonly userBuilds = ['v1'];
  reconciles = 0;
  /** Per kind of user action: how often it was applied, refused by validation, or changed nothing. */
  readonly userActions: Record<string, Record<'applied' | 'refused' | 'unchanged', number>> = {};
  private faultsFired = 0;
  private stepIndex = -1;
  private quietSteps = 0;
  private quietMs = 0;

  constructor(seed: number) {
    this.seed = seed;
    this.rng = new Prng(seed ^ 0x5eed);
    this.builds = new Builds(seed);
    const initial = workerDeployment(
      { buildId: 'v1', replicas: 1, sunset: { scaledownDelay: '5m', deleteDelay: '5m' } },
      { finalizers: [], resourceVersion: '1', generation: 1 },
    );
    const holder: { invariants?: Invariants } = {};
    const hooks = {
      scaled: (...a: Parameters<Invariants['scaled']>) => holder.invariants?.scaled(...a),
      deleted: (...a: Parameters<Invariants['deleted']>) => holder.invariants?.deleted(...a),
      statusWritten: (...a: Parameters<Invariants['statusWritten']>) => holder.invariants?.statusWritten(...a),
      faulted: () => this.faultsFired++,
    };
    this.kubernetes = new KubernetesModel(this.clock, this.rng, this.builds, hooks, initial);
    this.temporalFaults.onFault = () => this.faultsFired++;
    this.temporal = new TemporalModel({
      calls: this.kubernetes.calls,
      clock: this.clock,
      rng: this.rng,
      builds: this.builds,
      workers: this.kubernetes,
      hooks: {
        routed: (...a) => holder.invariants?.routed(...a),
        batchStarted: (...a) => holder.invariants?.batchStarted(...a),
        batchTouched: (...a) => holder.invariants?.batchTouched(...a),
        gateEnded: (...a) => holder.invariants?.gateEnded(...a),
        faulted: () => this.faultsFired++,
        described: () => this.changeDuringReconcile(),
      },
      faults: this.temporalFaults,
      temporalName: `${NAMESPACE}/${NAME}`,
      reportsLastCurrentTime: new Prng(seed).chance(0.5),
    });
    this.temporal.candidateBuilds = () => new Set([...this.kubernetes.deployments.values()].map((d) => d.buildId));
    this.invariants = new Invariants({
      kubernetes: this.kubernetes,
      temporal: this.temporal,
      builds: this.builds,
      rollbackWindowMs: config.rollbackWindowMs,
    });
    holder.invariants = this.invariants;
    this.process = this.start();
  }

  /** A controller process: new memory, as after a restart. */
  private start(): Process {
    const ownWrites = new OwnWrites<TemporalWorkerDeployment>();
    const kubernetes = this.kubernetes;
    const deploymentWrites = new OwnDeploymentWrites(() => kubernetes.cachedDeploymentList());
    const cluster = deploymentWrites.noting(kubernetes.client());
    const client = this.temporal.client(config.identity);
    const deps: ReconcilerDependencies = {
      ...config,
      cluster,
      workerDeployment: (namespace, name) =>
        namespace === NAMESPACE && name === NAME ? ownWrites.newest(kubernetes.cached) : undefined,
      workerDeployments: () => (kubernetes.cached ? [kubernetes.cached] : []),
      connection: (_namespace, name) =>
        name === kubernetes.connection.metadata.name ? kubernetes.connection : undefined,
      watchesClusterConnections: false,
      ownedResources: () => [],
      copyRetries: new RetrySchedule<string>(new Backoff({ baseMs: 5_000, maxMs: 300_000 })),
      deployments: (namespace) => deploymentWrites.newest(namespace),
      pods: () => [],
      secret: () => Promise.resolve(undefined),
      configMap: () => Promise.resolve(undefined),
      // Async: a fault thrown here reaches the reconciler as a rejection, as a failed connection does.
      temporal: async () => {
        this.temporalFaults.connect();
        return Promise.resolve(client);
      },
      log: silentLogger,
      setPinnedWorkflows: () => {},
      setBuildsWithoutPollers: () => {},
      pollersSeen: () => undefined,
      countAnalysisVerdict: () => {},
      analysisMetrics: analysisMetricsReader({
        endpoints: [PROMETHEUS],
        secret: () => Promise.resolve(undefined),
        query: ({ query }) => this.temporal.prometheus()(query),
      }),
      wroteStatus: (replaced, stored) => ownWrites.wrote(replaced, stored),
      recordEvent: () => Promise.resolve(),
      now: () => new Date(this.clock.now),
      temporalBackoff: new Backoff({ baseMs: config.pollIntervalMs, maxMs: 300_000 }),
      lastDescribed: new LastDescribed(),
      specChange: () => {
        let listener = (): void => {};
        const changed = new Promise<void>((resolve) => (listener = resolve));
        this.specListeners.add(listener);
        return { changed, stop: () => this.specListeners.delete(listener) };
      },
    };
    return { ownWrites, deps };
  }

  /** The next step, drawn from `rng` and what the world is now; the last quarter of a run is quiet. */
  nextStep(rng: Prng, index: number, count: number): Step {
    const quietFrom = Math.floor(count * 0.75);
    // The users' last word before they leave the rollout alone, so that liveness has a target to judge.
    if (index === quietFrom) return { advanceMs: rng.int(120, 240) * 1000, event: { user: 'settle' } };
    if (index > quietFrom) return { advanceMs: rng.int(120, 240) * 1000 };
    const size = rng.weighted({ small: 6, medium: 3, large: 1 });
    const advanceMs =
      size === 'small' ? rng.int(5, 30) * 1000 : size === 'medium' ? rng.int(30, 120) * 1000 : rng.int(120, 600) * 1000;
    const what = rng.weighted({ none: 55, user: 28, during: 2, fault: 15 });
    const stored = this.kubernetes.stored;
    if ((what === 'user' || what === 'during') && stored) {
      const deleting = Boolean((stored.metadata as { deletionTimestamp?: unknown }).deletionTimestamp);
      const action = randomUserAction(rng, { spec: stored.spec, builds: this.userBuilds, deleting });
      return { advanceMs, event: what === 'user' ? action : { fault: 'duringReconcile', action } };
    }
    if (what === 'fault') return { advanceMs, event: randomFault(rng) };
    return { advanceMs };
  }

  get done(): boolean {
    return this.invariants.violation !== undefined || this.kubernetes.stored === undefined;
  }

  async step(step: Step): Promise<void> {
    this.stepIndex++;
    this.invariants.step = this.stepIndex;
    this.clock.now += step.advanceMs;
    this.temporalFaults.tick();
    this.kubernetes.tickFaults();
    if (this.staleSteps > 0) this.staleSteps--;
    if (this.foreignManagerSteps > 0 && --this.foreignManagerSteps === 0) {
      this.temporal.manager = undefined;
      this.temporal.token++;
    }
    if (step.event) this.apply(step.event);
    const disturbed =
      step.event !== undefined ||
      this.temporalFaults.active(this.clock.now) ||
      this.staleSteps > 0 ||
      this.foreignManagerSteps > 0;
    this.quietSteps = disturbed ? 0 : this.quietSteps + 1;
    this.quietMs = disturbed ? 0 : this.quietMs + step.advanceMs;
    this.kubernetes.progress();
    this.temporal.progress(step.advanceMs);
    if (this.staleSteps === 0) this.informerDelivers(true);
    this.kubernetes.calls.length = 0;
    for (let i = 0; i <= EXTRA_RECONCILES && !this.done; i++) {
      const fired = this.faultsFired;
      this.kubernetes.calls.push(
        `reconcile ${i + 1} (cache at resourceVersion ${this.kubernetes.cached?.metadata.resourceVersion ?? '-'})`,
      );
      this.invariants.reconciling(this.kubernetes.cached?.spec);
      const result = await reconcile(this.process.deps, NAMESPACE, NAME);
      this.invariants.reconciling(undefined);
      this.reconciles++;
      this.invariants.reconciled(this.faultsFired === fired && this.staleSteps === 0);
      if (result?.requeueAfterMs !== 0) break;
      // Decided again at once: on what the informer holds by then.
      if (this.staleSteps === 0) this.informerDelivers(true);
    }
    this.invariants.afterStep({ steps: this.quietSteps, ms: this.quietMs });
  }

  /** The informer delivers what is stored, and the process sees it as caches.ts has it see it. */
  private informerDelivers(deployments: boolean): void {
    this.kubernetes.refreshCache(deployments);
    if (this.kubernetes.cached) this.process.ownWrites.seen(this.kubernetes.cached);
  }

  /** The calls the controller made in the last step, in order. */
  lastCalls(): string[] {
    return [...this.kubernetes.calls];
  }

  private apply(event: UserAction | Fault): void {
    if ('user' in event) return this.applyUser(event);
    switch (event.fault) {
      case 'outage':
        this.temporalFaults.outageSteps = event.steps;
        this.temporalFaults.outageConnect = event.connect;
        return;
      case 'rateLimit':
        this.temporalFaults.rateLimitSteps = event.steps;
        this.temporalFaults.rateLimitBusy = event.busy ?? false;
        return;
      case 'callFails':
        this.temporalFaults.failOnce(event.method, event.applied);
        return;
      case 'statusConflict':
        this.kubernetes.faults.statusConflict = ONE_SHOT_STEPS;
        return;
      case 'kubernetesWriteFails':
        this.kubernetes.faults.failNext.set(event.method, ONE_SHOT_STEPS);
        return;
      case 'staleCache':
        this.staleSteps = event.steps;
        return;
      case 'podCrash': {
        const names = [...this.kubernetes.deployments.keys()];
        if (names.length > 0) this.kubernetes.crash(names[event.pick % names.length] ?? '');
        return;
      }
      case 'foreignManager':
        this.temporal.manager = 'someone-else';
        this.temporal.token++;
        this.foreignManagerSteps = event.steps;
        return;
      case 'duringReconcile':
        this.during = event.action;
        return;
      case 'meddle':
        this.temporalFaults.meddleSteps = ONE_SHOT_STEPS;
        return;
      case 'betweenRuns':
        this.temporalFaults.betweenRunsArmed = { seconds: event.seconds, steps: BETWEEN_RUNS_ARMED_STEPS };
        return;
      case 'restart':
        // A new process lists from the API server: its informers start from what is stored.
        this.process = this.start();
        this.staleSteps = 0;
        this.informerDelivers(true);
        return;
    }
  }

  /** The change armed by a duringReconcile fault lands, and the informer tells whoever waits. */
  private changeDuringReconcile(): void {
    const action = this.during;
    if (!action) return;
    this.during = undefined;
    this.applyUser(action);
    if (this.staleSteps === 0) this.informerDelivers(false);
    // Told of the change, the reconcile must act on no older spec from here on: judged by the new one.
    this.invariants.reconciling(this.kubernetes.cached?.spec);
    for (const listener of this.specListeners) listener();
  }

  private applyUser(action: UserAction): void {
    if (action.user === 'connection') {
      const connection = this.kubernetes.connection;
      this.kubernetes.connection = { ...connection, spec: { ...connection.spec, hostPort: action.hostPort } };
      return;
    }
    const stored = this.kubernetes.stored;
    if (!stored) return;
    const { result, object, specChanged } = applyToObject(action, stored, new Date(this.clock.now));
    const tally = (this.userActions[action.user] ??= { applied: 0, refused: 0, unchanged: 0 });
    tally[result]++;
    if (result !== 'applied') return;
    this.kubernetes.update(() => object, specChanged);
    if (action.user === 'template') {
      if (!this.userBuilds.includes(action.build)) this.userBuilds.push(action.build);
      this.invariants.templateSet(action.build);
    }
  }
}

/** Runs `count` steps drawn from the seed. */
export async function runSeed(seed: number, count: number): Promise<Outcome> {
  const simulation = new Simulation(seed);
  const script = new Prng(seed);
  const steps: Step[] = [];
  for (let i = 0; i < count && !simulation.done; i++) {
    const step = simulation.nextStep(script, i, count);
    steps.push(step);
    await simulation.step(step);
  }
  return outcome(simulation, steps);
}

/** Runs exactly these steps (a replay, or a shrinker's candidate). */
export async function runSteps(seed: number, steps: readonly Step[]): Promise<Outcome> {
  const simulation = new Simulation(seed);
  const ran: Step[] = [];
  for (const step of steps) {
    if (simulation.done) break;
    ran.push(step);
    await simulation.step(step);
  }
  return outcome(simulation, ran);
}

function outcome(simulation: Simulation, steps: Step[]): Outcome {
  const violation = simulation.invariants.violation;
  return {
    seed: simulation.seed,
    steps,
    reconciles: simulation.reconciles,
    livenessHeld: simulation.invariants.livenessHeld,
    routedOnStaleView: simulation.invariants.routedOnStaleView,
    ...(violation ? { violation, lastCalls: simulation.lastCalls() } : {}),
  };
}
