// A Kubernetes action that fails stops the reconcile there: Temporal's routing is not changed on a
// plan that may no longer hold. The refusal is real: a ValidatingAdmissionPolicy of the API server
// denies scaling the current build's Deployment, as a quota or an organisation's policy would.
import { AdmissionregistrationV1Api, AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

test('a failed scale of the current build: the new build, registered and healthy, is not promoted until the scale succeeds', async (t) => {
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

  // The current build must follow spec.replicas (a scale refused) while the new build comes up.
  await ns.patchSpec('orders', { replicas: 2, template: ns.template('v2') });
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
  const v2 = failed.status?.targetVersion?.buildID ?? '';
  assert.notEqual(v2, v1);
  await ns.until(
    'orders',
    'v2 registered and healthy',
    (twd) =>
      (twd.status?.targetVersion?.status ?? 'NotRegistered') !== 'NotRegistered' &&
      twd.status?.targetVersion?.healthySince !== undefined,
    90_000,
  );
  // Routing would have moved by now: the controller reconciles every second here.
  await sleep(10_000);
  assert.equal((await operator.describe()).currentBuildId, v1, 'Temporal still sends new workflows to v1');
  assert.equal((await ns.read('orders')).status?.targetVersion?.status, 'Inactive', 'v2 is registered, not promoted');

  await unfreeze();
  await ns.until(
    'orders',
    'v2 to be current once the scale succeeds',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID === v2,
    90_000,
  );
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
