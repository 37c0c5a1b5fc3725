// What the controller's caches keep of each object (src/k8s/cached-objects.ts, the `keep` of each
// row of the watch table): on objects as a real API server sent them (test/support/captured-
// objects.json, `node test/bench/cache-memory.bench.ts --capture`) and on Pods in each kind of
// trouble, every reader of the cache answers on the kept object as on the whole one, and what no
// reader reads is gone.
import type { V1Deployment, V1ObjectMeta, V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { FORCE_DELETE_ANNOTATION, RETRY_GATE_ANNOTATION } from '../../src/domain/annotations.ts';
import { deploymentFacts, ownerOf, WATCHES } from '../../src/controller/watches.ts';
import { changeOf } from '../../src/controller/worker-deployment-changes.ts';
import { replacementOf } from '../../src/k8s/deployment-drift.ts';
import { observeDeployment } from '../../src/k8s/observed-deployment.ts';
import { podProblems } from '../../src/k8s/pod-problems.ts';

const captured = JSON.parse(
  readFileSync(path.join(import.meta.dirname, '../support/captured-objects.json'), 'utf8'),
) as {
  TemporalWorkerDeployment: TemporalWorkerDeployment[];
  TemporalConnection: TemporalConnection[];
  Deployment: V1Deployment[];
  Pod: V1Pod[];
};

const keepPod = (pod: V1Pod) => WATCHES.Pod.keep(structuredClone(pod));
const keepDeployment = (deployment: V1Deployment) => WATCHES.Deployment.keep(structuredClone(deployment));
const keepWorkerDeployment = (twd: TemporalWorkerDeployment) =>
  WATCHES.TemporalWorkerDeployment.keep(structuredClone(twd));

test('the captured objects are whole, as the API server sends them (managedFields, Pod specs)', () => {
  for (const objects of Object.values(captured)) {
    assert.ok(objects.length > 0);
    for (const object of objects) assert.ok((object.metadata as V1ObjectMeta).managedFields?.length);
  }
  for (const pod of captured.Pod) assert.ok(pod.spec?.containers.length);
});

const [runningPod] = captured.Pod;
/** The captured running Pod with another status, as a kubelet or scheduler reports trouble. */
const podWith = (status: V1Pod['status'], metadata: Partial<V1Pod['metadata']> = {}): V1Pod => ({
  ...structuredClone(runningPod!),
  metadata: { ...structuredClone(runningPod!.metadata), ...metadata },
  status: { ...structuredClone(runningPod!.status), ...status },
});
const containerStatus = (more: object) => ({
  name: 'worker',
  image: 'sample-worker',
  imageID: 'docker://sha256:abc',
  containerID: 'containerd://0123',
  ready: false,
  restartCount: 4,
  started: false,
  ...more,
});
const troubledPods: [string, V1Pod][] = [
  ['running', runningPod!],
  [
    'unschedulable',
    podWith({
      phase: 'Pending',
      containerStatuses: [],
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/3 nodes are available: 3 Insufficient memory.',
          lastProbeTime: undefined,
          lastTransitionTime: new Date('2026-11-27T05:49:50Z'),
        },
      ],
    }),
  ],
  [
    'crash loop',
    podWith({
      containerStatuses: [
        containerStatus({
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container' } },
          lastState: {
            terminated: { exitCode: 3, reason: 'Error', message: 'cannot reach Temporal', startedAt: new Date(0) },
          },
        }),
      ],
    }),
  ],
  [
    'image pull',
    podWith({
      containerStatuses: [
        containerStatus({ state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } } }),
      ],
    }),
  ],
  [
    'init container',
    podWith({
      phase: 'Pending',
      initContainerStatuses: [
        containerStatus({
          name: 'setup',
          state: { waiting: { reason: 'CreateContainerConfigError', message: 'secret "db" not found' } },
        }),
      ],
      containerStatuses: [containerStatus({ state: { waiting: { reason: 'PodInitializing' } } })],
    }),
  ],
  [
    'failed container',
    podWith({
      phase: 'Failed',
      containerStatuses: [containerStatus({ state: { terminated: { exitCode: 2, reason: 'Error' } } })],
    }),
  ],
  [
    'evicted',
    podWith({
      phase: 'Failed',
      reason: 'Evicted',
      message: 'The node was low on resource: memory.',
      containerStatuses: [],
    }),
  ],
  [
    'being deleted',
    podWith(
      { containerStatuses: [containerStatus({ state: { waiting: { reason: 'ErrImagePull', message: 'no' } } })] },
      { deletionTimestamp: new Date('2026-11-27T06:00:00Z') },
    ),
  ],
];

test('a Pod as cached says the same trouble, and queues the same worker deployment, as the whole Pod', () => {
  for (const [what, pod] of troubledPods) {
    const kept = keepPod(pod);
    assert.deepEqual(podProblems(kept), podProblems(pod), what);
    assert.equal(WATCHES.Pod.memory.key(kept), WATCHES.Pod.memory.key(pod), what);
    for (const event of ['add', 'update', 'delete'] as const) {
      assert.equal(WATCHES.Pod.memory.of(event, kept), WATCHES.Pod.memory.of(event, pod), what);
      assert.deepEqual(WATCHES.Pod.keys(event, kept, undefined), WATCHES.Pod.keys(event, pod, undefined), what);
    }
  }
  // A test of the test: the troubles above are troubles.
  assert.equal(troubledPods.filter(([, pod]) => podProblems(pod).length > 0).length, 6);
});

test("a Pod as cached is its name, namespace, uid, resourceVersion, labels and deletion, and its status's phase, reason, message, scheduling and containers' states", () => {
  const kept = keepPod(troubledPods.find(([what]) => what === 'being deleted')![1]);
  assert.deepEqual(Object.keys(kept).sort(), ['metadata', 'status']);
  assert.deepEqual(Object.keys(kept.metadata ?? {}).sort(), [
    'deletionTimestamp',
    'labels',
    'name',
    'namespace',
    'resourceVersion',
    'uid',
  ]);
  assert.deepEqual(Object.keys(kept.status ?? {}).sort(), ['conditions', 'containerStatuses', 'phase']);
  assert.deepEqual(kept.status?.conditions, [{ type: 'PodScheduled', status: 'True' }]);
  const crashing = keepPod(troubledPods.find(([what]) => what === 'crash loop')![1]);
  assert.deepEqual(Object.keys(crashing.status?.containerStatuses?.[0] ?? {}).sort(), ['lastState', 'name', 'state']);
  // The whole Pod's JSON is several times the kept one's.
  assert.ok(JSON.stringify(kept).length * 4 < JSON.stringify(runningPod).length);
});

const [availableDeployment] = captured.Deployment;
/** The captured Deployment with other conditions, as the Deployment controller reports a rollout under way or stuck. */
const deploymentWith = (status: V1Deployment['status']): V1Deployment => ({
  ...structuredClone(availableDeployment!),
  status: { ...structuredClone(availableDeployment!.status), ...status },
});
const condition = (type: string, status: string, reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
  lastUpdateTime: new Date('2026-11-27T05:52:00Z'),
  lastTransitionTime: new Date('2026-11-27T05:51:00Z'),
});
const deploymentsInEachState: [string, V1Deployment][] = [
  ...captured.Deployment.map((d, i): [string, V1Deployment] => [`captured ${i}`, d]),
  [
    'rolling',
    deploymentWith({
      availableReplicas: 1,
      readyReplicas: 1,
      conditions: [
        condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'),
        condition('Progressing', 'True', 'ReplicaSetUpdated', 'ReplicaSet "x" is progressing.'),
      ],
    }),
  ],
  [
    'stuck',
    deploymentWith({
      availableReplicas: 0,
      unavailableReplicas: 2,
      conditions: [
        condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'),
        condition('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "x" has timed out progressing.'),
        condition('ReplicaFailure', 'True', 'FailedCreate', 'pods "x" is forbidden: exceeded quota'),
      ],
    }),
  ],
  ['not yet seen by the Deployment controller', deploymentWith({ observedGeneration: 0, conditions: undefined })],
];

test('a Deployment as cached: its metadata but managedFields and its spec whole, of its status what is read; observed, owned and replaced the same', () => {
  const connection = { hostPort: 'temporal.example:7233' };
  for (const [state, deployment] of deploymentsInEachState) {
    const kept = keepDeployment(deployment);
    const { managedFields, ...metadata } = deployment.metadata ?? {};
    assert.ok(managedFields);
    assert.deepEqual(kept.metadata, metadata, state);
    assert.deepEqual(kept.spec, deployment.spec, state);
    assert.deepEqual(observeDeployment(kept), observeDeployment(deployment), state);
    assert.equal(ownerOf(kept), ownerOf(deployment), state);
    assert.deepEqual(replacementOf(kept, undefined, connection), replacementOf(deployment, undefined, connection));
    assert.equal(deploymentFacts(kept), deploymentFacts(deployment), `${state}: what its events are judged by`);
    assert.deepEqual(WATCHES.Deployment.reads('update', kept), WATCHES.Deployment.reads('update', deployment));
  }
  const stuck = keepDeployment(deploymentsInEachState.find(([state]) => state === 'stuck')![1]);
  assert.deepEqual(stuck.status, {
    observedGeneration: 1,
    replicas: 2,
    updatedReplicas: 2,
    availableReplicas: 0,
    conditions: [
      { type: 'Available', status: 'False', lastTransitionTime: new Date('2026-11-27T05:51:00Z') },
      {
        type: 'Progressing',
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
        message: 'ReplicaSet "x" has timed out progressing.',
      },
    ],
  });
});

test('a worker deployment as cached: spec, status and metadata but managedFields, and of its annotations those the controller acts on', () => {
  const [twd] = captured.TemporalWorkerDeployment;
  const annotated: TemporalWorkerDeployment = {
    ...twd!,
    metadata: {
      ...twd!.metadata,
      annotations: {
        [RETRY_GATE_ANNOTATION]: '2',
        [FORCE_DELETE_ANNOTATION]: 'true',
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ spec: twd!.spec }),
        'argocd.argoproj.io/tracking-id': 'shop:temporal.io/TemporalWorkerDeployment:shop/orders',
      },
    },
  };
  for (const whole of [twd!, annotated]) {
    const kept = keepWorkerDeployment(whole);
    assert.equal((kept.metadata as V1ObjectMeta).managedFields, undefined);
    assert.deepEqual(kept.spec, whole.spec);
    assert.deepEqual(kept.status, whole.status);
    assert.equal(changeOf(kept), changeOf(whole));
    const { managedFields, annotations, ...metadata } = whole.metadata as V1ObjectMeta;
    assert.ok(managedFields);
    const { annotations: keptAnnotations, ...keptMetadata } = kept.metadata;
    assert.deepEqual(keptMetadata, metadata);
    assert.deepEqual(
      keptAnnotations,
      annotations === annotated.metadata.annotations
        ? { [RETRY_GATE_ANNOTATION]: '2', [FORCE_DELETE_ANNOTATION]: 'true' }
        : undefined,
    );
  }
});

test('connections and owned resources as cached: all but their managedFields', () => {
  const [connection] = captured.TemporalConnection;
  const kept = WATCHES.TemporalConnection.keep(structuredClone(connection!));
  const { managedFields, ...metadata } = connection!.metadata as V1ObjectMeta;
  assert.ok(managedFields);
  assert.deepEqual(kept, { ...connection, metadata });
  const twor = { metadata: { name: 'orders-hpa', managedFields }, spec: { workerRef: { name: 'orders' } } };
  assert.deepEqual(WATCHES.TemporalWorkerOwnedResource.keep(twor as never), {
    metadata: { name: 'orders-hpa' },
    spec: { workerRef: { name: 'orders' } },
  });
  assert.deepEqual(WATCHES.TemporalClusterConnection.keep(structuredClone(connection!)), kept);
});
