// The kinds no owned resource may make, whatever its author's rights (domain/owned-resources.ts):
// every kind of the RBAC group, and any cluster-scoped kind. One rule, used by the webhook and by
// the controller before it applies a copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refusedKind } from '../../src/domain/owned-resources.ts';

test('refusedKind: RBAC kinds whatever discovery says, cluster-scoped kinds when discovery says so', () => {
  const table: [apiVersion: string, kind: string, namespaced: boolean | undefined, refusal: RegExp | undefined][] = [
    [
      'rbac.authorization.k8s.io/v1',
      'RoleBinding',
      true,
      /RoleBinding of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/,
    ],
    ['rbac.authorization.k8s.io/v1', 'Role', undefined, /Role of rbac\.authorization\.k8s\.io\/v1 is an RBAC kind/],
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', false, /is an RBAC kind/],
    ['rbac.authorization.k8s.io/v1beta1', 'SomeFutureKind', undefined, /SomeFutureKind .* is an RBAC kind/],
    ['scheduling.k8s.io/v1', 'PriorityClass', false, /PriorityClass of scheduling\.k8s\.io\/v1 is cluster-scoped/],
    ['v1', 'Namespace', false, /Namespace of v1 is cluster-scoped/],
    ['policy/v1', 'PodDisruptionBudget', true, undefined],
    ['v1', 'ConfigMap', true, undefined],
    ['keda.sh/v1alpha1', 'ScaledObject', undefined, undefined],
    // A group that merely ends like the RBAC one is not it.
    ['my.rbac.authorization.k8s.io.example/v1', 'RoleBinding', true, undefined],
  ];
  for (const [apiVersion, kind, namespaced, refusal] of table) {
    const said = refusedKind(apiVersion, kind, namespaced);
    if (refusal) assert.match(said ?? '', refusal, `${kind} of ${apiVersion}`);
    else assert.equal(said, undefined, `${kind} of ${apiVersion}`);
    if (said) assert.match(said, /^spec\.object\.kind: /, 'names the field');
  }
});
