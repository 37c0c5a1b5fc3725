// What the controller reads of Temporal on a schedule of its own, beside the reconciles (see
// figures-collector.ts), in proportion to what uses it: the backlog of each build something asks
// for (backlog-demand.ts: an external metrics query, an owned autoscaler that names a backlog
// metric, a scrape of the backlog gauges); each build's task queues, learnt once, confirmed once
// and checked again rarely; each worker deployment's pollers on those queues, every third poll
// interval while a rollout waits or a build's Pods have just come, twice per poller history when
// idle. Their keys, where each is read, and what a change of pollers queues.
import type { V1Deployment } from '@kubernetes/client-node';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { TemporalWorkerOwnedResource } from '../api/temporal-worker-owned-resource.ts';
import { type BacklogAsk, type BuildBacklog, namesBacklogFigure, type TaskQueueFigures } from '../domain/backlog.ts';
import { LABELS } from '../domain/labels.ts';
import { AUTOSCALER_KINDS } from '../domain/owned-resources.ts';
import { type PolledQueueType, type PollersSeen, sortedTaskQueues, type TaskQueueRef } from '../domain/pollers.ts';
import { sameJson } from '../domain/same-json.ts';
import { temporalDeploymentName } from '../k8s/names.ts';
import { observeDeployment } from '../k8s/observed-deployment.ts';
import type { Logger } from '../runtime/logger.ts';
import { realTimers, type Timers } from '../runtime/timers.ts';
import type { Priority } from '../runtime/work-queue.ts';
import { buildStates } from '../status/build-states.ts';
import { readPollers, type TaskQueueTarget } from '../temporal/task-queues.ts';
import { readVersionBacklog, readVersionTaskQueues } from '../temporal/version-backlog.ts';
import { BacklogDemand } from './backlog-demand.ts';
import { FiguresCollector, type FiguresSource, figuresLifetimeMs } from './figures-collector.ts';
import type { TemporalAccess } from './temporal-access.ts';
import { ownerOf, queueKeys } from './watches.ts';

/**
 * While a rollout waits (its target is not current yet), a worker deployment's pollers are read
 * once every this many poll intervals, as a change of them brings its next reconcile at once; a
 * build's task queues learnt once are read again as soon, to confirm them.
 */
const WAITING_INTERVALS = 3;
/** A build's task queues, once confirmed, are learnt again this often: a worker may come to poll a queue later. */
export const QUEUES_RELEARN_MS = 30 * 60_000;

/** What the controller reads of Temporal on a schedule of its own (see FiguresCollector). */
export type TemporalFigures =
  | { kind: 'backlog'; build: Omit<BuildBacklog, 'readAt' | 'queues'>; queues: TaskQueueFigures[] }
  | { kind: 'queues'; build: string; queues: TaskQueueRef[] }
  | ({ kind: 'pollers'; namespace: string; workerDeployment: string } & Omit<PollersSeen, 'readAt'>);

/** The caches the figures are listed from, as controller/caches.ts fills them. */
export interface FiguresCaches {
  deployments: { list(namespace?: string): readonly V1Deployment[] };
  workerDeployments: { get(namespace: string, name: string): TemporalWorkerDeployment | undefined };
  ownedResources: { list(namespace?: string): readonly TemporalWorkerOwnedResource[] };
  connections: { usedBy(twd: TemporalWorkerDeployment): TemporalConnection | undefined };
}

export interface TemporalFiguresOptions {
  caches: FiguresCaches;
  temporal: Pick<TemporalAccess, 'reads' | 'paced'>;
  pollIntervalMs: number;
  /** The server's matching.PollerHistoryTTL (--poller-history): an idle worker deployment's pollers are read twice within it. */
  pollerHistoryMs: number;
  enqueue(key: string, priority: Priority): void;
  log: Logger;
  timers?: Timers;
}

/** The figures read beside the reconciles, as they are served. */
export interface TemporalFiguresReader {
  start(): void;
  stop(): void;
  /**
   * Each build's backlog as last read, where recent enough to act on: only builds something asked
   * for are read. `asked` asks for the builds it picks; a build not wanted just before is read at
   * once, so that the next ask finds its figures.
   */
  backlog(asked?: BacklogAsk): BuildBacklog[];
  /** The pollers of a worker deployment's builds and their task queues as last read; undefined when not read. */
  pollers(namespace: string, name: string): PollersSeen | undefined;
}

/** A build's task queues as last listed by Temporal (read alone, or with its backlog), and when. */
interface LearntQueues {
  queues: TaskQueueRef[];
  at: number;
  /** Two reads in a row listed the same queues (or the status remembered them): a worker's first polls are all in. */
  confirmed: boolean;
}

/** One build with replicas of a worker deployment whose connection is known: the builds figures are read of. */
interface LiveBuild {
  key: string;
  namespace: string;
  workerDeployment: string;
  buildId: string;
  twd: TemporalWorkerDeployment;
  connection: TemporalConnection;
}

/**
 * The task queues it reads (workflow and activity) and each build's queues, filled in from what
 * was learnt of the builds, within one look.
 */
type PollersSource = FiguresSource<TemporalFigures> & {
  queues: Map<string, { name: string; type: PolledQueueType }>;
  taskQueues: Record<string, TaskQueueRef[]>;
};

function buildKey(namespace: string, name: string, buildId: string): string {
  return `${namespace}/${name}/${buildId}`;
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

/** A rollout waits: its target is not current yet (its workers may be about to register). */
function rolloutWaits(twd: TemporalWorkerDeployment | undefined): boolean {
  const status = twd?.status;
  return status?.targetVersion?.buildID !== status?.currentVersion?.buildID;
}

/**
 * A rollout waits on Temporal to list its target: the target's Deployments are all available, so
 * its workers' first polls are what it waits for. Before that, the Deployments' becoming available
 * brings the reconcile; a change of pollers then would only cost a read, and queue its worker
 * deployment ahead of rollouts whose builds are ready.
 */
function waitsOnRegistration(twd: TemporalWorkerDeployment | undefined, caches: FiguresCaches): boolean {
  const target = twd?.status?.targetVersion?.buildID;
  if (!twd || target === undefined || !rolloutWaits(twd)) return false;
  const builds = caches.deployments
    .list(twd.metadata.namespace)
    .filter((d) => ownerOf(d) === twd.metadata.name && d.metadata?.labels?.[LABELS.buildId] === target);
  return builds.length > 0 && builds.every((d) => observeDeployment(d)?.available);
}

/**
 * Whether the pollers were last read before a build's Deployments last became available and an
 * interval has passed since: a Pod that has just come (a rollout, a scale-up) has polled by then,
 * so the workers each build has are counted once it has settled, not at the next idle read.
 */
function pollersBehind(
  twd: TemporalWorkerDeployment,
  readAt: Date | undefined,
  now: number,
  pollIntervalMs: number,
): boolean {
  const { status } = twd;
  const since = [status?.targetVersion, status?.currentVersion, ...(status?.deprecatedVersions ?? [])].map((v) =>
    v?.healthySince ? Date.parse(v.healthySince) : -Infinity,
  );
  const settledAt = Math.max(...since) + pollIntervalMs;
  return now >= settledAt && (readAt?.getTime() ?? -Infinity) < settledAt;
}

/** The collector of the backlogs, task queues and pollers; a change of pollers queues its worker deployment. */
export function temporalFigures(options: TemporalFiguresOptions): TemporalFiguresReader {
  const { caches, pollIntervalMs, log } = options;
  const timers = options.timers ?? realTimers;
  // An ask keeps a build read for as long as the figures it reads are served.
  const demand = new BacklogDemand({ lapseMs: figuresLifetimeMs(pollIntervalMs), now: () => timers.now() });
  const learnt = new Map<string, LearntQueues>();
  const collector: FiguresCollector<TemporalFigures> = new FiguresCollector<TemporalFigures>({
    sources: () => figuresSources(options, demand, learnt, timers.now(), (key) => collector.latest(key)?.readAt),
    onRead: ({ value, readAt }, previous) => {
      if (value.kind === 'backlog') {
        const { namespace, workerDeployment, buildId } = value.build;
        const queues = value.queues.map(({ taskQueue: name, type }) => ({ name, type }));
        learn(learnt, buildKey(namespace, workerDeployment, buildId), queues, readAt.getTime());
        return;
      }
      if (value.kind === 'queues') return learn(learnt, value.build, value.queues, readAt.getTime());
      // A change of pollers is news for the status, which says how many workers each build has.
      if (samePollers(value, previous?.value)) return;
      // Routine news but while a rollout waits on its target's registration: then it is its progress.
      const twd = caches.workerDeployments.get(value.namespace, value.workerDeployment);
      for (const key of queueKeys('workerDeployment', value.namespace, value.workerDeployment))
        options.enqueue(key, waitsOnRegistration(twd, caches) ? 'top' : 'low');
    },
    pollIntervalMs,
    log,
    timers,
  });
  const ask = (asked: BacklogAsk): boolean =>
    asked.by === 'scrape'
      ? demand.askEvery()
      : demand.ask(
          liveBuilds(caches, asked.namespace)
            .filter((build) => asked.picks(build))
            .map(({ key }) => key),
        );
  return {
    start: () => collector.start(),
    stop: () => collector.stop(),
    backlog: (asked) => {
      if (asked && ask(asked)) collector.lookSoon();
      return collector
        .fresh()
        .flatMap(({ value, readAt }) =>
          value.kind === 'backlog' ? [{ ...value.build, readAt, queues: value.queues }] : [],
        );
    },
    pollers: (namespace, name) => {
      const latest = collector.latest(pollersKey(namespace, name));
      if (latest?.value.kind !== 'pollers') return undefined;
      const { workers, taskQueues, polled } = latest.value;
      return { readAt: latest.readAt, workers, taskQueues, polled };
    },
  };
}

/** Keeps what a read listed of a build's queues, in one order whatever Temporal's (a change is news, an order is not). */
function learn(learnt: Map<string, LearntQueues>, key: string, read: readonly TaskQueueRef[], at: number): void {
  const queues = sortedTaskQueues(read);
  const before = learnt.get(key);
  learnt.set(key, { queues, at, confirmed: queues.length > 0 && sameJson(before?.queues, queues) });
}

/** Whether a build's queues are to be read now (on their own: a build whose backlog is read has them with it). */
function queuesDue(learnt: LearntQueues | undefined, now: number, pollIntervalMs: number): boolean {
  // Unknown, or none recorded yet: read, and again until some are.
  if (!learnt || learnt.queues.length === 0) return true;
  return now - learnt.at >= (learnt.confirmed ? QUEUES_RELEARN_MS : WAITING_INTERVALS * pollIntervalMs);
}

/** Each build with replicas (one per build, whatever its pools) of a worker deployment whose connection is cached. */
function liveBuilds(caches: FiguresCaches, namespace?: string): LiveBuild[] {
  const builds = new Map<string, LiveBuild>();
  for (const deployment of caches.deployments.list(namespace)) {
    const buildId = deployment.metadata?.labels?.[LABELS.buildId];
    const owner = ownerOf(deployment);
    // Nothing may scale a build at zero back up (its autoscalers are gone): no read is spent on it.
    if (!buildId || !owner || deployment.spec?.replicas === 0) continue;
    const ns = deployment.metadata?.namespace ?? '';
    const key = buildKey(ns, owner, buildId);
    if (builds.has(key)) continue;
    const twd = caches.workerDeployments.get(ns, owner);
    const connection = twd && caches.connections.usedBy(twd);
    if (twd && connection) builds.set(key, { key, namespace: ns, workerDeployment: owner, buildId, twd, connection });
  }
  return [...builds.values()];
}

/** Whether an owned resource's spec names a backlog figure, kept per spec object (a changed spec is a new one). */
const specNamesBacklog = new WeakMap<object, boolean>();

/** The builds of a worker deployment with a copy of an owned autoscaler that scales on a backlog figure. */
function autoscaledOnBacklog(caches: FiguresCaches, twd: TemporalWorkerDeployment): Set<string> {
  const { namespace = '', name } = twd.metadata;
  const builds = new Set<string>();
  for (const twor of caches.ownedResources.list(namespace)) {
    const { spec } = twor;
    if (spec.workerRef.name !== name || !AUTOSCALER_KINDS.includes(spec.object.kind)) continue;
    let names = specNamesBacklog.get(spec);
    if (names === undefined)
      specNamesBacklog.set(spec, (names = namesBacklogFigure([spec.object, spec.stateOverrides])));
    if (!names) continue;
    for (const copy of twor.status?.versions ?? []) if (copy.applied || copy.appliedHash) builds.add(copy.buildID);
  }
  return builds;
}

/** The queues the status remembers for a build (see status/task-queues.ts), for a leader that has not read them yet. */
function rememberedQueues(twd: TemporalWorkerDeployment, buildId: string): TaskQueueRef[] {
  const { status } = twd;
  const said = [status?.targetVersion, status?.currentVersion, ...(status?.deprecatedVersions ?? [])];
  return said.find((v) => v?.buildID === buildId && v.taskQueues?.length)?.taskQueues ?? [];
}

/**
 * Each build something asks for (its backlog), each build's task queues when due, and each worker
 * deployment whose builds' queues are known (its pollers), with how to read them within the
 * Temporal namespace's read budget.
 */
function figuresSources(
  { caches, temporal, pollIntervalMs, pollerHistoryMs }: TemporalFiguresOptions,
  demand: BacklogDemand,
  learnt: Map<string, LearntQueues>,
  now: number,
  readAt: (key: string) => Date | undefined,
): FiguresSource<TemporalFigures>[] {
  demand.prune();
  const sources: FiguresSource<TemporalFigures>[] = [];
  const perWorkerDeployment = new Map<
    string,
    { pollers: PollersSource; autoscaled: Set<string>; stateOf: ReturnType<typeof buildStates> }
  >();
  const listed = new Set<string>();
  for (const { key, namespace, workerDeployment: owner, buildId, twd, connection } of liveBuilds(caches)) {
    listed.add(key);
    const temporalNamespace = twd.spec.workerOptions.temporalNamespace;
    const takeRead = () => temporal.reads.mayReadBacklog(connection.spec.hostPort, temporalNamespace);
    const target = async () => ({
      service: await temporal.paced(connection),
      namespace: temporalNamespace,
      deploymentName: temporalDeploymentName(namespace, owner),
    });
    let shared = perWorkerDeployment.get(pollersKey(namespace, owner));
    if (!shared) {
      const behind = pollersBehind(twd, readAt(pollersKey(namespace, owner)), now, pollIntervalMs);
      // Temporal remembers pollers for minutes: idle, twice within that is enough for NoPollers.
      const idle = !rolloutWaits(twd) && !behind;
      const everyMs = Math.max(WAITING_INTERVALS * pollIntervalMs, idle ? Math.round(pollerHistoryMs / 2) : 0);
      // A build just available (one read), or an available target Temporal has yet to list (until
      // it does), goes before the backlogs a scrape asks for: among 1,000 those kept a new build's
      // workers uncounted for minutes. A ramp, which lasts, does not: its backlogs feed autoscalers.
      const targetVersion = twd.status?.targetVersion;
      const first = behind || (targetVersion?.status === 'NotRegistered' && targetVersion.healthySince !== undefined);
      shared = {
        pollers: pollersSource({ namespace, workerDeployment: owner, takeRead, target, everyMs, first }),
        autoscaled: autoscaledOnBacklog(caches, twd),
        stateOf: buildStates(twd.status),
      };
      perWorkerDeployment.set(pollersKey(namespace, owner), shared);
    }
    // An owned autoscaler's copy reads the build's figures for as long as it is there.
    if (shared.autoscaled.has(buildId)) demand.ask([key]);
    const remembered = learnt.has(key) ? [] : rememberedQueues(twd, buildId);
    if (remembered.length > 0) learnt.set(key, { queues: sortedTaskQueues(remembered), at: now, confirmed: true });
    if (demand.wanted(key)) {
      const pools = Object.fromEntries(
        (twd.spec.pools ?? []).flatMap((pool) => (pool.taskQueue ? [[pool.taskQueue, pool.name]] : [])),
      );
      const build = { namespace, workerDeployment: owner, buildId, pools };
      sources.push({
        key: `backlog/${key}`,
        takeRead,
        read: async () => ({ kind: 'backlog', build, queues: await readVersionBacklog(await target(), buildId) }),
      });
    } else if (
      // A build Temporal has not been seen to list has no record to read: the pollers of the
      // queues known already see its workers come, and a reconcile its registration.
      shared.stateOf(buildId) !== 'NotRegistered' &&
      queuesDue(learnt.get(key), now, pollIntervalMs)
    ) {
      sources.push({
        key: `queues/${key}`,
        takeRead,
        read: async () => ({
          kind: 'queues',
          build: key,
          queues: await readVersionTaskQueues(await target(), buildId),
        }),
        // A build just listed may not have its queues recorded yet: asked again at the next interval.
        everyMs: learnt.get(key)?.queues.length === 0 ? pollIntervalMs : WAITING_INTERVALS * pollIntervalMs,
      });
    }
    const queues = learnt.get(key)?.queues ?? [];
    if (queues.length > 0) shared.pollers.taskQueues[buildId] = queues;
    for (const { name, type } of queues)
      if (type === 'workflow' || type === 'activity') shared.pollers.queues.set(`${type}/${name}`, { name, type });
  }
  for (const key of learnt.keys()) if (!listed.has(key)) learnt.delete(key);
  // A worker deployment none of whose builds' queues are known yet has no pollers to read.
  const pollers = [...perWorkerDeployment.values()].map((shared) => shared.pollers).filter((p) => p.queues.size > 0);
  return [...sources, ...pollers];
}

/**
 * The read of a worker deployment's pollers: on the workflow and activity queues its builds are
 * known to have (filled in within one look), each build's queues kept beside them.
 */
function pollersSource({
  namespace,
  workerDeployment,
  takeRead,
  target,
  everyMs,
  first,
}: {
  namespace: string;
  workerDeployment: string;
  takeRead: () => boolean;
  target: () => Promise<TaskQueueTarget>;
  everyMs: number;
  first: boolean;
}): PollersSource {
  const queues: PollersSource['queues'] = new Map();
  const taskQueues: PollersSource['taskQueues'] = {};
  return {
    key: pollersKey(namespace, workerDeployment),
    everyMs,
    ...(first ? { first } : {}),
    queues,
    taskQueues,
    takeRead,
    read: async () => ({
      kind: 'pollers',
      namespace,
      workerDeployment,
      taskQueues,
      ...(await readPollers(await target(), sortedTaskQueues(queues.values()))),
    }),
  };
}
