// NoPollers: a build that takes traffic (current or ramping), whose Pods Kubernetes has had Ready
// for longer than Temporal remembers pollers, yet on one of whose task queues Temporal remembers
// no poller of it. Its workers run but do not work: wrong TEMPORAL_* variables, no connection, a
// worker built without versioning or polling under other deployment options, pollers that died.
// Said to an operator only (Degraded=True, a Warning event when it starts, a metric): nothing is
// scaled, rolled back or deleted for it. Pure; `now` comes with the observation.
import { durationText } from '../api/schema.ts';
import type { PolledQueueType, PollersSeen, TaskQueueRef } from '../domain/pollers.ts';
import { type Condition, degraded, NO_POLLERS } from '../status/conditions.ts';
import type { JoinedVersion } from '../status/versions.ts';

/** One task queue of a build that takes traffic on which Temporal remembers no poller of the build. */
export interface SilentQueue {
  buildId: string;
  status: 'Current' | 'Ramping';
  taskQueue: { name: string; type: PolledQueueType };
  deployments: string[];
  /** Since when every Deployment of the build has been available. */
  readySince: Date;
}

export interface NoPollersInput {
  now: Date;
  /** The server's matching.PollerHistoryTTL (--poller-history). */
  pollerHistoryMs: number;
  /** Undefined: the pollers are not read (--no-backlog-metrics). */
  pollers: PollersSeen | undefined;
  versions: readonly JoinedVersion[];
  /** Each build's task queues (see status/task-queues.ts). */
  taskQueues: Readonly<Record<string, readonly TaskQueueRef[]>>;
}

/**
 * The silent queues of builds that take traffic; undefined when this cannot be judged: the pollers
 * are not read, or were last read longer ago than Temporal remembers them. A queue is judged only
 * on a read that came after the build's Pods had been Ready for a whole poller history: Temporal
 * then answers for a time they were all Ready, so no poller means none of them polled.
 */
export function silentQueues(input: NoPollersInput): SilentQueue[] | undefined {
  const { now, pollerHistoryMs, pollers } = input;
  if (!pollers || now.getTime() - pollers.readAt.getTime() > pollerHistoryMs) return undefined;
  const silent: SilentQueue[] = [];
  for (const v of input.versions) {
    if (v.status !== 'Current' && v.status !== 'Ramping') continue;
    if (!v.healthy || !v.healthySince) continue;
    if (pollers.readAt.getTime() - v.healthySince.getTime() < pollerHistoryMs) continue;
    for (const queue of input.taskQueues[v.buildId] ?? []) {
      const read = pollers.polled.find((p) => p.name === queue.name && p.type === queue.type);
      if (!read || read.builds.includes(v.buildId)) continue;
      silent.push({
        buildId: v.buildId,
        status: v.status,
        taskQueue: { name: read.name, type: read.type },
        deployments: v.deployments.map((d) => d.name),
        readySince: v.healthySince,
      });
    }
  }
  return silent;
}

/**
 * The Degraded condition of the silent queues, naming each build, queue and Deployment and what to
 * check; it changes only when they do, so that its Warning event is written when it starts.
 */
export function noPollersCondition(
  silent: readonly SilentQueue[],
  context: { temporalName: string; pollerHistoryMs: number },
): Condition | undefined {
  if (silent.length === 0) return undefined;
  const history = durationText(context.pollerHistoryMs);
  const builds = [...new Set(silent.map((s) => s.buildId))];
  const said = builds.map((buildId) => {
    const own = silent.filter((s) => s.buildId === buildId);
    const [{ status, deployments, readySince }] = own as [SilentQueue, ...SilentQueue[]];
    const queues = own.map((s) => `${s.taskQueue.type} task queue ${s.taskQueue.name}`).join(', ');
    const where =
      deployments.length === 1
        ? `its Deployment ${deployments[0]} has`
        : `its Deployments ${deployments.join(', ')} have`;
    return `build ${buildId} is ${status.toLowerCase()} and ${where} had every Pod Ready since ${readySince.toISOString()}, yet Temporal remembers no poller of it on ${queues} within its poller history (${history})`;
  });
  return degraded(
    NO_POLLERS,
    `${said.join('; ')}: check the workers' TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_DEPLOYMENT_NAME (${context.temporalName}) and TEMPORAL_WORKER_BUILD_ID variables, that they reach Temporal (their logs say so), and that they poll ${builds.length === 1 ? 'these queues' : 'their queues'} as versioned workers of that deployment name and build ID; nothing is scaled, rolled back or deleted for it`,
  );
}
