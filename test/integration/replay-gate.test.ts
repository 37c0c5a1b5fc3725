// The worker library's replay gate on the real environment: orders run on the current build; a new
// build whose `order` workflow changed incompatibly is stopped by the gate, which names a workflow
// that does not replay, before any traffic moves to it; a build whose change is behind a patch
// passes and is promoted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, sharedEnvironment, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';

const ORDERS = 5;

test('the replay gate stops a breaking workflow change before it takes traffic, and passes a compatible one', async (t) => {
  const namespace = await testNamespace(t, 'replay-gate');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const rollout = { strategy: 'AllAtOnce', gate: { workflowType: 'replayGate', input: { workflows: 20 } } };
  await ns.createWorkerDeployment('orders', { replicas: 1, rollout, template: ns.template('blue') });
  // No build is current yet: the gate has nothing to replay, and passes.
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  const ids = Array.from({ length: ORDERS }, () => uniqueName('order'));
  await Promise.all(
    ids.map((workflowId, i) => client.workflow.execute('order', { taskQueue: ns.taskQueue, workflowId, args: [i] })),
  );
  // The gate finds them through visibility, which follows their completion by a moment.
  const query = `TemporalWorkerDeploymentVersion = '${temporalDeploymentName(namespace, 'orders')}:${v1}' AND WorkflowType = 'order'`;
  await eventually(`the ${ORDERS} orders of ${v1} in visibility`, async () =>
    (await client.workflow.count(query)).count >= ORDERS ? true : undefined,
  );

  await ns.patchSpec('orders', { template: ns.template('order-breaking') });
  const stopped = await ns.until(
    'orders',
    'the replay gate to fail the breaking build',
    (twd) => condition(twd, 'Stalled')?.reason === 'GateFailed',
    120_000,
  );
  const v2 = stopped.status?.targetVersion?.buildID ?? '';
  const message = condition(stopped, 'Stalled')?.message ?? '';
  t.diagnostic(message);
  assert.match(message, /NondeterministicChange|does not replay/, message);
  assert.ok(
    ids.some((id) => message.includes(id)),
    `names one of the orders that ran on ${v1}: ${message}`,
  );
  assert.match(message, /\(order\)/, 'and its type');
  assert.match(
    message,
    /at event \d+ [A-Z]\w+: \[TMPRL1100\] Nondeterminism error/,
    'and the first event that diverged',
  );
  assert.match(message, new RegExp(`of build ${v1}`), 'and the build it ran on');
  // No traffic moved: Temporal still routes everything to v1, and never ramped v2.
  const described = await client.workflowService.describeWorkerDeployment({
    namespace: sharedEnvironment().temporalNamespace,
    deploymentName: temporalDeploymentName(namespace, 'orders'),
  });
  const routing = described.workerDeploymentInfo?.routingConfig;
  assert.equal(routing?.currentDeploymentVersion?.buildId, v1);
  assert.equal(routing?.rampingDeploymentVersion?.buildId ?? undefined, undefined, 'no ramp');
  const v2Summary = described.workerDeploymentInfo?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === v2);
  assert.equal(v2Summary?.firstActivationTime ?? undefined, undefined, `${v2} never took traffic`);

  await ns.patchSpec('orders', { template: ns.template('order-compatible') });
  const promoted = await ns.until(
    'orders',
    'the compatible build to pass the gate and become current',
    (twd) => rolledOut(twd) && ![v1, v2].includes(twd.status?.currentVersion?.buildID ?? v1),
    120_000,
  );
  assert.equal(condition(promoted, 'Stalled')?.status, 'False');
});
