// The answer to one external metrics query, from the backlog figures: every task queue of every
// build in the namespace whose labels the selector matches, one item each. The HPA sums the items
// (an AverageValue target divides the sum by the build's replicas), so a selector of one build
// scales it on its own queues only. Pure.
import { BACKLOG_FIGURES, type BuildBacklog, type TaskQueueFigures } from '../domain/backlog.ts';
import { LABELS } from '../domain/labels.ts';
import { matches, type Requirement } from './label-selector.ts';

export const GROUP = 'external.metrics.k8s.io';
export const VERSION = 'v1beta1';

/** Labels of each item besides the worker deployment, build and pool ones that select a copy's build. */
export const METRIC_LABELS = { taskQueue: 'temporal.io/task-queue', taskQueueType: 'temporal.io/task-queue-type' };

/** The metrics served, by name: `temporal_backlog_count`, … */
export const METRICS: ReadonlyMap<string, (queue: TaskQueueFigures) => number> = new Map(
  BACKLOG_FIGURES.map(({ name, figure }) => [`temporal_${name}`, figure]),
);

export interface ExternalMetricValue {
  metricName: string;
  metricLabels: Record<string, string>;
  timestamp: string;
  value: string;
}

/**
 * Whether a query's selector may pick items of this build: its requirements on the labels of the
 * build itself hold (those on a pool or task queue choose among the build's own items). The builds
 * it may pick are the builds whose figures it asks for.
 */
export function picksBuild(
  selector: readonly Requirement[],
  build: { workerDeployment: string; buildId: string },
): boolean {
  const labels: Record<string, string> = {
    [LABELS.deploymentName]: build.workerDeployment,
    [LABELS.buildId]: build.buildId,
  };
  return matches(
    selector.filter(({ key }) => key in labels),
    labels,
  );
}

/** Undefined when no metric has that name. */
export function metricValues(
  figures: readonly BuildBacklog[],
  query: { metric: string; namespace: string; selector: readonly Requirement[] },
): ExternalMetricValue[] | undefined {
  const figure = METRICS.get(query.metric);
  if (!figure) return undefined;
  return figures
    .filter((build) => build.namespace === query.namespace)
    .flatMap((build) =>
      build.queues.flatMap((queue) => {
        const pool = build.pools[queue.taskQueue];
        const labels = {
          [LABELS.deploymentName]: build.workerDeployment,
          [LABELS.buildId]: build.buildId,
          ...(pool ? { [LABELS.pool]: pool } : {}),
          [METRIC_LABELS.taskQueue]: queue.taskQueue,
          [METRIC_LABELS.taskQueueType]: queue.type,
        };
        if (!matches(query.selector, labels)) return [];
        return [
          {
            metricName: query.metric,
            metricLabels: labels,
            timestamp: build.readAt.toISOString(),
            value: quantity(figure(queue)),
          },
        ];
      }),
    );
}

/** A Kubernetes quantity: whole numbers as they are, fractions in thousandths (`1500m`). */
export function quantity(value: number): string {
  return Number.isInteger(value) ? String(value) : `${Math.round(value * 1000)}m`;
}
