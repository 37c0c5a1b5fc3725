// What the leader last read of a worker deployment's pollers (controller/temporal-figures.ts): the
// task queues Temporal lists for each build, and which builds it remembers polling each queue, for
// the status and for judging a build whose Pods are Ready but whose workers poll nothing.
import type { TaskQueueKind } from './backlog.ts';
import { byCodeUnits } from './text-order.ts';

/** One task queue of a build, as Temporal lists the queues of the build's version. */
export interface TaskQueueRef {
  name: string;
  type: TaskQueueKind;
}

/** The task-queue types whose pollers are read: nexus queues are listed, not judged. */
export type PolledQueueType = 'workflow' | 'activity';

/** One task queue whose pollers were read, with the builds Temporal remembers polling it. */
export interface PolledQueue {
  name: string;
  type: PolledQueueType;
  /** Builds of this worker deployment with a versioned poller on the queue within Temporal's poller history. */
  builds: string[];
}

export interface PollersSeen {
  /** When Temporal was asked: it answers for the poller history before then (matching.PollerHistoryTTL). */
  readAt: Date;
  /** Distinct workers of each build seen polling its workflow task queues. */
  workers: Record<string, number>;
  /** Each build's task queues as Temporal listed them when its backlog was last read. */
  taskQueues: Record<string, TaskQueueRef[]>;
  /** The queues whose pollers were read. */
  polled: PolledQueue[];
}

/** By type, then name, without other fields: what is said of them does not change with the order Temporal lists them in. */
export function sortedTaskQueues<Q extends TaskQueueRef>(queues: Iterable<Q>): Pick<Q, 'name' | 'type'>[] {
  return [...queues]
    .map(({ name, type }) => ({ name, type }))
    .sort((a, b) => byCodeUnits(a.type, b.type) || byCodeUnits(a.name, b.name));
}
