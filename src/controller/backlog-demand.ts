// Which builds' backlog figures something wants: the leader reads a build's backlog only while
// something asked for it within the last `lapseMs` (an external metrics query that picks the
// build, an owned autoscaler of it that names a backlog metric, a scrape of the backlog gauges,
// which asks for every build). When no one asks, no read is spent. Plain state on an injected
// clock; the reads and what asks are wired in temporal-figures.ts.

export interface BacklogDemandOptions {
  /** How long one ask keeps a build wanted. */
  lapseMs: number;
  now: () => number;
}

export class BacklogDemand {
  private readonly lapseMs: number;
  private readonly now: () => number;
  /** When each build (by key) was last asked for. */
  private readonly askedAt = new Map<string, number>();
  /** When every build was last asked for at once (a scrape). */
  private everyAskedAt = -Infinity;

  constructor(options: BacklogDemandOptions) {
    this.lapseMs = options.lapseMs;
    this.now = options.now;
  }

  /** Asks for these builds now; true when one of them was not wanted just before (its demand starts). */
  ask(keys: Iterable<string>): boolean {
    const now = this.now();
    let starts = false;
    for (const key of keys) {
      starts ||= !this.wanted(key);
      this.askedAt.set(key, now);
    }
    return starts;
  }

  /** Asks for every build now; true when that was not wanted just before. */
  askEvery(): boolean {
    const starts = !this.live(this.everyAskedAt);
    this.everyAskedAt = this.now();
    return starts;
  }

  /** Whether the build was asked for, alone or with every build, within the last `lapseMs`. */
  wanted(key: string): boolean {
    return this.live(this.everyAskedAt) || this.live(this.askedAt.get(key) ?? -Infinity);
  }

  /** Forgets the asks that have lapsed. */
  prune(): void {
    for (const [key, at] of this.askedAt) if (!this.live(at)) this.askedAt.delete(key);
  }

  private live(at: number): boolean {
    return this.now() - at < this.lapseMs;
  }
}
