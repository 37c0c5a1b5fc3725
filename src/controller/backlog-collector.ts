// Reads, for every build with replicas, what waits for it in Temporal, and keeps the figures for
// the backlog metrics. Each build is read at most once per poll interval, and only with a token of
// the backlog's share of its Temporal namespace's read budget in hand: past what the share allows,
// figures get older rather than reads going over it. Figures older than a few intervals are dropped, so an
// autoscaler sees no figure (and holds its scale) rather than a stale one.
import type { BuildBacklog, TaskQueueFigures } from '../domain/backlog.ts';
import { errorMessage } from '../k8s/api-errors.ts';
import type { Logger } from '../runtime/logger.ts';
import { realTimers, type Timers } from '../runtime/timers.ts';

/** A build to read, and how. */
export interface BacklogBuild {
  build: Omit<BuildBacklog, 'readAt' | 'queues'>;
  /** Takes a token of the backlog's share of the read budget if one is there now: false means not now. */
  takeRead: () => boolean;
  read: () => Promise<TaskQueueFigures[]>;
}

export interface BacklogCollectorOptions {
  /** The builds to read, asked afresh at every look. */
  builds: () => BacklogBuild[];
  pollIntervalMs: number;
  log: Logger;
  timers?: Timers;
}

/** Figures live this many poll intervals (and at least two minutes) before they count as lost. */
const LIFETIME_INTERVALS = 5;
const SHORTEST_LIFETIME_MS = 120_000;

interface Entry {
  attemptedAt: number;
  reading: boolean;
  figures?: BuildBacklog;
}

export class BacklogCollector {
  private readonly options: BacklogCollectorOptions;
  private readonly timers: Timers;
  private readonly entries = new Map<string, Entry>();
  private timer: unknown;
  private stopped = true;

  constructor(options: BacklogCollectorOptions) {
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

  /** The figures of each build, where they are recent enough to act on. */
  figures(): BuildBacklog[] {
    const oldest = this.timers.now() - Math.max(SHORTEST_LIFETIME_MS, LIFETIME_INTERVALS * this.options.pollIntervalMs);
    return [...this.entries.values()].flatMap(({ figures }) =>
      figures && figures.readAt.getTime() >= oldest ? [figures] : [],
    );
  }

  private look(): void {
    if (this.stopped) return;
    const now = this.timers.now();
    const builds = this.options.builds();
    const listed = new Set(builds.map(({ build }) => keyOf(build)));
    for (const key of this.entries.keys()) if (!listed.has(key)) this.entries.delete(key);
    // Longest unread first, so that a spent budget delays every build alike.
    const due = builds
      .map((candidate) => ({ candidate, entry: this.entries.get(keyOf(candidate.build)) }))
      .filter(({ entry }) => !entry || (!entry.reading && now - entry.attemptedAt >= this.options.pollIntervalMs))
      .sort((a, b) => (a.entry?.attemptedAt ?? -Infinity) - (b.entry?.attemptedAt ?? -Infinity));
    for (const { candidate } of due) if (candidate.takeRead()) this.read(candidate, now);
    // Often enough that a build comes due no later than a tenth of an interval after its time.
    this.timer = this.timers.setTimeout(() => this.look(), Math.min(1000, this.options.pollIntervalMs / 10));
  }

  private read({ build, read }: BacklogBuild, now: number): void {
    const key = keyOf(build);
    const entry: Entry = { ...this.entries.get(key), attemptedAt: now, reading: true };
    this.entries.set(key, entry);
    void read()
      .then(
        (queues) => {
          entry.figures = { ...build, readAt: new Date(this.timers.now()), queues };
        },
        (error: unknown) => {
          this.options.log.debug(
            {
              object: `${build.namespace}/${build.workerDeployment}`,
              build: build.buildId,
              error: errorMessage(error),
            },
            "could not read the build's backlog from Temporal; its last figures stand until they are too old",
          );
        },
      )
      .finally(() => (entry.reading = false));
  }
}

function keyOf(build: Pick<BuildBacklog, 'namespace' | 'workerDeployment' | 'buildId'>): string {
  return `${build.namespace}/${build.workerDeployment}/${build.buildId}`;
}
