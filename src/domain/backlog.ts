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
