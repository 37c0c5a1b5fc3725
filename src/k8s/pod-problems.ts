// What a Pod says keeps it from running, read from its status as the kubelet wrote it. Pure.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { PodProblem } from '../domain/snapshot.ts';
import { LABELS } from './names.ts';

/** Waiting reasons of a container on its way up: nothing is wrong yet. */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);

export function podProblems(pod: V1Pod): PodProblem[] {
  const buildId = pod.metadata?.labels?.[LABELS.buildId];
  const name = pod.metadata?.name;
  if (!buildId || !name || pod.metadata?.deletionTimestamp) return [];
  // No node for it: its containers have no status yet. With a cluster autoscaler the Pod may still
  // get a node, and the message says what it waits for.
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable')
    return [{ pod: name, buildId, reason: 'Unschedulable', message: scheduled.message ?? '' }];
  const failed = pod.status?.phase === 'Failed';
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const problems = statuses.flatMap((status) => {
    const problem = containerProblem(status, failed);
    return problem ? [{ pod: name, buildId, container: status.name, ...problem }] : [];
  });
  if (problems.length === 0 && failed)
    return [{ pod: name, buildId, reason: pod.status?.reason ?? 'Failed', message: pod.status?.message ?? '' }];
  return problems;
}

function containerProblem(
  status: V1ContainerStatus,
  podFailed: boolean,
): { reason: string; message: string } | undefined {
  const waiting = status.state?.waiting;
  if (waiting?.reason && !STARTING.has(waiting.reason)) {
    // The back-off message changes at every restart; why the container ended does not.
    const ended = status.lastState?.terminated;
    const message =
      waiting.reason === 'CrashLoopBackOff' && ended
        ? `it ended with exit code ${ended.exitCode}${ended.message ? `: ${ended.message}` : ended.reason ? ` (${ended.reason})` : ''}`
        : (waiting.message ?? '');
    return { reason: waiting.reason, message };
  }
  const terminated = status.state?.terminated;
  if (podFailed && terminated && terminated.exitCode !== 0)
    return {
      reason: terminated.reason ?? 'Error',
      message: terminated.message ?? `it ended with exit code ${terminated.exitCode}`,
    };
  return undefined;
}
