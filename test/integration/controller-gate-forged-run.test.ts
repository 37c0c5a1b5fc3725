// A gate run forged by a Temporal user, on the real environment: anyone who may start workflows in
// the Temporal namespace can start a run under the gate's workflow ID (terminating the
// controller's own) that completes at once. It must not pass the gate.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gateWorkflowId } from '../../src/planner/gates.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { kubeConfig, temporalClient, testNamespace } from '../support/environment.ts';

test('a gate run forged under the gate workflow ID, of the gate type, pinned to the build and completing at once, does not pass the gate', async (t) => {
  const namespace = await testNamespace(t, 'gate-forged');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const v1 = (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID;

  // The controller's own run fails, after a while: the window in which the forgery is made.
  const rollout = {
    strategy: 'AllAtOnce',
    gate: { workflowType: 'gate', input: { pass: false, message: 'the real gate fails', delayMs: 15_000 } },
  };
  await ns.patchSpec('orders', { rollout, template: ns.template('green') });
  const started = await ns.until(
    'orders',
    'the controller to start its gate run',
    (twd) => twd.status?.targetVersion?.gates?.[0]?.status === 'Running',
  );
  const v2 = started.status?.targetVersion?.buildID ?? '';
  const ownRun = started.status?.targetVersion?.gates?.[0]?.runID;
  assert.ok(ownRun, 'the run ID of the run started is recorded');
  const id = gateWorkflowId(`${namespace}/orders`, v2, { name: 'rollout', gate: rollout.gate }, ns.taskQueue);

  const forged = await client.workflow.start('gate', {
    workflowId: id,
    taskQueue: ns.taskQueue,
    args: [{ pass: true }],
    workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    versioningOverride: { pinnedTo: { deploymentName: `${namespace}/orders`, buildId: v2 } },
  });
  await forged.result();

  const reported = await ns.until(
    'orders',
    'the forged run to be reported (or to pass the gate)',
    (twd) => condition(twd, 'Stalled')?.reason === 'GateRunForeign' || twd.status?.currentVersion?.buildID === v2,
  );
  assert.equal(reported.status?.currentVersion?.buildID, v1, 'the forged pass moved no traffic');
  assert.match(
    condition(reported, 'Stalled')?.message ?? '',
    new RegExp(`(running|completed) run ${forged.firstExecutionRunId}`),
  );
  const failed = await ns.until(
    'orders',
    "the controller's own new run to fail the gate",
    (twd) => condition(twd, 'Stalled')?.reason === 'GateFailed',
  );
  assert.match(condition(failed, 'Stalled')?.message ?? '', /the real gate fails/);
  assert.equal(failed.status?.currentVersion?.buildID, v1, 'the build the gate failed never became current');
  assert.notEqual(failed.status?.targetVersion?.gates?.[0]?.runID, ownRun, 'a run of its own, started again');
  const warnings = (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace })).items.filter(
    (e) => e.type === 'Warning' && e.reason === 'GateRunForeign',
  );
  assert.ok(warnings.length >= 1, 'a Warning event names the forged run');
});
