// Reads figures from Temporal on a schedule of their own, apart from the reconciles: each build's
// backlog, each worker deployment's pollers. Every source is read at most once per its interval
// (the poll interval unless it says), those a rollout waits on first, then the one that waited
// most of its intervals, and only
// with a token of the share of its Temporal namespace's read budget
// in hand: past what the share allows, figures get older rather than reads going over it. Figures
// older than a few intervals are not served as fresh, so an autoscaler sees no figure (and holds
// its scale) rather than a stale one.
import { errorMessage } from '../runtime/kube/api-errors.ts';
import type { Logger } from '../runtime/logger.ts';
import { realTimers, type Timers } from '../runtime/timers.ts';

/** What to read, and how. */
export interface FiguresSource<T> {
  /** Names the source across looks: its figures are kept while a source of this key is listed. */
  key: string;
  /** Takes a token of the share of the read budget if one is there now: false means not now. */
  takeRead: () => boolean;
  read: () => Promise<T>;
  /** Read at most this often (default: once per poll interval); when reads are short, that much less often than others. */
  everyMs?: number;
  /** Read before the other sources due, however long they waited: what a rollout waits on. */
  first?: boolean;
}

export interface Figures<T> {
  key: string;
  value: T;
  readAt: Date;
}

export interface FiguresCollectorOptions<T> {
  /** The sources to read, asked afresh at every look. */
  sources: () => FiguresSource<T>[];
  pollIntervalMs: number;
  log: Logger;
  /** Told of every read, with the figures it replaces. */
  onRead?: (read: Figures<T>, previous: Figures<T> | undefined) => void;
  timers?: Timers;
}

/** Figures live this many poll intervals (and at least two minutes) before they count as lost. */
const LIFETIME_INTERVALS = 5;
const SHORTEST_LIFETIME_MS = 120_000;

/** How long figures are served after they were read. */
export function figuresLifetimeMs(pollIntervalMs: number): number {
  return Math.max(SHORTEST_LIFETIME_MS, LIFETIME_INTERVALS * pollIntervalMs);
}

interface Entry<T> {
  attemptedAt: number;
  reading: boolean;
  figures?: Figures<T>;
}

export class FiguresCollector<T> {
  private readonly options: FiguresCollectorOptions<T>;
  private readonly timers: Timers;
  private readonly entries = new Map<string, Entry<T>>();
  private timer: unknown;
  private stopped = true;

  constructor(options: FiguresCollectorOptions<T>) {
    this.options = options;
    this.timers = options.timers ?? realTimers;
  }

  start(): void {
    this.stopped = false;
    this.look();
  }

  stop(): void {
    this.stopped = true;
    this.timers.clearTimeout(this.timer);
  }

  /** Looks at once rather than at the next look: a source just listed (a build just asked for) is read now. */
  lookSoon(): void {
    if (this.stopped) return;
    this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => this.look(), 0);
  }

  /** The figures of each source, where they are recent enough to act on. */
  fresh(): Figures<T>[] {
    const oldest = this.timers.now() - figuresLifetimeMs(this.options.pollIntervalMs);
    return [...this.entries.values()].flatMap(({ figures }) =>
      figures && figures.readAt.getTime() >= oldest ? [figures] : [],
    );
  }

  /** The last figures read of a source still listed, however old. */
  latest(key: string): Figures<T> | undefined {
    return this.entries.get(key)?.figures;
  }

  private look(): void {
    if (this.stopped) return;
    const now = this.timers.now();
    const sources = this.options.sources();
    const listed = new Set(sources.map(({ key }) => key));
    for (const key of this.entries.keys()) if (!listed.has(key)) this.entries.delete(key);
    // Those marked first, then the source that waited most of its own intervals: when reads are
    // short, each is delayed in proportion, a source of a longer interval read that much less often.
    const waited = ({ source, entry }: { source: FiguresSource<T>; entry: Entry<T> | undefined }) =>
      entry ? (now - entry.attemptedAt) / (source.everyMs ?? this.options.pollIntervalMs) : Infinity;
    const due = sources
      .map((source) => ({ source, entry: this.entries.get(source.key) }))
      .filter((candidate) => !candidate.entry?.reading && waited(candidate) >= 1)
      .sort((a, b) => Number(b.source.first ?? false) - Number(a.source.first ?? false) || waited(b) - waited(a));
    let refused = false;
    for (const { source } of due)
      if (source.takeRead()) this.read(source, now);
      else refused = true;
    this.timer = this.timers.setTimeout(() => this.look(), this.nextLookInMs(sources, now, refused));
  }

  /**
   * When to look again: when the next source listed comes due, no later than a tenth of an
   * interval after its time, nor than an interval from now (a source listed meanwhile waits no
   * longer); a tenth of an interval while the budget refused one. An idle process wakes for what it
   * reads, not every second.
   */
  private nextLookInMs(sources: readonly FiguresSource<T>[], now: number, refused: boolean): number {
    const { pollIntervalMs } = this.options;
    const step = Math.min(1000, pollIntervalMs / 10);
    if (refused) return step;
    let next = pollIntervalMs;
    for (const { key, everyMs } of sources) {
      const entry = this.entries.get(key);
      if (entry) next = Math.min(next, entry.attemptedAt + (everyMs ?? pollIntervalMs) - now);
    }
    return Math.max(step, next);
  }

  private read({ key, read }: FiguresSource<T>, now: number): void {
    const entry: Entry<T> = { ...this.entries.get(key), attemptedAt: now, reading: true };
    this.entries.set(key, entry);
    void read()
      .then(
        (value) => {
          const previous = entry.figures;
          entry.figures = { key, value, readAt: new Date(this.timers.now()) };
          // A source dropped while it was read keeps nothing.
          if (this.entries.get(key) !== entry) return;
          this.options.onRead?.(entry.figures, previous);
        },
        (error: unknown) => {
          this.options.log.debug(
            { source: key, error: errorMessage(error) },
            'could not read figures from Temporal; the last ones stand until they are too old',
          );
        },
      )
      .finally(() => (entry.reading = false));
  }
}
