// The webhook's verdicts on TemporalWorkerOwnedResources (owned-resource-admission.ts): on the
// object alone, then on what discovery and the access reviews said; each refusal names the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerOwnedResource } from '../../src/api/temporal-worker-owned-resource.ts';
import {
  type AccessFacts,
  accessVerdict,
  changesCopies,
  DEFAULT_BANNED_KINDS,
  objectProblems,
  replicaFightWarnings,
} from '../../src/webhook/owned-resource-admission.ts';

const twor = (object: Record<string, unknown>, worker = 'orders'): TemporalWorkerOwnedResource => ({
  metadata: { name: 'x', namespace: 'shop' },
  spec: { workerRef: { name: worker }, object: object as TemporalWorkerOwnedResource['spec']['object'] },
});
const pdb = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  spec: { minAvailable: 1, selector: { matchLabels: {} } },
};
const problems = (object: Record<string, unknown>) =>
  objectProblems('CREATE', twor(object), undefined, DEFAULT_BANNED_KINDS);

test('on the object alone: what the controller could not render for a build is refused, naming the field', () => {
  assert.deepEqual(problems(pdb), []);
  assert.deepEqual(
    problems({ ...pdb, spec: { selector: { matchLabels: { app: 'x' } } } }),
    [],
    'the user narrows the selector',
  );
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ apiVersion: 'apps/v1', kind: 'Deployment' }, /^spec\.object\.kind: Deployment may not be owned/],
    [{ kind: 'PodDisruptionBudget' }, /^spec\.object\.apiVersion: required/],
    [{ ...pdb, metadata: { name: 'fixed' } }, /^spec\.object\.metadata\.name: the controller sets it/],
    [
      { apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', spec: { targetRef: { name: 'other' } } },
      /^spec\.object\.spec\.targetRef: must be \{\}/,
    ],
    [
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        spec: { scaleTargetRef: { name: 'other' }, maxReplicas: 2 },
      },
      /^spec\.object\.spec\.scaleTargetRef: must be \{\}/,
    ],
    [
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        spec: { scaleTargetRef: {}, minReplicas: 0, maxReplicas: 2 },
      },
      /^spec\.object\.spec\.minReplicas: 0/,
    ],
    [
      { ...pdb, metadata: { labels: { build: '{{ .Build }}' } } },
      /^spec\.object\.metadata\.labels\.build: \{\{ \.Build \}\} is not a placeholder/,
    ],
    // Before any access review: whatever the author's rights, no RBAC kind.
    [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', roleRef: {}, subjects: [] },
      /^spec\.object\.kind: RoleBinding of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/,
    ],
    [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', rules: [] },
      /^spec\.object\.kind: Role of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/,
    ],
  ];
  for (const [object, refusal] of cases) assert.match(problems(object).join('; '), refusal, JSON.stringify(object));
  assert.deepEqual(objectProblems('UPDATE', twor(pdb, 'billing'), twor(pdb), DEFAULT_BANNED_KINDS), [
    'spec.workerRef.name: immutable (was orders); create a new TemporalWorkerOwnedResource instead',
  ]);
  assert.deepEqual(
    objectProblems('DELETE', twor({}), undefined, DEFAULT_BANNED_KINDS),
    [],
    'a delete is judged on access alone',
  );
});

test('on access: a cluster-scoped kind, a user or the ServiceAccount of the copies without the rights, a kind not served yet (fail closed) is refused', () => {
  const facts: AccessFacts = {
    operation: 'CREATE',
    kind: 'PodDisruptionBudget',
    apiVersion: 'policy/v1',
    namespace: 'shop',
    served: { namespaced: true, resource: 'poddisruptionbudgets' },
    user: { name: 'jane', allowed: true, verb: 'create' },
  };
  assert.deepEqual(accessVerdict(facts), { allowed: true, warnings: [] });
  assert.deepEqual(accessVerdict({ ...facts, user: { name: 'jane', allowed: false, verb: 'create' } }), {
    allowed: false,
    message:
      'spec.object.kind: jane may not create poddisruptionbudgets.policy in namespace shop, so may not have the controller make copies of them',
  });
  assert.deepEqual(accessVerdict({ ...facts, account: { name: 'shop/copier', denied: ['patch'] } }), {
    allowed: false,
    message:
      'spec.serviceAccountName: ServiceAccount shop/copier, which the controller writes the copies as, may not patch poddisruptionbudgets.policy in namespace shop: grant it with a RoleBinding, then try again',
  });
  assert.deepEqual(
    accessVerdict({
      ...facts,
      kind: 'PriorityClass',
      apiVersion: 'scheduling.k8s.io/v1',
      served: { namespaced: false, resource: 'priorityclasses' },
    }),
    {
      allowed: false,
      message:
        'spec.object.kind: PriorityClass of scheduling.k8s.io/v1 is cluster-scoped; an owned resource must be namespaced',
    },
  );
  // An RBAC kind is refused even when the user and the controller may make it.
  const roleBinding = accessVerdict({
    ...facts,
    kind: 'RoleBinding',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    served: { namespaced: true, resource: 'rolebindings' },
  });
  assert.ok(
    !roleBinding.allowed && /RoleBinding of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/.test(roleBinding.message),
  );
  // Not served yet: who may make it cannot be asked, so it is refused (fail closed), even for a user who may.
  const unserved = { ...facts, served: undefined, kind: 'ScaledObject', apiVersion: 'keda.sh/v1alpha1' };
  for (const operation of ['CREATE', 'UPDATE'] as const) {
    const later = accessVerdict({ ...unserved, operation });
    assert.ok(
      !later.allowed &&
        /^spec\.object\.kind: the API server does not serve ScaledObject of keda\.sh\/v1alpha1 yet, .*install its CustomResourceDefinition .* first/.test(
          later.message,
        ),
      JSON.stringify(later),
    );
  }
  assert.deepEqual(accessVerdict({ ...unserved, operation: 'DELETE' }), { allowed: true, warnings: [] });
});

test("an update that leaves the spec as it was (the controller's finalizer, owner reference) needs no access check", () => {
  const stored = twor(pdb);
  const adopted = { ...stored, metadata: { ...stored.metadata, finalizers: ['temporal.io/delete-protection'] } };
  assert.equal(changesCopies('UPDATE', adopted, stored), false);
  assert.equal(changesCopies('UPDATE', twor({ ...pdb, spec: { minAvailable: 2 } }), stored), true);
  assert.equal(changesCopies('CREATE', stored, undefined), true);
  assert.equal(changesCopies('DELETE', stored, stored), true, 'a delete removes every copy');
});

test('an autoscaler of a worker deployment that sets its own replicas is admitted with a warning naming them', () => {
  assert.deepEqual(replicaFightWarnings('HorizontalPodAutoscaler', { name: 'orders', replicas: 2 }), [
    'spec.object.kind: worker deployment orders sets spec.replicas (2), which the controller holds its current and ramping builds at, undoing what this HorizontalPodAutoscaler sets: leave them unset for the HorizontalPodAutoscaler to own the replicas',
  ]);
  assert.match(
    replicaFightWarnings('ScaledObject', {
      name: 'orders',
      pools: [{ name: 'bulk', replicas: 3 }, { name: 'spot' }],
    })[0] ?? '',
    /sets the replicas of pool bulk \(3\), which/,
  );
  assert.deepEqual(replicaFightWarnings('HorizontalPodAutoscaler', { name: 'orders' }), [], 'unset: the HPA owns them');
  assert.deepEqual(
    replicaFightWarnings('PodDisruptionBudget', { name: 'orders', replicas: 2 }),
    [],
    'not an autoscaler',
  );
  assert.deepEqual(replicaFightWarnings('HorizontalPodAutoscaler', undefined), [], 'no worker deployment yet');
});
