// The copies of owned resources, rendered (renderCopies) and decided on (planOwnedResources): one
// per twor and Deployment of a build, named to fit and unique, owned by the Deployment, with
// scaleTargetRef and matchLabels filled in and placeholders replaced; a copy that cannot be
// rendered refused alone; nothing written twice; no autoscaler for a build at zero.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CopyTarget } from '../../src/domain/owned-resources.ts';
import {
  copyName,
  type OwnedResourceSource,
  ownedResourceLabel,
  renderCopies,
} from '../../src/k8s/owned-resource-copies.ts';
import { type PlannedCopy, planOwnedResources } from '../../src/planner/owned-resources.ts';

const workerDeployment = { name: 'orders', namespace: 'shop', temporalNamespace: 'orders-prod' };
const target = (buildId: string, more: Partial<CopyTarget> = {}): CopyTarget => ({
  deployment: `orders-${buildId}`,
  uid: `uid-${buildId}`,
  buildId,
  state: 'Current',
  ...more,
});
const hpa: OwnedResourceSource = {
  name: 'orders-hpa',
  object: {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { labels: { team: 'payments' }, annotations: { note: 'for {{ .BuildID }}' } },
    spec: {
      scaleTargetRef: {},
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [
        {
          type: 'External',
          external: {
            metric: {
              name: 'temporal_backlog',
              selector: { matchLabels: { build: '{{ .BuildID }}', ns: '{{ .TemporalNamespace }}' } },
            },
          },
        },
      ],
    },
  },
};
const pdb: OwnedResourceSource = {
  name: 'orders-pdb',
  object: {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    spec: { maxUnavailable: 1, selector: { matchLabels: {} } },
  },
};
type Applied = Record<string, { hash?: string }>;
/** Every copy of these twors for these Deployments, decided on with what each twor's status says was applied. */
const plan = (twors: OwnedResourceSource[], targets: CopyTarget[], applied: Record<string, Applied> = {}) =>
  planOwnedResources(renderCopies({ workerDeployment, twors, targets }), applied);
const applied = (copy: PlannedCopy) => {
  assert.equal(copy.outcome, 'apply', JSON.stringify(copy));
  return copy;
};

test('one copy per twor and Deployment, owned by the Deployment, its target and selector filled in and strings templated', () => {
  const copies = plan([hpa, pdb], [target('v1'), target('v2')]);
  assert.deepEqual(
    copies.map((c) => `${c.twor} ${c.buildId} ${c.outcome}`),
    ['orders-hpa v1 apply', 'orders-hpa v2 apply', 'orders-pdb v1 apply', 'orders-pdb v2 apply'],
  );
  const first = applied(copies[0]!).object as {
    metadata: Record<string, unknown>;
    spec: { scaleTargetRef: unknown; metrics: { external: { metric: { selector: unknown } } }[] };
  };
  assert.deepEqual(first.metadata, {
    name: copyName('orders', 'orders-hpa', 'v1'),
    namespace: 'shop',
    labels: {
      team: 'payments',
      'temporal.io/deployment-name': 'orders',
      'temporal.io/build-id': 'v1',
      'temporal.io/owned-resource': 'orders-hpa',
      'app.kubernetes.io/managed-by': 'temporal-worker-controller',
    },
    annotations: { note: 'for v1' },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'orders-v1',
        uid: 'uid-v1',
        controller: true,
      },
    ],
  });
  assert.deepEqual(first.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'orders-v1' });
  assert.deepEqual(
    first.spec.metrics[0]?.external.metric.selector,
    {
      matchLabels: { build: 'v1', ns: 'orders-prod' },
    },
    'a matchLabels that is not empty is the user’s',
  );
  const pdbCopy = applied(copies[3]!).object as { spec: { selector: unknown } };
  assert.deepEqual(pdbCopy.spec.selector, {
    matchLabels: { 'temporal.io/deployment-name': 'orders', 'temporal.io/build-id': 'v2' },
  });
});

test('with pools, a copy per pool Deployment, selecting that pool, with its task queue as a placeholder', () => {
  const queue: OwnedResourceSource = {
    ...pdb,
    object: { ...pdb.object, metadata: { labels: { queue: '{{ .TaskQueue }}' } } },
  };
  const copies = plan(
    [queue],
    [
      target('v1', { pool: 'spot', taskQueue: 'ingest' }),
      target('v1', { pool: 'meta', taskQueue: 'ingest-meta', deployment: 'orders-meta-v1' }),
    ],
  );
  const [spot, meta] = copies.map(
    (c) =>
      applied(c).object as { metadata: { name: string; labels: Record<string, string> }; spec: { selector: unknown } },
  );
  assert.notEqual(spot?.metadata.name, meta?.metadata.name, 'one name per pool');
  assert.equal(meta?.metadata.labels.queue, 'ingest-meta');
  assert.deepEqual(meta?.spec.selector, {
    matchLabels: { 'temporal.io/deployment-name': 'orders', 'temporal.io/build-id': 'v1', 'temporal.io/pool': 'meta' },
  });
});

test('names: at most 47 characters, readable, and unique even when cut', () => {
  assert.match(copyName('orders', 'pdb', 'v1'), /^orders-pdb-v1-[0-9a-f]{8}$/);
  const long = 'a'.repeat(40);
  const names = ['build-1', 'build-2'].map((b) => copyName(long, long, b));
  for (const name of names) assert.ok(name.length <= 47 && /^[a-z0-9][a-z0-9-]*[a-z0-9]$/.test(name), name);
  assert.notEqual(names[0], names[1]);
  assert.notEqual(copyName('orders', 'pdb', 'v1', 'a'), copyName('orders', 'pdb', 'v1', 'b'));
  assert.equal(ownedResourceLabel('x'.repeat(63)), 'x'.repeat(63));
  assert.match(ownedResourceLabel('x'.repeat(64)), /^x{54}-[0-9a-f]{8}$/);
});

test('a copy that cannot be rendered is refused, naming the field; the others go on', () => {
  const typo: OwnedResourceSource = {
    name: 'typo',
    object: { apiVersion: 'v1', kind: 'ConfigMap', data: { build: '{{ .BuildId }}' } },
  };
  const toZero: OwnedResourceSource = {
    ...hpa,
    name: 'to-zero',
    object: { ...hpa.object, spec: { scaleTargetRef: {}, minReplicas: 0, maxReplicas: 3 } },
  };
  const keda = (name: string, spec: Record<string, unknown>): OwnedResourceSource => ({
    name,
    object: { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', spec: { scaleTargetRef: {}, ...spec } },
  });
  const copies = plan(
    [
      typo,
      toZero,
      keda('keda-default', {}),
      keda('keda-zero', { minReplicaCount: 0 }),
      keda('keda', { minReplicaCount: 1 }),
      pdb,
    ],
    [target('v1')],
  );
  assert.deepEqual(
    copies.map((c) => [c.twor, c.outcome, 'message' in c ? c.message : '']),
    [
      [
        'typo',
        'refused',
        'spec.object.data.build: {{ .BuildId }} is not a placeholder (DeploymentName, WorkerDeploymentName, BuildID, State, TemporalNamespace are)',
      ],
      [
        'to-zero',
        'refused',
        'spec.object.spec.minReplicas: 0 would let the autoscaler take a build that pinned workflows need to zero',
      ],
      [
        'keda-default',
        'refused',
        "spec.object.spec.minReplicaCount: unset (KEDA's default is 0) would let the autoscaler take a build that pinned workflows need to zero: set at least 1",
      ],
      [
        'keda-zero',
        'refused',
        'spec.object.spec.minReplicaCount: 0 would let the autoscaler take a build that pinned workflows need to zero: set at least 1',
      ],
      ['keda', 'apply', ''],
      ['orders-pdb', 'apply', ''],
    ],
  );
});

test('a copy rendered as last applied is not written again; a changed one is', () => {
  const first = applied(plan([pdb], [target('v1')])[0]!);
  const before = { 'orders-pdb': { [first.name]: { hash: first.hash } } };
  assert.deepEqual(
    plan([pdb], [target('v1')], before).map((c) => c.outcome),
    ['unchanged'],
  );
  const changed = plan([{ ...pdb, object: { ...pdb.object, spec: { maxUnavailable: 2 } } }], [target('v1')], before);
  assert.match(applied(changed[0]!).reason, /changed$/);
});

test('an autoscaler of a build at zero replicas is not made, and goes if it was', () => {
  const zero = target('v1', { replicas: 0 });
  const [never] = plan([hpa], [zero]);
  assert.deepEqual([never?.outcome, never && 'delete' in never && never.delete], ['absent', false]);
  const name = copyName('orders', 'orders-hpa', 'v1');
  const [was] = plan([hpa], [zero], { 'orders-hpa': { [name]: {} } });
  assert.deepEqual([was?.outcome, was && 'delete' in was && was.delete], ['absent', true]);
  const [guard] = plan([pdb], [zero]);
  assert.equal(guard?.outcome, 'apply', 'a PodDisruptionBudget scales nothing');
});

test("a build's state: spec.buildStates keeps copies to those states, spec.stateOverrides patches each, {{ .State }} and {{ .WorkerDeploymentName }} say it", () => {
  const scaled: OwnedResourceSource = {
    ...hpa,
    object: {
      ...hpa.object,
      metadata: { annotations: { state: '{{ .State }}', deployment: '{{ .WorkerDeploymentName }}' } },
    },
    stateOverrides: { Draining: { spec: { minReplicas: 1, maxReplicas: 2, metrics: null } } },
  };
  const targets = [
    target('v1', { state: 'Draining' }),
    target('v2', { state: 'Current' }),
    target('v0', { state: 'Drained' }),
  ];
  const v0 = copyName('orders', 'orders-hpa', 'v0');
  const planned = planOwnedResources(
    renderCopies({ workerDeployment, twors: [scaled], targets }),
    { 'orders-hpa': { [v0]: {} } },
    ['Current', 'Ramping', 'Draining'],
  );
  const [draining, current, drained] = planned;
  const spec = (copy: PlannedCopy | undefined) => (applied(copy!).object as { spec: Record<string, unknown> }).spec;
  assert.deepEqual([spec(draining).minReplicas, spec(draining).maxReplicas, spec(draining).metrics], [1, 2, undefined]);
  assert.deepEqual([spec(current).minReplicas, spec(current).maxReplicas], [2, 10], 'the object as written');
  assert.ok(Array.isArray(spec(current).metrics));
  const annotations = (copy: PlannedCopy | undefined) =>
    (applied(copy!).object as { metadata: { annotations: Record<string, string> } }).metadata.annotations;
  assert.deepEqual(annotations(draining), { state: 'Draining', deployment: 'shop/orders' });
  assert.equal(annotations(current).state, 'Current');
  assert.deepEqual(
    [drained?.outcome, drained && 'delete' in drained && drained.delete],
    ['absent', true],
    'a build leaving the states named loses the copy it had',
  );
  assert.match(
    drained && 'reason' in drained ? drained.reason : '',
    /it is Drained, and spec\.buildStates of orders-hpa names Current, Ramping, Draining$/,
  );

  // An override that leaves an object the controller cannot render is refused for that state alone.
  const toZero = planOwnedResources(
    renderCopies({
      workerDeployment,
      twors: [{ ...hpa, stateOverrides: { Draining: { spec: { minReplicas: 0 } } } }],
      targets,
    }),
    {},
  );
  assert.deepEqual(
    toZero.map((c) => c.outcome),
    ['refused', 'apply', 'apply'],
  );
  assert.match(
    toZero[0] && 'message' in toZero[0] ? toZero[0].message : '',
    /^as spec\.stateOverrides\.Draining leaves it: spec\.object\.spec\.minReplicas: 0/,
  );
});

test("the build's selector labels join the user's in spec.selector.matchLabels; targetRef: {} is filled as scaleTargetRef is", () => {
  const narrowed = planOwnedResources(
    renderCopies({
      workerDeployment,
      twors: [
        { ...pdb, object: { ...pdb.object, spec: { maxUnavailable: 1, selector: { matchLabels: { tier: 'web' } } } } },
      ],
      targets: [target('v1', { pool: 'spot' })],
    }),
    {},
  );
  assert.deepEqual((applied(narrowed[0]!).object as { spec: { selector: unknown } }).spec.selector, {
    matchLabels: {
      tier: 'web',
      'temporal.io/deployment-name': 'orders',
      'temporal.io/build-id': 'v1',
      'temporal.io/pool': 'spot',
    },
  });
  const vpa = planOwnedResources(
    renderCopies({
      workerDeployment,
      twors: [
        {
          name: 'orders-vpa',
          object: { apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', spec: { targetRef: {} } },
        },
      ],
      targets: [target('v1')],
    }),
    {},
  );
  assert.deepEqual((applied(vpa[0]!).object as { spec: { targetRef: unknown } }).spec.targetRef, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: 'orders-v1',
  });
});
