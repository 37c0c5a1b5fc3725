// spec.sunset.pinnedWorkflows.moveToCurrent on the real server and the sample worker: the pinned
// workflows of v1 that v2's code replays (the worker library's replayCheck, pinned to v2) are moved
// onto v2, and v1 drains, is scaled down and deleted while they still run; they then finish on v2.
// A v3 whose code does not replay v2's pinned workflow leaves it where it is, named in the status,
// and it finishes on v2.
import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, temporalClient, testNamespace } from '../support/environment.ts';
import { pinnedWorkflow, waitingOn } from '../support/pinned-workflow.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

const { VersioningBehavior } = proto.temporal.api.enums.v1;

type Move = NonNullable<
  NonNullable<NonNullable<TemporalWorkerDeployment['status']>['deprecatedVersions']>[number]['pinnedWorkflows']
>['move'];

function moveOf(twd: TemporalWorkerDeployment, buildId: string): Move {
  return twd.status?.deprecatedVersions?.find((v) => v.buildID === buildId)?.pinnedWorkflows?.move;
}

async function pinnedTo(workflow: WorkflowHandle): Promise<string | undefined> {
  const info = (await workflow.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return info?.versioningOverride?.pinned?.version?.buildId ?? undefined;
}

test('moveToCurrent moves the pinned workflows the current build replays, and their old build retires while they run; one that does not replay stays, named', async (t) => {
  const namespace = await testNamespace(t, 'pinned-moves');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const operator = temporalOperator(client, temporalDeploymentName(namespace, 'orders'));
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    sunset: { scaledownDelay: '1s', deleteDelay: '1s', pinnedWorkflows: { moveToCurrent: true } },
    template: ns.template('blue'),
  });
  const first = await ns.until('orders', 'v1 to be current', rolledOut);
  const v1 = first.status?.currentVersion?.buildID ?? '';
  const onV1 = await Promise.all([1, 2].map(() => pinnedWorkflow(client, ns.taskQueue, v1)));

  // v2 runs the same workflow code: its replay check replays both, and both move onto it.
  await ns.patchSpec('orders', { template: ns.template('green') });
  const moved = await ns.until(
    'orders',
    "v1's pinned workflows moved onto v2",
    (twd) => rolledOut(twd) && moveOf(twd, v1)?.phase === 'Done',
    180_000,
  );
  const v2 = moved.status?.currentVersion?.buildID ?? '';
  const move = moveOf(moved, v1);
  t.diagnostic(JSON.stringify(move));
  assert.equal(move?.to, v2);
  assert.deepEqual([move?.checked, move?.notMoved, move?.batch?.operation, move?.batch?.completed], [2, 0, 'Move', 2]);
  assert.deepEqual(await Promise.all(onV1.map(pinnedTo)), [v2, v2], 'each has a pinned override onto v2');

  // With nothing pinned to it, v1 drains and retires on its usual delays while the workflows still run.
  await eventually(
    "v1's Deployment to be deleted once drained",
    async () => ((await ns.buildDeployments()).has(v1) ? undefined : true),
    120_000,
  );
  await eventually(
    "Temporal's record of v1 to be deleted",
    async () => ((await operator.describe()).versions.some((v) => v.buildId === v1) ? undefined : true),
    90_000,
  );
  for (const workflow of onV1) {
    assert.equal((await workflow.describe()).status.name, 'RUNNING', 'it outlived its first build');
    await workflow.signal('finish');
    const report = (await workflow.result()) as RunReport;
    assert.deepEqual([report.startedOn.buildId, report.finishedOn.buildId], [v1, v2]);
  }

  // v3 changes the pinned workflow's code so that v2's history does not replay: it stays on v2, named.
  const onV2 = await pinnedWorkflow(client, ns.taskQueue, v2);
  await ns.patchSpec('orders', { template: ns.template('pinned-breaking') });
  const left = await ns.until(
    'orders',
    "the round on v2's pinned workflow to end, moving nothing",
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v2 && moveOf(twd, v2)?.phase === 'Done',
    180_000,
  );
  const v3 = left.status?.currentVersion?.buildID ?? '';
  const notMoved = moveOf(left, v2);
  t.diagnostic(JSON.stringify(notMoved));
  assert.deepEqual([notMoved?.to, notMoved?.checked, notMoved?.notMoved, notMoved?.batch], [v3, 1, 1, undefined]);
  assert.equal(notMoved?.notMovedWorkflows?.[0]?.workflowID, onV2.workflowId);
  assert.match(
    notMoved?.notMovedWorkflows?.[0]?.reason ?? '',
    new RegExp(`^does not replay on build ${v3} at event \\d+ \\w+: \\[TMPRL1100\\] Nondeterminism error`),
  );
  assert.equal(await pinnedTo(onV2), undefined, 'no override: it stays pinned to v2');
  await onV2.signal('finish');
  const report = (await onV2.result()) as RunReport;
  assert.deepEqual([report.startedOn.buildId, report.finishedOn.buildId], [v2, v2]);
});

test('onAbort: MoveToPrevious moves the pinned workflows that started on an aborted build onto the build current before, where they finish', async (t) => {
  const namespace = await testNamespace(t, 'moves-abort');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const deploymentName = temporalDeploymentName(namespace, 'orders');
  const rollout = { strategy: 'Progressive', steps: [{ rampPercentage: 50, pauseDuration: '1h' }] };
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { ...rollout, onAbort: 'MoveToPrevious' },
    template: ns.template('blue'),
  });
  const first = await ns.until('orders', 'v1 to be current', rolledOut);
  const v1 = first.status?.currentVersion?.buildID ?? '';
  await ns.patchSpec('orders', { template: ns.template('green') });
  const ramping = await ns.until('orders', 'v2 to ramp', (twd) => twd.status?.targetVersion?.rampPercentage === 50);
  const v2 = ramping.status?.targetVersion?.buildID ?? '';
  // A workflow that started on the ramping build (pinned there, as half of the new ones are).
  const onV2 = await client.workflow.start('pinnedUntilSignalled', {
    args: [{}],
    taskQueue: ns.taskQueue,
    workflowId: `on-v2-${namespace}`,
    versioningOverride: { pinnedTo: { deploymentName, buildId: v2 } },
  });
  await waitingOn(onV2, v2, VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);

  await ns.patchSpec('orders', { rollout: { abort: v2 } });
  const moved = await ns.until(
    'orders',
    "the aborted build's pinned workflow moved onto v1",
    (twd) => twd.status?.targetVersion?.pinnedWorkflows?.move?.phase === 'Done',
    180_000,
  );
  const move = moved.status?.targetVersion?.pinnedWorkflows?.move;
  t.diagnostic(JSON.stringify(move));
  assert.deepEqual([move?.to, move?.checked, move?.batch?.completed], [v1, 1, 1]);
  assert.equal(moved.status?.currentVersion?.buildID, v1);
  assert.equal(await pinnedTo(onV2), v1);
  await onV2.signal('finish');
  const report = (await onV2.result()) as RunReport;
  assert.deepEqual([report.startedOn.buildId, report.finishedOn.buildId], [v2, v1]);
});
