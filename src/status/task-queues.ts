// Each build's task queues, as the status lists them: what the leader last read of Temporal (with
// the build's backlog), else the target's queues as this reconcile read them, else what the status
// remembered, as a build scaled to zero is read no more. An empty list (a version whose queues
// Temporal has not recorded yet) says nothing. Pure.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { sortedTaskQueues, type TaskQueueRef } from '../domain/pollers.ts';
import type { BuildTaskQueues } from '../domain/snapshot.ts';

export function knownTaskQueues(
  previous: TemporalWorkerDeployment['status'],
  read: Readonly<Record<string, readonly TaskQueueRef[]>> | undefined,
  target?: { buildId: string; taskQueues: BuildTaskQueues },
): Record<string, TaskQueueRef[]> {
  const known: Record<string, TaskQueueRef[]> = {};
  const say = (buildId: string, queues: readonly TaskQueueRef[] | undefined) => {
    if (queues?.length && !known[buildId]) known[buildId] = sortedTaskQueues(queues);
  };
  for (const [buildId, queues] of Object.entries(read ?? {})) say(buildId, queues);
  if (target)
    say(target.buildId, [
      ...target.taskQueues.workflow.map((name) => ({ name, type: 'workflow' as const })),
      ...target.taskQueues.activity.map((name) => ({ name, type: 'activity' as const })),
    ]);
  for (const v of [previous?.targetVersion, previous?.currentVersion, ...(previous?.deprecatedVersions ?? [])])
    if (v) say(v.buildID, v.taskQueues);
  return known;
}
