// The Pod status a kubelet would report for the one worker container, as the body of a merge
// patch. Pure: `now` is passed in.
import type { V1ContainerState, V1Pod, V1PodCondition, V1PodStatus } from '@kubernetes/client-node';

const NODE_IP = '127.0.0.1';

export type WorkerState =
  /** Running; Ready once it polls, or, with a readiness probe, when the probe says so. */
  | { kind: 'running'; ready: boolean; restarts: number }
  /** Not running and waiting to be tried again: CreateContainerConfigError or CrashLoopBackOff. */
  | { kind: 'waiting'; reason: string; message: string; restarts: number; lastFailure?: string }
  /** Stopped for good (restartPolicy Never): the Pod is Failed. */
  | { kind: 'failed'; message: string; restarts: number };

/** `podIP`: the Pod's own network's address, when it has one (else the node's). */
export function podStatus(pod: V1Pod, worker: WorkerState, now: Date, podIP = NODE_IP): V1PodStatus {
  const ready = worker.kind === 'running' && worker.ready;
  const everStarted = worker.kind !== 'waiting' || worker.restarts > 0;
  const state: V1ContainerState =
    worker.kind === 'running'
      ? { running: { startedAt: now } }
      : worker.kind === 'waiting'
        ? { waiting: { reason: worker.reason, message: worker.message } }
        : { terminated: { exitCode: 1, reason: 'Error', message: worker.message, finishedAt: now } };
  const lastState: V1ContainerState | undefined =
    worker.kind === 'waiting' && worker.lastFailure
      ? { terminated: { exitCode: 1, reason: 'Error', message: worker.lastFailure, finishedAt: now } }
      : undefined;
  const message = worker.kind === 'running' ? undefined : worker.message;
  const condition = (type: string, status: boolean): V1PodCondition => ({
    type,
    status: status ? 'True' : 'False',
    lastTransitionTime: now,
    ...(status || !message ? {} : { reason: 'WorkerNotRunning', message }),
  });
  return {
    phase: worker.kind === 'failed' ? 'Failed' : everStarted ? 'Running' : 'Pending',
    hostIP: NODE_IP,
    hostIPs: [{ ip: NODE_IP }],
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: pod.status?.startTime ?? now,
    conditions: [
      condition('PodScheduled', true),
      condition('Initialized', true),
      condition('ContainersReady', ready),
      condition('Ready', ready),
    ],
    containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image ?? '',
      imageID: '',
      ready,
      started: worker.kind === 'running',
      restartCount: worker.restarts,
      state,
      ...(lastState ? { lastState } : {}),
    })),
  };
}
