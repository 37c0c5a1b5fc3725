// Per-key exponential backoff: base * 2^failures, capped, optionally jittered so that keys that
// failed together do not all come back together.

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Each delay is moved by up to this fraction either way (0.2: ±20%); default 0. */
  jitter?: number;
  random?: () => number;
}

export class Backoff<K> {
  private readonly options: Required<BackoffOptions>;
  private readonly failures = new Map<K, number>();

  constructor(options: BackoffOptions) {
    this.options = { jitter: 0, random: Math.random, ...options };
  }

  /** The delay before the key's next attempt; each call counts one more failure. */
  next(key: K): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    const { baseMs, maxMs, jitter, random } = this.options;
    return Math.min(baseMs * 2 ** failures, maxMs) * (1 + jitter * (2 * random() - 1));
  }

  /** The key succeeded: its next failure starts from the base again. */
  reset(key: K): void {
    this.failures.delete(key);
  }

  /** Forgets the failures of every key that passes `test`: keys of objects gone. */
  forgetWhere(test: (key: K) => boolean): void {
    for (const key of this.failures.keys()) if (test(key)) this.failures.delete(key);
  }
}

/** When each key that failed may be tried again, by its Backoff: for work redone at every reconcile. */
export class RetrySchedule<K> {
  private readonly backoff: Backoff<K>;
  private readonly notBefore = new Map<K, number>();

  constructor(backoff: Backoff<K>) {
    this.backoff = backoff;
  }

  /** Whether the key may be tried at `now`: it never failed, or its delay has passed. */
  due(key: K, now: number): boolean {
    return now >= (this.notBefore.get(key) ?? 0);
  }

  /** Counts a failure; resolves to the delay before the next try. */
  failed(key: K, now: number): number {
    const delay = this.backoff.next(key);
    this.notBefore.set(key, now + delay);
    return delay;
  }

  succeeded(key: K): void {
    this.backoff.reset(key);
    this.notBefore.delete(key);
  }

  /** Forgets every key that passes `test`: keys of objects gone. */
  forgetWhere(test: (key: K) => boolean): void {
    this.backoff.forgetWhere(test);
    for (const key of this.notBefore.keys()) if (test(key)) this.notBefore.delete(key);
  }
}
