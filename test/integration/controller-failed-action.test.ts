// A Kubernetes action that fails stops the reconcile there: Temporal's routing is not changed on a
// plan that may no longer hold. The refusal is real: a ValidatingAdmissionPolicy of the API server
// denies scaling the current build's Deployment, as a quota or an organisation's policy would.
import { AdmissionregistrationV1Api, AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

test('a failed scale of the current build is said and stops the reconcile there; the plan that promotes a new build no longer scales the build it drains', async (t) => {
  const namespace = await testNamespace(t, 'failed-action');
  const client = await temporalClient(t);
  const apps = kubeConfig().makeApiClient(AppsV1Api);
  const ns = await controlledNamespace(t, namespace);
  const operator = temporalOperator(client, temporalDeploymentName(namespace, 'orders'));
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    template: ns.template('v1'),
  });
  const v1 = (await ns.until('orders', 'v1 to be current', rolledOut, 90_000)).status?.currentVersion?.buildID ?? '';
  const v1Deployment = (await ns.buildDeployments()).get(v1)?.name ?? '';

  const unfreeze = await freezeScale(t, namespace, v1Deployment);
  await eventually(
    'the policy to refuse scaling the current build',
    async () => {
      const refused = await apps
        .patchNamespacedDeploymentScale(
          { namespace, name: v1Deployment, body: { spec: { replicas: 2 } }, dryRun: 'All' },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )
        .then(
          () => false,
          (error: unknown) => /frozen by the test/.test(String(error)),
        );
      return refused || undefined;
    },
    30_000,
  );

  // The current build must follow spec.replicas: the scale is refused. No new build yet, so the
  // refusal is seen whatever the machine's speed (a new build that comes up first is promoted by a
  // plan that no longer scales the build it drains).
  await ns.patchSpec('orders', { replicas: 2 });
  const failed = await ns.until(
    'orders',
    'Progressing=False/DeploymentScaleFailed',
    (twd) => condition(twd, 'Progressing')?.reason === 'DeploymentScaleFailed',
    60_000,
  );
  assert.match(
    condition(failed, 'Progressing')?.message ?? '',
    new RegExp(`${v1Deployment}.*frozen by the test.*nothing more is changed until it succeeds`),
  );
  assert.equal(failed.status?.currentVersion?.buildID, v1);

  await ns.patchSpec('orders', { template: ns.template('v2') });
  const v2 = (
    await ns.until('orders', 'a new target', (twd) => (twd.status?.targetVersion?.buildID ?? v1) !== v1, 60_000)
  ).status?.targetVersion?.buildID;
  // Once v2 is registered and available, the plan makes it current: v1 drains, so it is not scaled
  // to the new count (the frozen scale is no longer tried), and nothing else waits on it.
  const promoted = await ns.until(
    'orders',
    'v2 to be current, the scale of v1 still frozen',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID === v2,
    90_000,
  );
  assert.notEqual(condition(promoted, 'Progressing')?.reason, 'DeploymentScaleFailed');
  assert.equal((await operator.describe()).currentBuildId, v2);
  const v1Now = await apps.readNamespacedDeployment({ namespace, name: v1Deployment });
  assert.equal(v1Now.spec?.replicas, 1, 'the build the plan drains keeps its count');
  await unfreeze();
});

/** Denies scaling one Deployment of the namespace until the returned function is called. */
async function freezeScale(t: TestContext, namespace: string, deployment: string): Promise<() => Promise<void>> {
  const admission = kubeConfig().makeApiClient(AdmissionregistrationV1Api);
  const name = uniqueName('freeze-scale');
  await admission.createValidatingAdmissionPolicy({
    body: {
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments/scale'] },
          ],
        },
        validations: [
          {
            expression: `object.metadata.name != '${deployment}'`,
            message: `scaling ${deployment} is frozen by the test`,
          },
        ],
      },
    },
  });
  await admission.createValidatingAdmissionPolicyBinding({
    body: {
      metadata: { name },
      spec: {
        policyName: name,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
      },
    },
  });
  const remove = async (): Promise<void> => {
    await admission.deleteValidatingAdmissionPolicyBinding({ name }).catch(() => undefined);
    await admission.deleteValidatingAdmissionPolicy({ name }).catch(() => undefined);
  };
  t.after(remove);
  return remove;
}
