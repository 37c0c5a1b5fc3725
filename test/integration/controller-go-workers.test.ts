// Go builds rolled out end to end: the Go sample worker (dev/sample-worker-go, the Go worker
// library) built into an OCI image and run by the node agent as a real process in a Pod of its own.
// Its replay gate stops a build that breaks the pinned workflow and passes a compatible one, which
// ramps and is promoted; its replay check lets moveToCurrent move the old build's pinned workflow
// onto it, and the old build drains (SIGTERM, the library's drain) and retires while that workflow
// runs; then the ladder's ContinueAsNewRequested, heard by the library, moves the next one on.
// On the newer server: the shared one starts a continue-as-new on the old run's build whatever it asks.
import { CoreV1Api } from '@kubernetes/client-node';
import type { WorkflowHandle } from '@temporalio/client';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { machineAddress } from '../../dev/localenv/webhook.ts';
import { loadImage } from '../../dev/node-agent/image-store.ts';
import { buildSampleWorkerGoImage } from '../../dev/sample-worker-go/image.ts';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import type { ReplayOutcome } from '../../packages/worker/src/workflow.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, sharedEnvironment, testNamespace } from '../support/environment.ts';
import { ownTemporal } from '../support/own-temporal.ts';
import { pinnedWorkflow } from '../support/pinned-workflow.ts';
import { podLogs } from '../support/pod-logs.ts';
import { SAMPLE_WORKER_GO_IMAGE, sampleWorkerTemplate } from '../support/sample-template.ts';

const imageDir = mkdtempSync(path.join(tmpdir(), 'twc-sample-worker-go-'));
after(() => rmSync(imageDir, { recursive: true, force: true }));

before(async () => {
  const layout = path.join(imageDir, 'layout');
  await buildSampleWorkerGoImage(layout, SAMPLE_WORKER_GO_IMAGE);
  await loadImage(layout, sharedEnvironment().imageStore, SAMPLE_WORKER_GO_IMAGE);
});

async function eventMessages(namespace: string, reason: string): Promise<string[]> {
  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
  return events.items.filter((e) => e.reason === reason).map((e) => e.message ?? '');
}

async function pinnedTo(workflow: WorkflowHandle): Promise<string | undefined> {
  const info = (await workflow.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return info?.versioningOverride?.pinned?.version?.buildId ?? undefined;
}

test('Go builds: the Go replay gate stops a breaking build and passes a compatible one, whose replay check moves the pinned workflows on; the ladder signal is heard', async (t) => {
  let passed = false;
  const temporal = await ownTemporal(t, {}, { newer: true });
  const client = temporal.client;
  const namespace = await testNamespace(t, 'go-workers');
  // The Pods have networks of their own: they dial this machine's address, not loopback.
  const port = temporal.address.slice(temporal.address.lastIndexOf(':') + 1);
  const ns = await controlledNamespace(t, namespace, { temporalAddress: `${machineAddress()}:${port}` });
  t.after(() => {
    if (passed) return;
    t.diagnostic(`the Go workers' output:\n${podLogs(namespace)}`);
    return ns.read('orders').then((twd) => t.diagnostic(`its status: ${JSON.stringify(twd.status)}`));
  });
  const goTemplate = (behaviour: string) => sampleWorkerTemplate(ns.taskQueue, behaviour, [], SAMPLE_WORKER_GO_IMAGE);
  const temporalName = temporalDeploymentName(namespace, 'orders');
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: {
      strategy: 'Progressive',
      steps: [{ rampPercentage: 50, pauseDuration: '30s' }],
      gate: { workflowType: 'replayGate', input: { behaviors: ['Pinned'] } },
    },
    sunset: { scaledownDelay: '1s', deleteDelay: '1s', pinnedWorkflows: { moveToCurrent: true } },
    template: goTemplate('blue'),
  });
  const v1 = (await ns.until('orders', 'v1 to be current', rolledOut, 120_000)).status?.currentVersion?.buildID ?? '';
  const onV1 = await pinnedWorkflow(client, ns.taskQueue, v1);
  const pinnedOnV1 = `TemporalWorkerDeploymentVersion = '${temporalName}:${v1}' AND TemporalWorkflowVersioningBehavior = 'Pinned'`;
  // The gate finds them through visibility: the workflow and v1's own gate run.
  await eventually('the pinned workflows of v1 in visibility', async () =>
    (await client.workflow.count(pinnedOnV1)).count === 2 ? true : undefined,
  );

  // A Go build whose pinned workflow does not replay v1's history: its gate fails it before any traffic moves.
  await ns.patchSpec('orders', { template: goTemplate('pinned-breaking') });
  const stopped = await ns.until(
    'orders',
    'the Go replay gate to fail the breaking build',
    (twd) => twd.status?.targetVersion?.buildID !== v1 && condition(twd, 'Stalled')?.reason === 'GateFailed',
    120_000,
  );
  const breaking = stopped.status?.targetVersion?.buildID ?? '';
  const message = condition(stopped, 'Stalled')?.message ?? '';
  t.diagnostic(message);
  assert.match(
    message,
    new RegExp(
      `workflow ${onV1.workflowId} \\(pinnedUntilSignalled\\) of build ${v1} does not replay on this build( at event \\d+ \\w+)?: \\[TMPRL1100\\]`,
    ),
  );
  const routing = (
    await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName: temporalName,
    })
  ).workerDeploymentInfo?.routingConfig;
  assert.equal(routing?.currentDeploymentVersion?.buildId, v1);
  assert.equal(routing?.rampingDeploymentVersion?.buildId ?? undefined, undefined, 'the breaking build never ramped');

  // A compatible Go build: its gate replays both, it ramps, then is promoted.
  await ns.patchSpec('orders', { template: goTemplate('green') });
  const ramping = await ns.until(
    'orders',
    'the compatible build to ramp',
    (twd) => twd.status?.targetVersion?.rampPercentage === 50,
    120_000,
  );
  const v2 = ramping.status?.targetVersion?.buildID ?? '';
  assert.notEqual(v2, breaking);
  const gateRun = await eventually(`the gate run on ${v2} in visibility`, async () => {
    const query = `WorkflowType = 'replayGate' AND TemporalWorkerDeploymentVersion = '${temporalName}:${v2}'`;
    for await (const run of client.workflow.list({ query })) return run;
    return undefined;
  });
  assert.deepEqual(await client.workflow.getHandle(gateRun.workflowId, gateRun.runId).result(), {
    currentBuildId: v1,
    replayed: 2,
    divergences: [],
  } satisfies ReplayOutcome);

  // moveToCurrent: v2's replay check replays the workflow, which is moved onto v2; v1 retires while it runs.
  const moved = await eventually(
    "v1's pinned workflow moved onto v2",
    async () => (await eventMessages(namespace, 'PinnedWorkflowsMoved')).find((m) => m.includes(`build ${v1} `)),
    180_000,
  );
  t.diagnostic(moved);
  assert.equal(moved, `round 1 moved 1 pinned workflow of build ${v1} onto build ${v2}`);
  assert.equal(await pinnedTo(onV1), v2);
  await eventually(
    "v1's Deployment to be deleted once drained",
    async () => ((await ns.buildDeployments()).has(v1) ? undefined : true),
    120_000,
  );
  assert.equal((await onV1.describe()).status.name, 'RUNNING', 'it outlived its first build');
  await onV1.signal('finish');
  const report = (await onV1.result()) as RunReport;
  assert.deepEqual([report.startedOn.buildId, report.finishedOn.buildId], [v1, v2]);
  assert.deepEqual([report.startedOn.behaviour, report.finishedOn.behaviour], ['blue', 'green'], 'Go workers ran both');

  // The ladder instead of moves: the Go library hears ContinueAsNewRequested, and the next run starts on v3.
  const onV2 = await pinnedWorkflow(client, ns.taskQueue, v2);
  const firstRun = (await onV2.describe()).runId;
  await ns.patchSpec('orders', {
    template: goTemplate('yellow'),
    sunset: { pinnedWorkflows: { moveToCurrent: null, signalAfter: '1s' } },
  });
  const v3 =
    (
      await ns.until(
        'orders',
        'v3 to be current',
        (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v2,
        180_000,
      )
    ).status?.currentVersion?.buildID ?? '';
  await eventually(
    'the workflow to continue as new onto v3',
    async () => {
      const d = await onV2.describe();
      return d.runId !== firstRun && d.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId === v3
        ? true
        : undefined;
    },
    120_000,
  );
  await eventually(
    "v2's Deployment to be deleted once drained",
    async () => ((await ns.buildDeployments()).has(v2) ? undefined : true),
    120_000,
  );
  const first = (await client.workflow.getHandle(onV2.workflowId, firstRun).fetchHistory()).events ?? [];
  assert.deepEqual(
    [
      first.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []),
      Boolean(first.at(-1)?.workflowExecutionContinuedAsNewEventAttributes),
    ],
    [['ContinueAsNewRequested'], true],
    'the first run heard the ladder and continued as new',
  );
  await onV2.signal('finish');
  const next = (await onV2.result()) as RunReport;
  assert.deepEqual([next.startedOn.buildId, next.finishedOn.buildId], [v3, v3]);
  passed = true;
});
