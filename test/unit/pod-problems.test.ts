// What a Pod's status says keeps it from running (podProblems), on Pods as a kubelet reports them.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podProblems } from '../../src/k8s/pod-problems.ts';

const pod = (status: V1Pod['status'], more: Partial<V1Pod['metadata']> = {}): V1Pod => ({
  metadata: { name: 'orders-v2-a', labels: { 'temporal.io/build-id': 'v2' }, ...more },
  status,
});
const container = (
  state: V1ContainerStatus['state'],
  lastState?: V1ContainerStatus['lastState'],
): V1ContainerStatus => ({
  name: 'worker',
  image: 'i',
  imageID: '',
  ready: false,
  restartCount: 0,
  state,
  ...(lastState ? { lastState } : {}),
});
const waiting = (reason: string, message: string) => container({ waiting: { reason, message } });

test('a container waiting on a failure is a problem, one on its way up is not', () => {
  const cases: [string, V1ContainerStatus, string | undefined][] = [
    ['configuration', waiting('CreateContainerConfigError', 'secret "db" not found'), 'secret "db" not found'],
    ['image', waiting('ImagePullBackOff', 'Back-off pulling image'), 'Back-off pulling image'],
    ['image pull', waiting('ErrImagePull', 'not found'), 'not found'],
    ['creating', waiting('ContainerCreating', ''), undefined],
    ['initializing', waiting('PodInitializing', ''), undefined],
    ['running', container({ running: {} }), undefined],
  ];
  for (const [what, status, message] of cases) {
    const problems = podProblems(pod({ phase: 'Pending', containerStatuses: [status] }));
    assert.deepEqual(
      problems,
      message === undefined
        ? []
        : [{ pod: 'orders-v2-a', buildId: 'v2', container: 'worker', reason: status.state?.waiting?.reason, message }],
      what,
    );
  }
});

test('a crash loop says why the container ended, not the back-off that changes at every restart', () => {
  const crash = (terminated: NonNullable<V1ContainerStatus['lastState']>['terminated']) =>
    podProblems(
      pod({
        phase: 'Running',
        containerStatuses: [
          container({ waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s' } }, { terminated }),
        ],
      }),
    ).map((p) => p.message);
  assert.deepEqual(crash({ exitCode: 1, message: 'cannot reach Temporal' }), [
    'it ended with exit code 1: cannot reach Temporal',
  ]);
  assert.deepEqual(crash({ exitCode: 137, reason: 'OOMKilled' }), ['it ended with exit code 137 (OOMKilled)']);
  assert.deepEqual(crash({ exitCode: 2 }), ['it ended with exit code 2']);
  const noLastState = podProblems(pod({ containerStatuses: [waiting('CrashLoopBackOff', 'back-off 20s')] }));
  assert.deepEqual(
    noLastState.map((p) => p.message),
    ['back-off 20s'],
  );
});

test('a failed Pod: its failed containers, or the Pod itself when none says more', () => {
  const failedContainer = container({ terminated: { exitCode: 3, message: 'no-such-namespace' } });
  assert.deepEqual(podProblems(pod({ phase: 'Failed', containerStatuses: [failedContainer] })), [
    { pod: 'orders-v2-a', buildId: 'v2', container: 'worker', reason: 'Error', message: 'no-such-namespace' },
  ]);
  assert.deepEqual(
    podProblems(pod({ phase: 'Running', containerStatuses: [failedContainer] })),
    [],
    'a container that ended in a Pod still running is restarted: no problem yet',
  );
  assert.deepEqual(podProblems(pod({ phase: 'Failed', reason: 'Evicted', message: 'low on memory' })), [
    { pod: 'orders-v2-a', buildId: 'v2', reason: 'Evicted', message: 'low on memory' },
  ]);
  assert.deepEqual(podProblems(pod({ phase: 'Failed' })), [
    { pod: 'orders-v2-a', buildId: 'v2', reason: 'Failed', message: '' },
  ]);
});

test('init containers count; a Pod being deleted or without a build label says nothing', () => {
  const init = { phase: 'Pending', initContainerStatuses: [waiting('ImagePullBackOff', 'x')] };
  assert.equal(podProblems(pod(init))[0]?.reason, 'ImagePullBackOff');
  assert.deepEqual(podProblems(pod(init, { deletionTimestamp: new Date() })), []);
  assert.deepEqual(podProblems(pod(init, { labels: {} })), []);
});

test('a Pod no node can take says what the scheduler said; one not yet scheduled says nothing', () => {
  const scheduled = (status: string, reason?: string) =>
    podProblems(
      pod({
        phase: 'Pending',
        conditions: [
          { type: 'PodScheduled', status, ...(reason ? { reason } : {}), message: '0/2 nodes are available' },
        ],
      }),
    );
  assert.deepEqual(scheduled('False', 'Unschedulable'), [
    { pod: 'orders-v2-a', buildId: 'v2', reason: 'Unschedulable', message: '0/2 nodes are available' },
  ]);
  assert.deepEqual(scheduled('False', 'SchedulingGated'), []);
  assert.deepEqual(scheduled('True'), []);
});
