// What the controller reads of Temporal on a schedule of its own, beside the reconciles (see
// figures-collector.ts): each build's backlog and each worker deployment's pollers, their keys,
// where each is read, and what a change of pollers queues.
import type { BuildBacklog, TaskQueueFigures } from '../domain/backlog.ts';
import { LABELS } from '../domain/labels.ts';
import type { PolledQueueType, PollersSeen, TaskQueueRef } from '../domain/pollers.ts';
import { sameJson } from '../domain/same-json.ts';
import { temporalDeploymentName } from '../k8s/names.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Priority } from '../runtime/work-queue.ts';
import { readPollers, type TaskQueueTarget } from '../temporal/task-queues.ts';
import { readVersionBacklog } from '../temporal/version-backlog.ts';
import type { Caches } from './caches.ts';
import { FiguresCollector, type FiguresSource } from './figures-collector.ts';
import type { TemporalAccess } from './temporal-access.ts';
import { ownerOf, queueKeys } from './watches.ts';

/** A worker deployment's pollers are read once every this many poll intervals. */
const POLLERS_INTERVALS = 3;

/** What the controller reads of Temporal on a schedule of its own (see FiguresCollector). */
export type TemporalFigures =
  | { kind: 'backlog'; build: Omit<BuildBacklog, 'readAt' | 'queues'>; queues: TaskQueueFigures[] }
  | ({ kind: 'pollers'; namespace: string; workerDeployment: string } & Omit<PollersSeen, 'readAt'>);

/**
 * The task queues it reads (workflow and activity) and each build's queues grow as the builds'
 * backlog reads name them, within one look.
 */
type PollersSource = FiguresSource<TemporalFigures> & {
  queues: Map<string, { name: string; type: PolledQueueType }>;
  taskQueues: Record<string, TaskQueueRef[]>;
};

function backlogKey(namespace: string, name: string, buildId: string): string {
  return `backlog/${namespace}/${name}/${buildId}`;
}

function pollersKey(namespace: string, name: string): string {
  return `pollers/${namespace}/${name}`;
}

/** The same workers, queues and pollers per queue: nothing for the status to say anew. */
function samePollers(figures: TemporalFigures, previous: TemporalFigures | undefined): boolean {
  if (figures.kind !== 'pollers' || previous?.kind !== 'pollers') return false;
  const { workers, taskQueues, polled } = figures;
  return sameJson(
    { workers, taskQueues, polled },
    {
      workers: previous.workers,
      taskQueues: previous.taskQueues,
      polled: previous.polled,
    },
  );
}

export interface TemporalFiguresOptions {
  caches: Caches;
  temporal: TemporalAccess;
  pollIntervalMs: number;
  enqueue(key: string, priority: Priority): void;
  log: Logger;
}

/** The collector of the backlogs and pollers; a change of pollers queues its worker deployment. */
export function temporalFigures(options: TemporalFiguresOptions): FiguresCollector<TemporalFigures> {
  const { caches, pollIntervalMs, log } = options;
  const collector: FiguresCollector<TemporalFigures> = new FiguresCollector<TemporalFigures>({
    sources: () => figuresSources(options, (key) => collector.latest(key)?.value),
    // A change of pollers is news for the status, which says how many workers each build has.
    onRead: ({ value }, previous) => {
      if (value.kind !== 'pollers' || samePollers(value, previous?.value)) return;
      // Routine news but while a rollout waits: its target's workers may have just registered.
      const status = caches.workerDeployments.get(value.namespace, value.workerDeployment)?.status;
      const waiting = status?.targetVersion?.buildID !== status?.currentVersion?.buildID;
      for (const key of queueKeys('workerDeployment', value.namespace, value.workerDeployment))
        options.enqueue(key, waiting ? 'high' : 'low');
    },
    pollIntervalMs,
    log,
  });
  return collector;
}

/** Each build's backlog as last read, where recent enough to act on; empty without a collector. */
export function backlogFigures(figures: FiguresCollector<TemporalFigures> | undefined): BuildBacklog[] {
  return (figures?.fresh() ?? []).flatMap(({ value, readAt }) =>
    value.kind === 'backlog' ? [{ ...value.build, readAt, queues: value.queues }] : [],
  );
}

/** The pollers of a worker deployment's builds and their task queues as last read; undefined when not read. */
export function pollersSeen(
  figures: FiguresCollector<TemporalFigures> | undefined,
  namespace: string,
  name: string,
): PollersSeen | undefined {
  const latest = figures?.latest(pollersKey(namespace, name));
  if (latest?.value.kind !== 'pollers') return undefined;
  const { workers, taskQueues, polled } = latest.value;
  return { readAt: latest.readAt, workers, taskQueues, polled };
}

/**
 * Each build with replicas (its backlog), and each worker deployment whose workflow task queues
 * those reads found (its pollers), with how to read them within the Temporal namespace's read budget.
 */
function figuresSources(
  { caches, temporal, pollIntervalMs }: TemporalFiguresOptions,
  latest: (key: string) => TemporalFigures | undefined,
): FiguresSource<TemporalFigures>[] {
  const sources = new Map<string, FiguresSource<TemporalFigures>>();
  const pollersSources = new Map<string, PollersSource>();
  for (const deployment of caches.deployments.list()) {
    const namespace = deployment.metadata?.namespace ?? '';
    const buildId = deployment.metadata?.labels?.[LABELS.buildId];
    const owner = ownerOf(deployment);
    // Nothing may scale a build at zero back up (its autoscalers are gone): no read is spent on it.
    if (!buildId || !owner || deployment.spec?.replicas === 0) continue;
    const key = backlogKey(namespace, owner, buildId);
    const twd = caches.workerDeployments.get(namespace, owner);
    const connection = twd && caches.connections.usedBy(twd);
    if (!twd || !connection || sources.has(key)) continue;
    const temporalNamespace = twd.spec.workerOptions.temporalNamespace;
    const takeRead = () => temporal.reads.mayReadBacklog(connection.spec.hostPort, temporalNamespace);
    const target = async () => ({
      service: await temporal.paced(connection),
      namespace: temporalNamespace,
      deploymentName: temporalDeploymentName(namespace, owner),
    });
    const pools = Object.fromEntries(
      (twd.spec.pools ?? []).flatMap((pool) => (pool.taskQueue ? [[pool.taskQueue, pool.name]] : [])),
    );
    const build = { namespace, workerDeployment: owner, buildId, pools };
    sources.set(key, {
      key,
      takeRead,
      read: async () => ({ kind: 'backlog', build, queues: await readVersionBacklog(await target(), buildId) }),
    });
    // The worker deployment's pollers: one read of the workflow and activity task queues its
    // builds' backlogs named, each build's queues kept beside them.
    const source =
      pollersSources.get(pollersKey(namespace, owner)) ??
      pollersSource({ namespace, workerDeployment: owner, takeRead, target, pollIntervalMs });
    pollersSources.set(source.key, source);
    const backlog = latest(key);
    if (backlog?.kind !== 'backlog') continue;
    // In one order, whatever Temporal's: a change is news, an order is not (see samePollers).
    source.taskQueues[buildId] = backlog.queues
      .map((q) => ({ name: q.taskQueue, type: q.type }))
      .sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name));
    for (const { taskQueue: name, type } of backlog.queues)
      if (type === 'workflow' || type === 'activity') source.queues.set(`${type}/${name}`, { name, type });
  }
  // A worker deployment whose backlog reads named no queue yet has no pollers to read.
  return [...sources.values(), ...[...pollersSources.values()].filter((p) => p.queues.size > 0)];
}

/**
 * The read of a worker deployment's pollers: on the workflow and activity queues its builds' backlog
 * reads name (filled in as they are listed, within one look), each build's queues kept beside them.
 */
function pollersSource({
  namespace,
  workerDeployment,
  takeRead,
  target,
  pollIntervalMs,
}: {
  namespace: string;
  workerDeployment: string;
  takeRead: () => boolean;
  target: () => Promise<TaskQueueTarget>;
  pollIntervalMs: number;
}): PollersSource {
  const queues: PollersSource['queues'] = new Map();
  const taskQueues: PollersSource['taskQueues'] = {};
  return {
    key: pollersKey(namespace, workerDeployment),
    // Temporal remembers pollers for minutes: their count changes slowly, the backlog does not.
    everyMs: POLLERS_INTERVALS * pollIntervalMs,
    queues,
    taskQueues,
    takeRead,
    read: async () => ({
      kind: 'pollers',
      namespace,
      workerDeployment,
      taskQueues,
      ...(await readPollers(
        await target(),
        [...queues.values()].sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name)),
      )),
    }),
  };
}
