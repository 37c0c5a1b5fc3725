// The worker library's replay gate on the real environment, with workflows of both versioning
// behaviours on the current build, running and closed: a new build that breaks the auto-upgrade
// workflow (which would move to it) is stopped before any traffic moves; one that breaks only the
// pinned workflows (which stay where they are) passes by default and is promoted, and its pinned
// workflows finish on their own build; widened to pinned workflows by its input, the gate fails it.
// And the library's replay check, run on the promoted build, says which runs of the old one it replays.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import type { RunReport } from '../../dev/sample-worker/workflows.ts';
import type { ReplayCheckInput, ReplayCheckOutcome, ReplayOutcome } from '../../packages/worker/src/workflow.ts';
import { condition, controlledNamespace, rolledOut, type WorkerDeployments } from '../support/controller.ts';
import { eventually, sharedEnvironment, temporalClient, testNamespace, uniqueName } from '../support/environment.ts';
import { autoUpgradeWorkflow, pinnedWorkflow } from '../support/pinned-workflow.ts';
import { sampleWorkerTemplate } from '../support/sample-template.ts';

const ORDERS = 5;
/** Pinned workflows of v1: the orders, one running, and the gate's own run on v1 (replayGate is pinned). */
const PINNED_ON_V1 = ORDERS + 2;

/** The gate fails the new build (not one of `before`): its build and the worker deployment's message. */
async function gateFails(ns: WorkerDeployments, before: string[]): Promise<{ build: string; message: string }> {
  const stopped = await ns.until(
    'orders',
    'the replay gate to fail the new build',
    (twd) => {
      const target = twd.status?.targetVersion?.buildID ?? '';
      const stalled = condition(twd, 'Stalled');
      return (
        !before.includes(target) &&
        stalled?.reason === 'GateFailed' &&
        stalled.message.includes(`the rollout of build ${target} stops`)
      );
    },
    120_000,
  );
  return {
    build: stopped.status?.targetVersion?.buildID ?? '',
    message: condition(stopped, 'Stalled')?.message ?? '',
  };
}

test('the replay gate replays auto-upgrade workflows: it stops a change that breaks them, and passes one that breaks only pinned workflows unless told to replay those too', async (t) => {
  const namespace = await testNamespace(t, 'replay-gate');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  const temporalName = temporalDeploymentName(namespace, 'orders');
  const gate = { workflowType: 'replayGate', input: { workflows: 20 } };
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce', gate },
    template: ns.template('blue'),
  });
  // No build is current yet: the gate has nothing to replay, and passes.
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  // On v1: pinned workflows closed (orders, its gate run) and running, auto-upgrade ones running and closed.
  const orders = Array.from({ length: ORDERS }, () => uniqueName('order'));
  await Promise.all(
    orders.map((workflowId, i) => client.workflow.execute('order', { taskQueue: ns.taskQueue, workflowId, args: [i] })),
  );
  const pinned = await pinnedWorkflow(client, ns.taskQueue, v1);
  const autoUpgrade = await autoUpgradeWorkflow(client, ns.taskQueue, v1);
  const closedAutoUpgrade = await autoUpgradeWorkflow(client, ns.taskQueue, v1);
  await closedAutoUpgrade.signal('finish');
  assert.equal(((await closedAutoUpgrade.result()) as RunReport).finishedOn.buildId, v1);
  // The gate finds them through visibility, which follows them by a moment.
  const onV1 = `TemporalWorkerDeploymentVersion = '${temporalName}:${v1}'`;
  await eventually('the workflows of v1 in visibility, with their behaviour', async () => {
    const [pinnedCount, autoUpgradeCount] = await Promise.all([
      client.workflow.count(`${onV1} AND TemporalWorkflowVersioningBehavior = 'Pinned'`),
      client.workflow.count(
        `${onV1} AND TemporalWorkflowVersioningBehavior = 'AutoUpgrade' AND ExecutionStatus = 'Completed'`,
      ),
    ]);
    return pinnedCount.count === PINNED_ON_V1 && autoUpgradeCount.count === 1 ? true : undefined;
  });

  // A change that breaks the auto-upgrade workflow: the running one would replay it on the new
  // build at its next task. Both auto-upgrade workflows are replayed, the running one first; no
  // pinned one is.
  await ns.patchSpec('orders', { template: ns.template('auto-upgrade-breaking') });
  const breaking = await gateFails(ns, [v1]);
  t.diagnostic(breaking.message);
  assert.match(
    breaking.message,
    new RegExp(
      `workflow ${autoUpgrade.workflowId} \\(autoUpgradeUntilSignalled\\) of build ${v1} does not replay on this build at event \\d+ [A-Z]\\w+: \\[TMPRL1100\\] Nondeterminism error`,
    ),
  );
  assert.match(breaking.message, /; and 1 more of 2 replayed\b/, 'the closed one too, and nothing pinned');
  // No traffic moved: Temporal still routes everything to v1, and never ramped the breaking build.
  const described = await client.workflowService.describeWorkerDeployment({
    namespace: sharedEnvironment().temporalNamespace,
    deploymentName: temporalName,
  });
  const routing = described.workerDeploymentInfo?.routingConfig;
  assert.equal(routing?.currentDeploymentVersion?.buildId, v1);
  assert.equal(routing?.rampingDeploymentVersion?.buildId ?? undefined, undefined, 'no ramp');
  const summary = described.workerDeploymentInfo?.versionSummaries?.find(
    (v) => v.deploymentVersion?.buildId === breaking.build,
  );
  assert.equal(summary?.firstActivationTime ?? undefined, undefined, `${breaking.build} never took traffic`);

  // A change that breaks only the pinned workflows, with the gate told to replay pinned ones too:
  // the running pinned one first, then the orders, fail; the auto-upgrade ones and v1's gate run replay.
  await ns.patchSpec('orders', {
    template: ns.template('pinned-breaking'),
    rollout: { gate: { input: { behaviors: ['AutoUpgrade', 'Pinned'] } } },
  });
  const widened = await gateFails(ns, [v1, breaking.build]);
  t.diagnostic(widened.message);
  assert.match(
    widened.message,
    new RegExp(`workflow ${pinned.workflowId} \\(pinnedUntilSignalled\\) of build ${v1} does not replay on this build`),
  );
  assert.match(widened.message, new RegExp(`; and ${ORDERS} more of ${PINNED_ON_V1 + 2} replayed\\b`));

  // The same change under the default: passes and is promoted (another build: a failed one stays failed).
  await ns.patchSpec('orders', {
    template: sampleWorkerTemplate(ns.taskQueue, 'pinned-breaking', [{ name: 'ATTEMPT', value: '2' }]),
    rollout: { gate: { input: { behaviors: null } } },
  });
  const promoted = await ns.until(
    'orders',
    'the build that breaks only pinned workflows to pass the gate and become current',
    (twd) => rolledOut(twd) && ![v1, breaking.build, widened.build].includes(twd.status?.currentVersion?.buildID ?? v1),
    120_000,
  );
  const v2 = promoted.status?.currentVersion?.buildID ?? '';
  assert.equal(condition(promoted, 'Stalled')?.status, 'False');
  const query = `WorkflowType = 'replayGate' AND TemporalWorkerDeploymentVersion = '${temporalName}:${v2}'`;
  const gateRun = await eventually(`the gate run on ${v2} in visibility`, async () => {
    for await (const run of client.workflow.list({ query })) return run;
    return undefined;
  });
  const outcome = (await client.workflow.getHandle(gateRun.workflowId, gateRun.runId).result()) as ReplayOutcome;
  assert.deepEqual(outcome, { currentBuildId: v1, replayed: 2, divergences: [] }, 'the two auto-upgrade workflows');

  // The replay check pinned to v2 says of each run it is given whether v2's code replays it: not
  // the pinned one of v1 (the change breaks it), the auto-upgrade one yes, a run Temporal does not
  // have skipped.
  const gone = { workflowId: uniqueName('gone'), runId: randomUUID() };
  const [pinnedRun, autoUpgradeRun] = await Promise.all([pinned.describe(), autoUpgrade.describe()]);
  const check = await client.workflow.execute<(input: ReplayCheckInput) => Promise<ReplayCheckOutcome>>('replayCheck', {
    taskQueue: ns.taskQueue,
    workflowId: uniqueName('replay-check'),
    args: [
      {
        workflows: [
          { workflowId: pinned.workflowId, runId: pinnedRun.runId },
          { workflowId: autoUpgrade.workflowId, runId: autoUpgradeRun.runId },
          gone,
        ],
      },
    ],
    versioningOverride: { pinnedTo: { deploymentName: temporalName, buildId: v2 } },
  });
  const [notReplayed, replayed, skipped] = check.results;
  t.diagnostic(JSON.stringify(notReplayed));
  // Where it diverged and why, in the SDK's words; the event only where the SDK's error names it.
  assert.deepEqual(
    { ...notReplayed, event: undefined, message: undefined },
    {
      workflowId: pinned.workflowId,
      runId: pinnedRun.runId,
      workflowType: 'pinnedUntilSignalled',
      replays: false,
      event: undefined,
      message: undefined,
    },
  );
  assert.match(notReplayed?.message ?? '', /^\[TMPRL1100\] Nondeterminism error/);
  assert.deepEqual(replayed, {
    workflowId: autoUpgrade.workflowId,
    runId: autoUpgradeRun.runId,
    workflowType: 'autoUpgradeUntilSignalled',
    replays: true,
  });
  assert.deepEqual(skipped, { ...gone, replays: false, skipped: 'Temporal no longer has this run' });

  // And it was safe: the pinned workflow finishes on v1's code; the auto-upgrade one moves to v2 and finishes there.
  await pinned.signal('finish');
  assert.equal(((await pinned.result()) as RunReport).finishedOn.buildId, v1);
  await autoUpgrade.signal('finish');
  assert.equal(((await autoUpgrade.result()) as RunReport).finishedOn.buildId, v2);
});
