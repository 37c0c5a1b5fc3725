// spec.sunset.pinnedWorkflows on the real server: pinned workflows left on an old build are asked
// to continue as new, then cancelled, then terminated, each at its delay since the build stopped
// being current; one batch operation per step, started once even across a controller restart,
// reaching neither auto-upgrade workflows whose last task ran there nor the current build's;
// nothing without a ladder, and nothing more once the build is current again.
import { CoreV1Api } from '@kubernetes/client-node';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { optionalTsToDate } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { batchJobId, batchJobIdPrefix } from '../../src/planner/pinned-workflows.ts';
import { describeBatch, listRunningBatches, stopBatch } from '../../src/temporal/batch-operations.ts';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import { controlledNamespace, rolledOut, type WorkerDeployments } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, temporalClient, testNamespace } from '../support/environment.ts';
import { patchWorkerDeploymentStatus } from '../support/manifests.ts';
import { ownTemporal } from '../support/own-temporal.ts';
import { autoUpgradeWorkflow, pinnedWorkflow } from '../support/pinned-workflow.ts';

const { BatchOperationState } = proto.temporal.api.enums.v1;

type OldBuild = NonNullable<NonNullable<TemporalWorkerDeployment['status']>['deprecatedVersions']>[number];

function oldBuild(twd: TemporalWorkerDeployment, buildId: string): OldBuild | undefined {
  return twd.status?.deprecatedVersions?.find((v) => v.buildID === buildId);
}

/**
 * v1 current with workflows pinned to it (or, for `'auto-upgrade'`, an auto-upgrade workflow whose
 * last task ran there), then v2 current: resolves with v1, v2 and when Temporal says v1 stopped being current.
 */
async function supersededWithWorkflows(
  ns: WorkerDeployments,
  client: Client,
  name: string,
  spec: Record<string, unknown>,
  starts: (Parameters<typeof pinnedWorkflow>[3] | 'auto-upgrade')[],
  queue = ns.taskQueue,
) {
  await ns.createWorkerDeployment(name, {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce' },
    ...spec,
    template: ns.template('blue', queue),
  });
  const first = await ns.until(name, 'v1 to be current', rolledOut);
  const v1 = first.status?.currentVersion?.buildID ?? '';
  const workflows = await Promise.all(
    starts.map((options) =>
      options === 'auto-upgrade' ? autoUpgradeWorkflow(client, queue, v1) : pinnedWorkflow(client, queue, v1, options),
    ),
  );
  await ns.patchSpec(name, { template: ns.template('green', queue) });
  // With a ladder, once the ladder reports on v1: its deactivatedAt then is the one the delays
  // count from (a server that reports one replaces the controller's first sight of it).
  const laddered = (spec.sunset as { pinnedWorkflows?: object } | undefined)?.pinnedWorkflows !== undefined;
  const superseded = await ns.until(
    name,
    'v2 current, v1 deactivated',
    (twd) =>
      rolledOut(twd) &&
      oldBuild(twd, v1)?.deactivatedAt !== undefined &&
      (!laddered || oldBuild(twd, v1)?.pinnedWorkflows !== undefined),
  );
  const v2 = superseded.status?.currentVersion?.buildID ?? '';
  return {
    v1,
    v2,
    workflows,
    deactivatedAt: await temporalDeactivation(client, superseded.metadata?.namespace ?? '', name, v1),
    superseded,
  };
}

/**
 * When Temporal says `buildId` stopped being current or ramping: what the ladder's delays count
 * from. The controller's status may first say when it saw so itself, later by as long as its first
 * look took (Temporal answers "not found" for a moment after each routing change).
 */
async function temporalDeactivation(client: Client, namespace: string, name: string, buildId: string): Promise<Date> {
  return eventually(`Temporal to report when ${buildId} was deactivated`, async () => {
    const described = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName: temporalDeploymentName(namespace, name),
    });
    const summary = described.workerDeploymentInfo?.versionSummaries?.find(
      (v) => v.deploymentVersion?.buildId === buildId,
    );
    return optionalTsToDate(summary?.lastDeactivationTime) ?? undefined;
  });
}

async function signalsReceived(client: Client, workflow: WorkflowHandle, runId?: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflow.workflowId, runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const name = e.workflowExecutionSignaledEventAttributes?.signalName;
    return name ? [name] : [];
  });
}

/** The workflow as described once it no longer runs. */
function closed(workflow: WorkflowHandle, what: string) {
  return eventually(
    what,
    async () => {
      const d = await workflow.describe();
      return d.status.name === 'RUNNING' ? undefined : d;
    },
    90_000,
  );
}

async function eventReasons(namespace: string, name: string): Promise<string[]> {
  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
  return events.items.filter((e) => e.involvedObject.name === name).map((e) => `${e.reason}: ${e.message}`);
}

test('signalAfter: each workflow on the old build is signalled once; one continues as new onto the current build; a restart right after the batch started does not start another', async (t) => {
  // Server 1.31.2: the shared server, 1.29.1, starts a continue-as-new on the old run's build whatever it asks.
  const temporal = await ownTemporal(t, {}, { newer: true });
  const namespace = await testNamespace(t, 'ladder-signal');
  const client = temporal.client;
  const lines: string[] = [];
  let batchStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => (batchStarted = resolve));
  const ns = await controlledNamespace(t, namespace, {
    temporalAddress: temporal.address,
    log: (line) => {
      lines.push(line);
      if (line.includes('"action":"startBatch"')) batchStarted();
    },
  });
  const { v1, v2, workflows, deactivatedAt, superseded } = await supersededWithWorkflows(
    ns,
    client,
    'orders',
    // v1 drains as soon as its workflows moved on: it stays long enough for the batch's end to be read.
    { sunset: { scaledownDelay: '30s', deleteDelay: '1s', pinnedWorkflows: { signalAfter: '20s' } } },
    // The second ignores the request, so v1 still drains when the controller restarts.
    [{}, { ignoreContinueAsNewRequest: true }],
  );
  const firstRuns = await Promise.all(workflows.map(async (w) => (await w.describe()).runId));
  const waiting = await ns.until(
    'orders',
    'the two workflows on v1 counted, waiting for the signal step',
    (twd) => oldBuild(twd, v1)?.pinnedWorkflows?.running === 2,
  );
  // Counted from when the build stopped being current: the server's time once the controller read
  // it, its own first sight until then (a few seconds later at most; the server's own record of it
  // may come a few milliseconds after the routing change the controller saw).
  const since = new Date(oldBuild(waiting, v1)?.deactivatedAt ?? 0);
  const late = since.getTime() - deactivatedAt.getTime();
  assert.ok(
    late > -1000 && late < 5000,
    `the same deactivation: Temporal's ${deactivatedAt.toISOString()}, the status's ${since.toISOString()}; Temporal's not-found answers the controller logged: ${lines.filter((l) => l.includes('does not exist')).join('\n')}`,
  );
  assert.partialDeepStrictEqual(oldBuild(waiting, v1)?.pinnedWorkflows, {
    step: 'Waiting',
    nextStepAt: new Date(since.getTime() + 20_000).toISOString(),
  });
  assert.ok(oldBuild(superseded, v1)?.status === 'Draining' || oldBuild(superseded, v1)?.status === 'Inactive');

  // The controller stops as soon as it started the batch, and the status loses what it wrote of
  // it, as when the process is killed before its status write.
  await started;
  const startedAt = Date.now();
  await ns.stopController();
  assert.ok(startedAt >= deactivatedAt.getTime() + 20_000, 'not before signalAfter');
  const stopped = await ns.read('orders');
  await patchWorkerDeploymentStatus(namespace, 'orders', {
    deprecatedVersions: (stopped.status?.deprecatedVersions ?? []).map(({ pinnedWorkflows: _, ...v }) => v),
  });
  await ns.startController();

  const jobId = batchJobId(
    temporalDeploymentName(namespace, 'orders'),
    v1,
    'Signal',
    stopped.spec.sunset?.pinnedWorkflows ?? {},
  );
  const done = await ns.until(
    'orders',
    'the signal batch to be read back as completed by the restarted controller',
    (twd) => oldBuild(twd, v1)?.pinnedWorkflows?.batch?.state === 'Completed',
    90_000,
  );
  assert.partialDeepStrictEqual(oldBuild(done, v1)?.pinnedWorkflows, {
    step: 'Signal',
    batch: { jobID: jobId, operation: 'Signal', total: 2, completed: 2, failed: 0 },
  });
  assert.equal(lines.filter((l) => l.includes('"action":"startBatch"')).length, 1, 'one batch started, by the first');

  for (const [i, workflow] of workflows.entries())
    assert.deepEqual(
      await signalsReceived(client, workflow, firstRuns[i]),
      ['ContinueAsNewRequested'],
      'signalled once',
    );
  const [moving, staying] = workflows as [WorkflowHandle, WorkflowHandle];
  const next = await eventually('the first workflow to continue as new', async () => {
    const described = await moving.describe();
    return described.runId !== firstRuns[0] ? described : undefined;
  });
  assert.equal(next.status.name, 'RUNNING');
  await eventually('its new run to be pinned to v2, the current build', async () => {
    const info = (await moving.describe()).raw.workflowExecutionInfo?.versioningInfo;
    return info?.deploymentVersion?.buildId === v2 ? true : undefined;
  });
  assert.equal(
    (await client.workflow.getHandle(moving.workflowId, firstRuns[0]).describe()).status.name,
    'CONTINUED_AS_NEW',
  );
  assert.equal((await staying.describe()).runId, firstRuns[1], 'the other ignored the request');
  const reasons = await eventReasons(namespace, 'orders');
  assert.equal(reasons.filter((r) => r.startsWith('BatchOperationStarted')).length, 1, reasons.join('\n'));
  assert.ok(
    reasons.some((r) => r.startsWith('BatchOperationFinished')),
    reasons.join('\n'),
  );

  // Once the one left on v1 ends, v1 drains, is scaled down and deleted on the sunset delays,
  // while the new run goes on, on v2.
  await staying.signal('finish');
  assert.equal(((await staying.result()) as RunReport).finishedOn.buildId, v1);
  await eventually(
    "v1's Deployment to be deleted once drained",
    async () => ((await ns.buildDeployments()).has(v1) ? undefined : true),
    120_000,
  );
  await moving.signal('finish');
  const report = (await moving.result()) as RunReport;
  assert.deepEqual([report.startedOn.buildId, report.finishedOn.buildId], [v2, v2], 'the new run ran on v2');
  assert.equal((await ns.read('orders')).status?.currentVersion?.buildID, v2);
});

test('cancelAfter and terminateAfter: a workflow that ignores the signal is cancelled, one that ignores cancellation too is terminated with the reason, each at its delay; auto-upgrade workflows of the old build and workflows of the current one are not touched', async (t) => {
  const namespace = await testNamespace(t, 'ladder-cancel');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const reason = 'build retired by the ladder test';
  const { v1, v2, workflows, deactivatedAt } = await supersededWithWorkflows(
    ns,
    client,
    'orders',
    {
      sunset: {
        scaledownDelay: '1s',
        deleteDelay: '1s',
        pinnedWorkflows: { signalAfter: '5s', cancelAfter: '20s', terminateAfter: '35s', reason },
      },
    },
    [
      { ignoreContinueAsNewRequest: true },
      { ignoreContinueAsNewRequest: true, ignoreCancellation: true },
      // Its last task ran on v1, and it sleeps: it moves to the current build at its next task.
      'auto-upgrade',
    ],
  );
  const [cancellable, stubborn, autoUpgrade] = workflows as [WorkflowHandle, WorkflowHandle, WorkflowHandle];
  // A workflow of the current build, which no batch on v1 may reach.
  const current = await pinnedWorkflow(client, ns.taskQueue, v2, {
    ignoreContinueAsNewRequest: true,
    ignoreCancellation: true,
  });
  const cancelled = await closed(cancellable, 'the first workflow to be cancelled');
  assert.equal(cancelled.status.name, 'CANCELLED');
  const cancelledAt = cancelled.closeTime?.getTime() ?? 0;
  assert.ok(cancelledAt >= deactivatedAt.getTime() + 20_000, 'not before cancelAfter');
  assert.ok(cancelledAt < deactivatedAt.getTime() + 35_000, 'at cancelAfter, not at terminateAfter');
  assert.equal((await stubborn.describe()).status.name, 'RUNNING', 'the one that ignores cancellation runs on');

  const terminated = await closed(stubborn, 'the second workflow to be terminated');
  assert.equal(terminated.status.name, 'TERMINATED');
  assert.ok((terminated.closeTime?.getTime() ?? 0) >= deactivatedAt.getTime() + 35_000, 'not before terminateAfter');
  const history = await stubborn.fetchHistory();
  const termination = history.events?.find((e) => e.workflowExecutionTerminatedEventAttributes);
  assert.equal(termination?.workflowExecutionTerminatedEventAttributes?.reason, reason);
  for (const workflow of [cancellable, stubborn])
    assert.deepEqual(await signalsReceived(client, workflow), ['ContinueAsNewRequested'], 'each was asked first');

  const reasons = await eventReasons(namespace, 'orders');
  const started = reasons.flatMap((r) => {
    const [, operation = '', jobId = ''] = /^BatchOperationStarted: started (\w+) batch (\S+): /.exec(r) ?? [];
    return operation ? [{ operation, jobId }] : [];
  });
  assert.deepEqual(
    started.map((b) => b.operation).sort(),
    ['Cancel', 'Signal', 'Terminate'],
    `one batch a step (their order is the workflows' close times above): ${reasons.join('\n')}`,
  );
  // Each batch, as Temporal counts it, acted on the pinned workflows of v1 only.
  const totals = await eventually('the three batches to complete', async () => {
    const described = await Promise.all(
      started.map(({ jobId }) =>
        client.workflowService.describeBatchOperation({ namespace: sharedEnvironment().temporalNamespace, jobId }),
      ),
    );
    if (described.some((d) => d.state !== BatchOperationState.BATCH_OPERATION_STATE_COMPLETED)) return undefined;
    return Object.fromEntries(started.map((b, i) => [b.operation, Number(described[i]?.totalOperationCount)]));
  });
  assert.deepEqual(totals, { Signal: 2, Cancel: 2, Terminate: 1 });
  for (const workflow of [autoUpgrade, current])
    assert.equal((await workflow.describe()).status.name, 'RUNNING', `${workflow.workflowId} runs on`);
  assert.deepEqual(await signalsReceived(client, autoUpgrade), [], 'the auto-upgrade workflow was not signalled');
  const versioning = (await autoUpgrade.describe()).raw.workflowExecutionInfo?.versioningInfo;
  assert.equal(versioning?.deploymentVersion?.buildId, v1, 'nor woken: its last task is still the one on v1');
  // Once woken, it finishes on the current build; the current build's own workflow ends when told.
  await autoUpgrade.signal('finish');
  assert.equal(((await autoUpgrade.result()) as RunReport).finishedOn.buildId, v2);
  await current.signal('finish');
  assert.equal(((await current.result()) as RunReport).finishedOn.buildId, v2);
  await eventually(
    "v1's Deployment to be deleted once drained",
    async () => ((await ns.buildDeployments()).has(v1) ? undefined : true),
    120_000,
  );
});

test('without a ladder nothing is signalled; a build current again (rollback) stops its ladder at once', async (t) => {
  const namespace = await testNamespace(t, 'ladder-none');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const plain = await supersededWithWorkflows(ns, client, 'plain', {}, [{}], `${ns.taskQueue}-plain`);
  const laddered = await supersededWithWorkflows(
    ns,
    client,
    'laddered',
    { sunset: { pinnedWorkflows: { signalAfter: '5s', cancelAfter: '25s' } } },
    [{ ignoreContinueAsNewRequest: true }],
    `${ns.taskQueue}-laddered`,
  );
  const [asked] = laddered.workflows as [WorkflowHandle];
  await eventually(
    'the laddered workflow to be asked to continue as new (and to ignore it)',
    async () => ((await signalsReceived(client, asked)).length > 0 ? true : undefined),
    60_000,
  );
  // Back to v1's template, within the rollback window: v1 is current again at once.
  await ns.patchSpec('laddered', { template: ns.template('blue', `${ns.taskQueue}-laddered`) });
  const back = await ns.until(
    'laddered',
    'v1 current again',
    (twd) => twd.status?.currentVersion?.buildID === laddered.v1,
  );
  assert.equal(oldBuild(back, laddered.v1), undefined, 'v1 is no old build any more');
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, laddered.deactivatedAt.getTime() + 30_000 - Date.now())),
  );
  assert.equal((await asked.describe()).status.name, 'RUNNING', 'not cancelled: the ladder stopped');
  assert.deepEqual(await signalsReceived(client, asked), ['ContinueAsNewRequested'], 'asked once, before the rollback');

  const [untouched] = plain.workflows as [WorkflowHandle];
  assert.deepEqual(await signalsReceived(client, untouched), [], 'no ladder: never signalled');
  assert.equal((await untouched.describe()).status.name, 'RUNNING');
  assert.equal(oldBuild(await ns.read('plain'), plain.v1)?.pinnedWorkflows, undefined, 'and nothing counted');
  const reasons = await eventReasons(namespace, 'plain');
  assert.ok(!reasons.some((r) => r.startsWith('BatchOperation')), reasons.join('\n'));
  for (const workflow of [...plain.workflows, ...laddered.workflows]) await workflow.signal('finish');
});

test("a batch the ladder's status lost is found by the real server's list of the build's running batches, and only the build's", async (t) => {
  // The server paces batches by its own worker.batcherRPS (1.31 ignores a request's
  // maxOperationsPerSecond): at its default of 50 a second, the batch below was over before the
  // list saw it on a loaded machine. At one a second it runs for half a minute.
  const { client } = await ownTemporal(t, { 'worker.batcherRPS': 1 });
  const namespace = client.options.namespace;
  const suffix = `${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;
  const temporalName = `listed/${suffix}`;
  const target = {
    service: client.workflowService,
    namespace,
    deploymentName: temporalName,
    identity: 'ladder-list-test',
  };
  const workflowType = `ListedBatchTarget-${suffix}`;
  // Workflows no worker polls stay running, each signalled in its turn.
  const workflows = await Promise.all(
    Array.from({ length: 30 }, (_, i) => i + 1).map((i) =>
      client.workflow.start(workflowType, { taskQueue: `listed-${suffix}`, workflowId: `listed-${suffix}-${i}` }),
    ),
  );
  t.after(() => Promise.all(workflows.map((w) => w.terminate('test over').catch(() => undefined))));
  const query = `WorkflowType = '${workflowType}'`;
  await eventually('the workflows to be visible', async () =>
    Number((await client.workflowService.countWorkflowExecutions({ namespace, query })).count) === workflows.length
      ? true
      : undefined,
  );
  const jobId = batchJobId(temporalName, 'v1', 'Signal', { signalAfter: '1m' });
  await client.workflowService.startBatchOperation({
    namespace,
    jobId,
    visibilityQuery: query,
    reason: 'a batch the status lost',
    signalOperation: { signal: 'ContinueAsNewRequested', identity: target.identity },
  });
  t.after(() => stopBatch(target, jobId, 'test over').catch(() => undefined));
  const listed = await eventually('the batch to be listed', async () => {
    const running = await listRunningBatches(target, batchJobIdPrefix(temporalName, 'v1'));
    return running.length > 0 ? running : undefined;
  }).catch(async (error: Error) => {
    // What the server says of the batch, to tell a batch that ended too soon from one not listed.
    const batch = await describeBatch(target, jobId, 'Signal').catch((e: Error) => e.message);
    throw new Error(`${error.message}; the batch: ${JSON.stringify(batch)}`, { cause: error });
  });
  assert.deepEqual(listed, [jobId]);
  assert.deepEqual(await listRunningBatches(target, batchJobIdPrefix(temporalName, 'v')), [], 'another build: none');
  await stopBatch(target, jobId, 'found');
  await eventually('the stopped batch to leave the list', async () =>
    (await listRunningBatches(target, batchJobIdPrefix(temporalName, 'v1'))).length === 0 ? true : undefined,
  );
});
