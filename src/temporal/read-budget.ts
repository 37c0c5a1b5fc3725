// Keeps the controller's reads of each Temporal namespace under a budget per second, however many
// worker deployments read it: one token bucket per (frontend address, Temporal namespace), taken
// by every read a reconcile makes. The server limits a namespace's calls as a whole (1.29:
// `frontend.namespaceRPS`; later servers also `frontend.globalNamespaceWorkerDeploymentReadRPS`,
// 50 by default), and workers, autoscalers and people share that limit with the controller.
import { realTimers, type Timers } from '../runtime/timers.ts';
import { TokenBucket } from '../runtime/token-bucket.ts';
import type { WorkflowService } from './protocol.ts';
import { aroundCalls } from './service-calls.ts';

/** The reads of Worker Deployment state the reconciler makes, and the batch starts of the pinned-workflow ladder: each takes a token. */
export const BUDGETED_READS: ReadonlySet<string> = new Set([
  'describeWorkerDeployment',
  'describeWorkerDeploymentVersion',
  'describeTaskQueue',
  'describeWorkflowExecution',
  'describeNamespace',
  'countWorkflowExecutions',
  'listWorkflowExecutions',
  'describeBatchOperation',
  'startBatchOperation',
]);

/** Tokens taken ahead for a reconcile (see pollTurn): its first budgeted reads spend them instead of taking more. */
export interface ReadCredit {
  tokens: number;
}

export interface ReadBudgetOptions {
  /** Reads per second per (frontend, Temporal namespace); a second's worth may be taken at once. */
  perSecond: number;
  timers?: Timers;
  random?: () => number;
}

export class TemporalReadBudget {
  private readonly perSecond: number;
  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly backlogShares = new Map<string, TokenBucket>();

  constructor(options: ReadBudgetOptions) {
    this.perSecond = options.perSecond;
    this.timers = options.timers ?? realTimers;
    this.random = options.random ?? Math.random;
  }

  /**
   * The service, whose budgeted reads wait for a token of their namespace at `address` (or spend
   * one of `credit`'s, taken ahead of them); `waited` hears how long each waited.
   */
  paced(
    service: WorkflowService,
    address: string,
    waited?: (ms: number) => void,
    credit?: ReadCredit,
  ): WorkflowService {
    return aroundCalls<{ namespace?: string | null }>(
      service,
      (method) => BUDGETED_READS.has(method),
      async (request, call) => {
        const prepaid = credit !== undefined && credit.tokens > 0;
        if (prepaid) credit.tokens--;
        const ms = prepaid ? 0 : await this.turn(address, request.namespace ?? '');
        waited?.(ms);
        return call(request);
      },
    );
  }

  /**
   * How long a reconcile that only polls should wait before it reads: 0 when a token is there,
   * else until one is, plus a random part of `spreadMs` so that the deferred polls come back
   * spread out. Polls never borrow, so a reconcile brought by an event reads first.
   */
  pollDelay(address: string, namespace: string, spreadMs: number): number {
    const wait = this.bucket(address, namespace).msUntilAvailable();
    return wait === 0 ? 0 : wait + this.random() * spreadMs;
  }

  /**
   * pollDelay's answer, but when a token is there it is taken now, for the reconcile's first read
   * (given as its credit to `paced`): reconciles that run side by side cannot all see the same free
   * token and go, and borrow ahead of the changes.
   */
  pollTurn(address: string, namespace: string, spreadMs: number): number | ReadCredit {
    const wait = this.pollDelay(address, namespace, spreadMs);
    if (wait > 0) return wait;
    return this.bucket(address, namespace).tryTake() ? { tokens: 1 } : this.pollDelay(address, namespace, spreadMs);
  }

  /**
   * Whether a backlog read may go now: the backlog metrics get at most half the budget, as a
   * bucket of their own (never borrowing), and their reads then take their turn of the whole
   * budget through `paced` like any other. Polls alone would leave them nothing: they come back
   * whenever a token is free.
   */
  mayReadBacklog(address: string, namespace: string): boolean {
    const key = keyOf(address, namespace);
    let share = this.backlogShares.get(key);
    if (!share) {
      const perSecond = this.perSecond / 2;
      share = new TokenBucket({ perSecond, burst: Math.max(1, perSecond) }, this.timers);
      this.backlogShares.set(key, share);
    }
    return share.tryTake();
  }

  /** Resolves once this read's token is there, with how long that took. */
  private async turn(address: string, namespace: string): Promise<number> {
    const wait = this.bucket(address, namespace).take();
    if (wait > 0) await new Promise<void>((resolve) => this.timers.setTimeout(resolve, wait));
    return wait;
  }

  private bucket(address: string, namespace: string): TokenBucket {
    const key = keyOf(address, namespace);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket({ perSecond: this.perSecond, burst: Math.max(1, this.perSecond) }, this.timers);
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}

function keyOf(address: string, namespace: string): string {
  return `${address}\0${namespace}`;
}
