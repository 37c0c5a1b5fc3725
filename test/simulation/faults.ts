// Faults, drawn at random and written down as plain data like the users' actions: Temporal out of
// reach or over its rate limit for a while, one call failing before or after it took effect (its
// answer lost), a status write refused with 409, a Kubernetes write failing, the informer lagging,
// Pods crashing, another manager holding the Worker Deployment, and the controller restarting,
// which loses everything it keeps in memory. Errors are the ones the real adapters throw, so the
// reconciler reads them as it would in production (src/temporal/call-failures.ts).
import { GrpcStatus, TemporalCallError } from '../../src/temporal/call-status.ts';
import { TemporalConnectError } from '../../src/temporal/client-pool.ts';
import { NOT_FOUND_GRACE_MS } from '../../src/domain/temporal-not-found.ts';
import type { Prng } from './prng.ts';
import type { UserAction } from './user-actions.ts';
import { exhausted } from './temporal-errors.ts';
import type { TemporalFaults } from './temporal-model.ts';

export type Fault =
  | { fault: 'outage'; steps: number; connect: boolean }
  /** Over the namespace's rate limit, or (busy) the Worker Deployment's own workflow cannot take a query. */
  | { fault: 'rateLimit'; steps: number; busy?: boolean }
  | { fault: 'callFails'; method: string; applied: boolean }
  | { fault: 'statusConflict' }
  | { fault: 'kubernetesWriteFails'; method: string }
  | { fault: 'staleCache'; steps: number }
  | { fault: 'podCrash'; pick: number }
  | { fault: 'foreignManager'; steps: number }
  /** Another client changes the Worker Deployment between the controller's read and its write. */
  | { fault: 'meddle' }
  /**
   * The next change Temporal makes (within some steps) leaves the Worker Deployment answering not
   * found for some seconds, as Temporal's does while its workflow continues as new after each
   * change; shorter than the controller's NOT_FOUND_GRACE_MS, which is the bet that it is a moment.
   */
  | { fault: 'betweenRuns'; seconds: number }
  /** A user's change lands while a reconcile reads Temporal: the informer tells the reconcile, which gives way. */
  | { fault: 'duringReconcile'; action: UserAction }
  | { fault: 'restart' };

const TEMPORAL_METHODS = [
  'describe',
  'changeRouting',
  'startGate',
  'readGate',
  'countRunningWorkflows',
  'countOutcomes',
  'prometheusQuery',
  'startBatch',
  'describeBatch',
  'stopBatch',
  'deleteVersionRecord',
  'taskQueues',
];
/** A one-shot fault whose call does not come within this many steps is disarmed: faults stop. */
export const ONE_SHOT_STEPS = 3;
/** A change armed to be followed by not-found answers is looked for this many steps: changes come less often than calls. */
export const BETWEEN_RUNS_ARMED_STEPS = 12;
const WRITES_WITH_EFFECT = ['changeRouting', 'startGate', 'startBatch', 'stopBatch', 'deleteVersionRecord'];
const KUBERNETES_WRITES = [
  'createDeployment',
  'scaleDeployment',
  'deleteDeployment',
  'replaceDeployment',
  'setFinalizers',
];

export function randomFault(rng: Prng): Fault {
  const kind = rng.weighted({
    outage: 3,
    rateLimit: 2,
    callFails: 6,
    statusConflict: 3,
    kubernetesWriteFails: 3,
    staleCache: 2,
    podCrash: 3,
    foreignManager: 1,
    meddle: 2,
    betweenRuns: 2,
    restart: 3,
  });
  switch (kind) {
    case 'outage':
      return { fault: 'outage', steps: rng.int(1, 6), connect: rng.chance(0.3) };
    case 'rateLimit':
      return { fault: 'rateLimit', steps: rng.int(1, 4), ...(rng.chance(0.3) ? { busy: true } : {}) };
    case 'callFails': {
      const method = rng.pick(TEMPORAL_METHODS);
      return { fault: 'callFails', method, applied: WRITES_WITH_EFFECT.includes(method) && rng.chance(0.5) };
    }
    case 'kubernetesWriteFails':
      return { fault: 'kubernetesWriteFails', method: rng.pick(KUBERNETES_WRITES) };
    case 'staleCache':
      return { fault: 'staleCache', steps: rng.int(1, 3) };
    case 'podCrash':
      return { fault: 'podCrash', pick: rng.int(0, 1000) };
    case 'foreignManager':
      return { fault: 'foreignManager', steps: rng.int(1, 5) };
    case 'betweenRuns':
      return { fault: 'betweenRuns', seconds: rng.int(1, NOT_FOUND_GRACE_MS / 1000 - 1) };
    default:
      return { fault: kind };
  }
}

/** The faults armed now, as Temporal's calls meet them. */
export class TemporalFaultState implements TemporalFaults {
  outageSteps = 0;
  outageConnect = false;
  rateLimitSteps = 0;
  rateLimitBusy = false;
  /** Steps during which the next description is followed by someone else's change. */
  meddleSteps = 0;
  /** Until when (the simulation's clock) the Worker Deployment answers not found. */
  betweenRunsUntil = 0;
  /** The seconds the next change leaves it answering not found, and the steps left before that is disarmed. */
  betweenRunsArmed: { seconds: number; steps: number } | undefined;
  /** Per method: whether it fails after taking effect, and the steps left before the fault is disarmed unfired. */
  readonly failNext = new Map<string, { applied: boolean; steps: number }>();
  /** Told of every fault that fired. */
  onFault: () => void = () => {};

  /** At a step's start: faults that last some steps run down. */
  tick(): void {
    if (this.outageSteps > 0) this.outageSteps--;
    if (this.rateLimitSteps > 0) this.rateLimitSteps--;
    if (this.meddleSteps > 0) this.meddleSteps--;
    for (const [method, armed] of this.failNext) if (--armed.steps <= 0) this.failNext.delete(method);
    if (this.betweenRunsArmed && --this.betweenRunsArmed.steps <= 0) this.betweenRunsArmed = undefined;
  }

  /** Arms a one-shot failure of a method's next call, for a few steps. */
  failOnce(method: string, applied: boolean): void {
    this.failNext.set(method, { applied, steps: ONE_SHOT_STEPS });
  }

  active(now: number): boolean {
    return (
      this.outageSteps > 0 ||
      this.rateLimitSteps > 0 ||
      this.meddleSteps > 0 ||
      this.betweenRunsUntil > now ||
      this.betweenRunsArmed !== undefined ||
      this.failNext.size > 0
    );
  }

  /** Before a client is handed out: a connection that cannot be made. */
  connect(): void {
    if (this.outageSteps > 0 && this.outageConnect) {
      this.onFault();
      throw new TemporalConnectError('cannot connect to temporal:7233: simulated outage');
    }
  }

  meddles(): boolean {
    if (this.meddleSteps === 0) return false;
    this.meddleSteps = 0;
    this.onFault();
    return true;
  }

  /** Temporal changed the Worker Deployment at `now`. */
  changed(now: number): void {
    if (!this.betweenRunsArmed) return;
    this.betweenRunsUntil = now + this.betweenRunsArmed.seconds * 1000;
    this.betweenRunsArmed = undefined;
  }

  betweenRuns(now: number): boolean {
    if (this.betweenRunsUntil <= now) return false;
    this.onFault();
    return true;
  }

  check(method: string, applied: boolean): void {
    if (!applied) {
      if (this.outageSteps > 0) {
        this.onFault();
        throw new TemporalCallError(method, { code: GrpcStatus.UNAVAILABLE, details: 'simulated outage' });
      }
      if (this.rateLimitSteps > 0) {
        this.onFault();
        throw exhausted(method, this.rateLimitBusy ? 'busy' : 'rps');
      }
    }
    const armed = this.failNext.get(method);
    if (armed === undefined || armed.applied !== applied) return;
    this.failNext.delete(method);
    this.onFault();
    throw new TemporalCallError(method, {
      code: GrpcStatus.UNAVAILABLE,
      details: applied ? 'simulated: the answer was lost' : 'simulated: the call failed',
    });
  }
}
