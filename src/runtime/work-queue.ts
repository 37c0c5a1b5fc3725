// The queue between events and reconciles, with client-go's workqueue semantics: a key waiting
// is queued once however often it is added; a key is never reconciled twice at once (an add
// during its reconcile runs it again afterwards); a failed key is retried after the longer of
// its own exponential backoff and an overall token bucket, so an error storm stays bounded.
import { Backoff } from './backoff.ts';
import { realTimers, type Timers } from './timers.ts';
import { TokenBucket } from './token-bucket.ts';

/** What a reconcile asks for: run again after this long (a success, so backoff is reset). */
export type ReconcileResult = { requeueAfterMs?: number } | undefined;

/** How a reconcile ended, in controller-runtime's words. */
export type ReconcileOutcome = 'success' | 'requeue_after' | 'error';

/** What the queue reports as it works, for metrics. Depth counts waiting keys, active running reconciles. */
export interface WorkQueueObserver {
  /** A key started waiting; adds of a key already waiting are not reported. */
  added(depth: number): void;
  started(depth: number, active: number, waitedMs: number): void;
  finished(active: number, outcome: ReconcileOutcome, durationMs: number): void;
  /** A failed key was scheduled to run again. */
  retried(): void;
}

const unobserved: WorkQueueObserver = { added: () => {}, started: () => {}, finished: () => {}, retried: () => {} };

export interface WorkQueueOptions<K> {
  reconcile: (key: K) => Promise<ReconcileResult>;
  /** Reconciles running at once, of different keys. */
  concurrency: number;
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
  private readonly queue: K[] = [];
  private readonly queued = new Set<K>();
  private readonly processing = new Set<K>();
  /** Added while processing: to queue again when that reconcile ends. */
  private readonly dirty = new Set<K>();
  /** When each waiting key (queued or dirty) started waiting. */
  private readonly waitingSince = new Map<K, number>();
  private readonly delayed = new Map<K, { at: number; handle: unknown }>();
  private readonly options: Required<WorkQueueOptions<K>>;
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

  /** Queues the key now, unless it is already waiting. */
  add(key: K): void {
    if (this.stopping) return;
    this.cancelDelayed(key);
    if (this.queued.has(key) || this.dirty.has(key)) return;
    this.waitingSince.set(key, this.options.timers.now());
    if (this.processing.has(key)) this.dirty.add(key);
    else this.enqueue(key);
    this.options.observer.added(this.depth);
    this.pump();
  }

  /** Queues the key after a delay; an earlier pending time wins. */
  addAfter(key: K, ms: number): void {
    if (this.stopping) return;
    if (ms <= 0) return this.add(key);
    const { timers } = this.options;
    const at = timers.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) timers.clearTimeout(pending.handle);
    const handle = timers.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, handle });
  }

  /** Keys waiting or running. */
  get length(): number {
    return this.queue.length + this.processing.size;
  }

  /** Stops taking work, drops what waits, and resolves when running reconciles are done. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const key of [...this.delayed.keys()]) this.cancelDelayed(key);
    this.queue.length = 0;
    this.queued.clear();
    this.dirty.clear();
    this.waitingSince.clear();
    if (this.processing.size === 0) return;
    await new Promise<void>((resolve) => this.idle.add(resolve));
  }

  private get depth(): number {
    return this.queue.length + this.dirty.size;
  }

  private enqueue(key: K): void {
    this.queued.add(key);
    this.queue.push(key);
  }

  private pump(): void {
    const { timers, observer } = this.options;
    while (!this.stopping && this.processing.size < this.options.concurrency && this.queue.length > 0) {
      const key = this.queue.shift() as K;
      this.queued.delete(key);
      this.processing.add(key);
      const now = timers.now();
      observer.started(this.depth, this.processing.size, now - (this.waitingSince.get(key) ?? now));
      this.waitingSince.delete(key);
      void this.run(key);
    }
  }

  private async run(key: K): Promise<void> {
    const { timers, observer } = this.options;
    const started = timers.now();
    let retryInMs: number | undefined;
    let outcome: ReconcileOutcome;
    try {
      const result = await this.options.reconcile(key);
      this.backoff.reset(key);
      retryInMs = result?.requeueAfterMs;
      outcome = retryInMs === undefined ? 'success' : 'requeue_after';
    } catch (error) {
      retryInMs = this.retryDelay(key);
      outcome = 'error';
      this.options.onError(key, error, retryInMs);
      if (!this.stopping) observer.retried();
    } finally {
      this.processing.delete(key);
    }
    observer.finished(this.processing.size, outcome, timers.now() - started);
    if (this.dirty.delete(key)) this.enqueue(key);
    else if (retryInMs !== undefined) this.addAfter(key, retryInMs);
    if (this.processing.size === 0 && this.stopping) for (const resolve of this.idle) resolve();
    this.pump();
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
