// A pinned workflow keeps its build alive: after a new build becomes current, the old one drains
// with its Pods running, the workflow finishes on it, and only then is it scaled down, deleted,
// and its Temporal record removed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, temporalClient, testNamespace } from '../support/environment.ts';
import { pinnedWorkflow } from '../support/pinned-workflow.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

test('AllAtOnce v1 to v2 with a workflow pinned to v1: v1 drains with its Pods, the workflow ends on v1, then v1 goes', async (t) => {
  const namespace = await testNamespace(t, 'pinned');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const operator = temporalOperator(client, temporalDeploymentName(namespace, 'orders'));
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    sunset: { scaledownDelay: '1s', deleteDelay: '1s' },
    template: ns.template('blue'),
  });
  const first = await ns.until('orders', 'v1 to be current', rolledOut);
  const v1 = first.status?.currentVersion?.buildID ?? '';
  assert.equal(condition(first, 'Ready')?.reason, 'TargetCurrent');
  assert.equal(condition(first, 'Progressing')?.status, 'False');

  const workflow = await pinnedWorkflow(client, ns.taskQueue, v1);

  await ns.patchSpec('orders', { template: ns.template('green') });
  const draining = await ns.until(
    'orders',
    'v2 current while v1 drains',
    (twd) => rolledOut(twd) && twd.status?.deprecatedVersions?.find((v) => v.buildID === v1)?.status === 'Draining',
  );
  const v2 = draining.status?.currentVersion?.buildID;
  // Far past scaledownDelay (1s): a draining build is never scaled down.
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const still = await ns.read('orders');
  assert.equal(still.status?.deprecatedVersions?.find((v) => v.buildID === v1)?.status, 'Draining');
  assert.deepEqual(
    (await ns.buildDeployments()).get(v1),
    { name: draining.status?.deprecatedVersions?.[0]?.deployments?.[0], replicas: 1, availableReplicas: 1 },
    'v1 keeps its Pod while draining',
  );

  await workflow.signal('finish');
  const report = (await workflow.result()) as RunReport;
  assert.deepEqual(
    [report.startedOn.buildId, report.finishedOn.buildId],
    [v1, v1],
    'the pinned workflow started and finished on v1',
  );

  await eventually(
    "v1's Deployment to be deleted once drained",
    async () => {
      const deployments = await ns.buildDeployments();
      return deployments.has(v1) ? undefined : deployments;
    },
    90_000,
  );
  await eventually(
    "Temporal's record of v1 to be deleted",
    async () => ((await operator.describe()).versions.some((v) => v.buildId === v1) ? undefined : true),
    90_000,
  );
  assert.equal((await operator.describe()).currentBuildId, v2);
  const settled = await ns.until(
    'orders',
    'the status to forget v1',
    (twd) => !twd.status?.deprecatedVersions?.some((v) => v.buildID === v1),
  );
  assert.equal(settled.status?.deprecatedVersions, undefined, 'no build left but the current one');
});
