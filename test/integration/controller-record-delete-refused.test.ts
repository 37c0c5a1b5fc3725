// Temporal refusing to delete a retired build's record is said, not swallowed: while another client
// holds the deployment's manager identity, the controller may not delete version records, and the
// status and a Warning event say so with Temporal's words, until the identity is released.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, temporalClient, testNamespace } from '../support/environment.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

test('a version record Temporal refuses to delete sets Progressing=False/VersionRecordDeleteFailed and a Warning event, and goes once allowed', async (t) => {
  const namespace = await testNamespace(t, 'record-refused');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const ns = await controlledNamespace(t, namespace);
  const operator = temporalOperator(await temporalClient(t), temporalDeploymentName(namespace, 'orders'));
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    sunset: { scaledownDelay: '1s', deleteDelay: '1s' },
    template: ns.template('v0'),
  });
  const v0 = (await ns.until('orders', 'v0 to be current', rolledOut, 90_000)).status?.currentVersion?.buildID ?? '';
  await ns.patchSpec('orders', { template: ns.template('v1') });
  await ns.until(
    'orders',
    'v1 to be current',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v0,
    90_000,
  );
  // v0 drains, is scaled down and deleted: its record is next, and another client now manages the deployment.
  await operator.claimManager();

  const refused = await ns.until(
    'orders',
    'Progressing=False/VersionRecordDeleteFailed',
    (twd) => condition(twd, 'Progressing')?.reason === 'VersionRecordDeleteFailed',
    120_000,
  );
  assert.match(
    condition(refused, 'Progressing')?.message ?? '',
    new RegExp(`cannot delete the record of build ${v0} .*: .+; the controller tries again`),
  );
  assert.ok(
    (await operator.describe()).versions.some((v) => v.buildId === v0),
    'the record is still there',
  );
  await eventually(
    'a Warning event VersionRecordDeleteFailed',
    async () => {
      const events = await core.listNamespacedEvent({ namespace, fieldSelector: 'reason=VersionRecordDeleteFailed' });
      return events.items.some((e) => e.type === 'Warning' && e.message?.includes(v0)) || undefined;
    },
    30_000,
  );

  await operator.releaseManager();
  await eventually(
    'the record of v0 to be deleted',
    async () => ((await operator.describe()).versions.some((v) => v.buildId === v0) ? undefined : true),
    60_000,
  );
  await ns.until(
    'orders',
    'the condition to clear',
    (twd) => condition(twd, 'Progressing')?.reason !== 'VersionRecordDeleteFailed',
    30_000,
  );
});
