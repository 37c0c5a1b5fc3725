// What Temporal says waits for one build, queue by queue: the figures the backlog metrics serve,
// to the HPA as external metrics and to Prometheus.

export type TaskQueueKind = 'workflow' | 'activity' | 'nexus';

/** One task queue of one build, as Temporal counted it for that build's version. */
export interface TaskQueueFigures {
  taskQueue: string;
  type: TaskQueueKind;
  backlogCount: number;
  backlogAgeSeconds: number;
  /** Tasks a second, as Temporal's moving averages have them. */
  addRate: number;
  dispatchRate: number;
}

/** One build of a worker deployment and the figures last read for it. */
export interface BuildBacklog {
  /** The worker deployment's Kubernetes namespace and name. */
  namespace: string;
  workerDeployment: string;
  buildId: string;
  /** Pool name per task queue, for the queues a pool of the worker deployment polls. */
  pools: Readonly<Record<string, string>>;
  readAt: Date;
  queues: readonly TaskQueueFigures[];
}

/**
 * The figures served, by the name's common part: `temporal_<name>` as an external metric,
 * `twc_temporal_<name>` on /metrics.
 */
export const BACKLOG_FIGURES: ReadonlyArray<{
  name: string;
  help: string;
  figure: (queue: TaskQueueFigures) => number;
}> = [
  {
    name: 'backlog_count',
    help: "Tasks waiting in a build's task queue, as Temporal approximates them for that build's version",
    figure: (queue) => queue.backlogCount,
  },
  {
    name: 'backlog_age_seconds',
    help: "How long the oldest task waiting in a build's task queue has waited",
    figure: (queue) => queue.backlogAgeSeconds,
  },
  {
    name: 'tasks_add_rate',
    help: "Tasks a second added to a build's task queue (Temporal's moving average)",
    figure: (queue) => queue.addRate,
  },
  {
    name: 'tasks_dispatch_rate',
    help: "Tasks a second dispatched from a build's task queue to its workers (Temporal's moving average)",
    figure: (queue) => queue.dispatchRate,
  },
];

/**
 * Who asks for the figures, which makes them read (controller/backlog-demand.ts): a scrape of the
 * gauges asks for every build; an external metrics query for the builds of its namespace that its
 * selector may pick.
 */
export type BacklogAsk =
  | { by: 'scrape' }
  | {
      by: 'query';
      namespace: string;
      picks: (build: { workerDeployment: string; buildId: string }) => boolean;
    };

/** Whether an object (an autoscaler's spec) names one of the figures, as an external metric or a Prometheus series. */
export function namesBacklogFigure(object: unknown): boolean {
  const text = JSON.stringify(object) ?? '';
  // `temporal_backlog_count` is within `twc_temporal_backlog_count` too.
  return BACKLOG_FIGURES.some(({ name }) => text.includes(`temporal_${name}`));
}
