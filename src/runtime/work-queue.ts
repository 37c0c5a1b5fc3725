// The queue between events and reconciles, with client-go's workqueue semantics: a key waiting
// is queued once however often it is added; a key is never reconciled twice at once (an add
// during its reconcile runs it again afterwards); a failed key is retried after the longer of
// its own exponential backoff and an overall token bucket, so an error storm stays bounded.
// Keys wait in three lanes (as in controller-runtime's priority queue): news of a rollout's
// progress (its build's Deployment became available, its workers polled) is top, so that a
// rollout under way finishes before the next one starts taking turns; any other event, a retry or
// a reconcile that asks to run again at once is high; a timed requeue is low unless its reconcile
// says otherwise, so a change does not wait behind every key that only comes to be looked at.
// A reconcile has a timeout: one that hangs gives its slot back and its key is retried, so a
// Temporal frontend that never answers does not stop every other key.
import { Backoff } from './backoff.ts';
import { realTimers, type Timers } from './timers.ts';
import { TokenBucket } from './token-bucket.ts';

/** Which lane a waiting key is in: top ones are taken first, then high ones. */
export type Priority = 'top' | 'high' | 'low';

const RANK: Record<Priority, number> = { top: 2, high: 1, low: 0 };

/** The higher of two lanes. */
const higher = (a: Priority, b: Priority): Priority => (RANK[a] >= RANK[b] ? a : b);

/**
 * What a reconcile asks for: run again after this long (a success, so backoff is reset), in the
 * given lane (by default low, but high for 0: again at once is unfinished work). High stays top
 * for a reconcile taken from the top lane: a rollout's progress goes on first (a build available
 * that Temporal is about to list, looked at again in seconds).
 */
export type ReconcileResult = { requeueAfterMs?: number; priority?: Priority } | undefined;

/**
 * Of five keys taken while low ones and others wait, one is low: a steady flow of changes slows
 * the routine looks, it does not stop them. Top keys go before high ones without such a share:
 * each is a Deployment's or a build's own news, which a reconcile of its key consumes.
 */
const CHANGES_IN_A_ROW = 4;

/** The reason a reconcile's signal aborts with when it runs past its timeout. */
export class ReconcileTimeoutError extends Error {
  override name = 'ReconcileTimeoutError';

  constructor(key: unknown, timeoutMs: number) {
    super(`the reconcile of ${String(key)} ran past its timeout of ${timeoutMs / 1000}s`);
  }
}

/** How a reconcile ended, in controller-runtime's words. */
export type ReconcileOutcome = 'success' | 'requeue_after' | 'error';

/** What the queue reports as it works, for metrics. Depth counts waiting keys, active running reconciles. */
export interface WorkQueueObserver {
  /** A key started waiting; adds of a key already waiting are not reported. */
  added(depth: number): void;
  /** `priority`: the lane the key waited in. */
  started(depth: number, active: number, waitedMs: number, priority: Priority): void;
  finished(active: number, outcome: ReconcileOutcome, durationMs: number): void;
  /** A failed key was scheduled to run again. */
  retried(): void;
  /** A reconcile ran past its timeout (it is then also finished, as an error). */
  timedOut(): void;
}

const unobserved: WorkQueueObserver = {
  added: () => {},
  started: () => {},
  finished: () => {},
  retried: () => {},
  timedOut: () => {},
};

export interface WorkQueueOptions<K> {
  /**
   * `priority`: the lane the key was taken from; `signal` aborts when the reconcile runs past its
   * timeout; `waitedMs`: how long the key waited to run.
   */
  reconcile: (key: K, priority: Priority, signal: AbortSignal, waitedMs: number) => Promise<ReconcileResult>;
  /** Reconciles running at once, of different keys. */
  concurrency: number;
  /**
   * How long a reconcile may run; default: as long as it takes. Past it, its signal aborts, it
   * fails (retried with backoff) and its slot goes to the next key at once; the key itself runs
   * again only once that reconcile has stopped, so a key is still never reconciled twice at once.
   */
  timeoutMs?: number;
  /** Called with each failure before its retry is scheduled. */
  onError?: (key: K, error: unknown, retryInMs: number) => void;
  /** Per-key backoff: base * 2^failures, capped (client-go: 5ms, 1000s). */
  backoff?: { baseMs: number; maxMs: number };
  /** Retries of all keys together (client-go: 10 per second, bursts of 100). */
  retryBucket?: { perSecond: number; burst: number };
  timers?: Timers;
  observer?: WorkQueueObserver;
}

export class WorkQueue<K> {
  private readonly lanes: Record<Priority, K[]> = { top: [], high: [], low: [] };
  /** The lane of each queued key. */
  private readonly queued = new Map<K, Priority>();
  private readonly processing = new Set<K>();
  /** Past their timeout and not yet stopped: not counted against the concurrency, but not run again either. */
  private readonly abandoned = new Set<K>();
  /** Added while processing, with the lane: to queue again when that reconcile ends. */
  private readonly dirty = new Map<K, Priority>();
  /** When each waiting key (queued or dirty) started waiting. */
  private readonly waitingSince = new Map<K, number>();
  private readonly delayed = new Map<K, { at: number; priority: Priority; handle: unknown }>();
  /** Top and high keys taken since the last low one while low ones waited. */
  private changesInARow = 0;
  private readonly options: Required<Omit<WorkQueueOptions<K>, 'timeoutMs'>> & Pick<WorkQueueOptions<K>, 'timeoutMs'>;
  private readonly backoff: Backoff<K>;
  private readonly retryTokens: TokenBucket;
  private stopping = false;
  private readonly idle = new Set<() => void>();

  constructor(options: WorkQueueOptions<K>) {
    this.options = {
      onError: () => {},
      backoff: { baseMs: 5, maxMs: 1_000_000 },
      retryBucket: { perSecond: 10, burst: 100 },
      timers: realTimers,
      observer: unobserved,
      ...options,
    };
    this.backoff = new Backoff(this.options.backoff);
    this.retryTokens = new TokenBucket(this.options.retryBucket, this.options.timers);
  }

  /** Queues the key now, unless it is already waiting; a key added in a higher lane than it waits in moves there. */
  add(key: K, priority: Priority = 'high'): void {
    if (this.stopping) return;
    const pending = this.delayed.get(key);
    this.cancelDelayed(key);
    if (pending) priority = higher(priority, pending.priority);
    const waiting = this.queued.get(key) ?? this.dirty.get(key);
    if (waiting !== undefined) {
      if (RANK[priority] > RANK[waiting]) this.raise(key, waiting, priority);
      return;
    }
    this.waitingSince.set(key, this.options.timers.now());
    if (this.processing.has(key) || this.abandoned.has(key)) this.dirty.set(key, priority);
    else this.enqueue(key, priority);
    this.options.observer.added(this.depth);
    this.pump();
  }

  /** Queues the key after a delay; an earlier pending time wins, in the higher of the two lanes asked for. */
  addAfter(key: K, ms: number, priority: Priority = 'high'): void {
    if (this.stopping) return;
    if (ms <= 0) return this.add(key, priority);
    const { timers } = this.options;
    const at = timers.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) {
      pending.priority = higher(pending.priority, priority);
      return;
    }
    if (pending) timers.clearTimeout(pending.handle);
    if (pending) priority = higher(priority, pending.priority);
    const handle = timers.setTimeout(() => {
      const { priority: lane } = this.delayed.get(key) ?? { priority };
      this.delayed.delete(key);
      this.add(key, lane);
    }, ms);
    this.delayed.set(key, { at, priority, handle });
  }

  /** Keys waiting or running. */
  get length(): number {
    return this.queued.size + this.processing.size;
  }

  /** Stops taking work, drops what waits, and resolves when running reconciles are done (not those past their timeout). */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const key of [...this.delayed.keys()]) this.cancelDelayed(key);
    for (const lane of Object.values(this.lanes)) lane.length = 0;
    this.queued.clear();
    this.dirty.clear();
    this.waitingSince.clear();
    if (this.processing.size === 0) return;
    await new Promise<void>((resolve) => this.idle.add(resolve));
  }

  private get depth(): number {
    return this.queued.size + this.dirty.size;
  }

  private enqueue(key: K, priority: Priority): void {
    this.queued.set(key, priority);
    this.lanes[priority].push(key);
  }

  /** Moves a queued key from its lane to the end of a higher one, or marks a dirty one so. */
  private raise(key: K, from: Priority, to: Priority): void {
    if (this.dirty.has(key)) return void this.dirty.set(key, to);
    const lane = this.lanes[from];
    lane.splice(lane.indexOf(key), 1);
    this.enqueue(key, to);
  }

  /** The lane to take from next: top, then high, but low after CHANGES_IN_A_ROW of those while low ones waited. */
  private nextLane(): Priority | undefined {
    const { top, high, low } = this.lanes;
    const change = top.length > 0 ? 'top' : high.length > 0 ? 'high' : undefined;
    if (low.length === 0) {
      this.changesInARow = 0;
      return change;
    }
    if (change && this.changesInARow < CHANGES_IN_A_ROW) {
      this.changesInARow++;
      return change;
    }
    this.changesInARow = 0;
    return 'low';
  }

  private pump(): void {
    const { timers, observer } = this.options;
    while (!this.stopping && this.processing.size < this.options.concurrency) {
      const lane = this.nextLane();
      if (!lane) return;
      const key = this.lanes[lane].shift() as K;
      this.queued.delete(key);
      this.processing.add(key);
      const now = timers.now();
      const waitedMs = now - (this.waitingSince.get(key) ?? now);
      observer.started(this.depth, this.processing.size, waitedMs, lane);
      this.waitingSince.delete(key);
      void this.run(key, lane, waitedMs);
    }
  }

  private async run(key: K, lane: Priority, waitedMs: number): Promise<void> {
    const { timers, observer, timeoutMs } = this.options;
    const started = timers.now();
    let retryInMs: number | undefined;
    let retryLane: Priority = 'high';
    let outcome: ReconcileOutcome;
    const deadline = new AbortController();
    // A reconcile that throws at once fails like one that rejects.
    const reconciling = (async () => this.options.reconcile(key, lane, deadline.signal, waitedMs))();
    const timer =
      timeoutMs === undefined
        ? undefined
        : timers.setTimeout(() => deadline.abort(new ReconcileTimeoutError(key, timeoutMs)), timeoutMs);
    const timedOut = new Promise<never>((_, reject) =>
      deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason as Error), { once: true }),
    );
    try {
      const result = await Promise.race([reconciling, timedOut]);
      this.backoff.reset(key);
      retryInMs = result?.requeueAfterMs;
      if (retryInMs !== undefined) {
        const asked = result?.priority ?? (retryInMs > 0 ? 'low' : 'high');
        retryLane = asked === 'high' ? higher(lane, asked) : asked;
      }
      outcome = retryInMs === undefined ? 'success' : 'requeue_after';
    } catch (error) {
      retryInMs = this.retryDelay(key);
      outcome = 'error';
      this.options.onError(key, error, retryInMs);
      if (!this.stopping) observer.retried();
    } finally {
      if (timer !== undefined) timers.clearTimeout(timer);
      this.processing.delete(key);
    }
    if (deadline.signal.aborted) {
      observer.timedOut();
      this.abandoned.add(key);
      const stopped = () => {
        this.abandoned.delete(key);
        this.requeueDirty(key);
        this.pump();
      };
      reconciling.then(stopped, stopped);
    }
    observer.finished(this.processing.size, outcome, timers.now() - started);
    if (!this.requeueDirty(key) && retryInMs !== undefined) this.addAfter(key, retryInMs, retryLane);
    if (this.processing.size === 0 && this.stopping) for (const resolve of this.idle) resolve();
    this.pump();
  }

  /** Queues a key added while it ran, unless a reconcile of it past its timeout still runs; true if it was added meanwhile. */
  private requeueDirty(key: K): boolean {
    const dirty = this.dirty.get(key);
    if (dirty === undefined) return false;
    if (!this.abandoned.has(key)) {
      this.dirty.delete(key);
      this.enqueue(key, dirty);
    }
    return true;
  }

  private retryDelay(key: K): number {
    return Math.max(this.backoff.next(key), this.retryTokens.take());
  }

  private cancelDelayed(key: K): void {
    const pending = this.delayed.get(key);
    if (!pending) return;
    this.options.timers.clearTimeout(pending.handle);
    this.delayed.delete(key);
  }
}
