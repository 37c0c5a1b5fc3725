// Gate workflows on the real environment: the sample worker's `gate` workflow passes or fails as
// its input says, pinned to the build it judges (it returns the build of the worker that ran it).
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gateWorkflowId } from '../../src/planner/gates.ts';
import { condition, controlledNamespace, gateRanOn, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, temporalClient, testNamespace } from '../support/environment.ts';

test('a failed gate stops the rollout with the workflow named; a spec change runs it again and it passes', async (t) => {
  const namespace = await testNamespace(t, 'gate-fail');
  const client = await temporalClient(t);
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const v1 = (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID;

  const gate = (pass: boolean) => ({
    strategy: 'AllAtOnce',
    gate: { workflowType: 'gate', input: { pass, message: 'the canary found errors' } },
  });
  await ns.patchSpec('orders', { rollout: gate(false), template: ns.template('green') });
  const failed = await ns.until(
    'orders',
    'the gate to fail',
    (twd) => condition(twd, 'Stalled')?.reason === 'GateFailed',
  );
  const v2 = failed.status?.targetVersion?.buildID ?? '';
  const message = condition(failed, 'Stalled')?.message ?? '';
  assert.match(message, /the canary found errors/, 'says how the gate failed');
  assert.match(
    message,
    new RegExp(`temporal-worker-controller/gate/${namespace}/orders/${v2}/rollout/${ns.taskQueue}`),
    'names the workflow',
  );
  assert.equal(failed.status?.currentVersion?.buildID, v1, 'the current build keeps the traffic');
  assert.equal(failed.status?.targetVersion?.gateFailure?.generation, failed.metadata.generation);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const still = await ns.read('orders');
  assert.equal(condition(still, 'Stalled')?.reason, 'GateFailed', 'not retried while the spec is the same');
  assert.equal(still.status?.currentVersion?.buildID, v1);
  const warnings = (await core.listNamespacedEvent({ namespace })).items.filter(
    (e) => e.type === 'Warning' && e.reason === 'GateFailed',
  );
  assert.equal(warnings.length, 1, 'the failure is one Warning event, however many reconciles repeat it');
  assert.match(warnings[0]?.message ?? '', /the canary found errors/);

  await ns.patchSpec('orders', { rollout: gate(true) });
  const passed = await ns.until(
    'orders',
    'the gate to pass on the new generation and the build to be promoted',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID === v2,
  );
  assert.equal(condition(passed, 'Stalled')?.status, 'False');
  assert.equal(passed.status?.targetVersion?.gateFailure, undefined, 'the failure is forgotten once the gate passed');
  assert.equal(
    await gateRanOn(
      client,
      gateWorkflowId(`${namespace}/orders`, v2, { name: 'rollout', ...gate(true) }, ns.taskQueue),
    ),
    v2,
    'the gate ran on the build it judged, not on the current one',
  );
});

test("a step's gate runs before its ramp is set, and when it fails the ramp of the step before is removed: new workflows go back to the current build, pinned ones finish on the failed build", async (t) => {
  const namespace = await testNamespace(t, 'gate-abort');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  const steps = [
    { rampPercentage: 20, pauseDuration: '30s' },
    // Step 2's gate runs while step 1 holds; it decides after a while, so step 1's ramp is seen first.
    {
      rampPercentage: 60,
      pauseDuration: '30s',
      gate: { workflowType: 'gate', input: { pass: false, message: 'error rate too high', delayMs: 4000 } },
    },
  ];
  await ns.patchSpec('orders', { rollout: { strategy: 'Progressive', steps }, template: ns.template('green') });
  const ramping = await ns.until(
    'orders',
    'the new build to ramp at step 1',
    (twd) => twd.status?.targetVersion?.rampPercentage === 20,
  );
  const v2 = ramping.status?.targetVersion?.buildID ?? '';
  const pinned = await client.workflow.start('pinnedUntilSignalled', {
    taskQueue: ns.taskQueue,
    workflowId: `pinned-${v2}`,
    versioningOverride: { pinnedTo: { deploymentName: `${namespace}/orders`, buildId: v2 } },
  });

  const aborted = await ns.until(
    'orders',
    'the step gate to fail and the ramp to be removed',
    (twd) =>
      condition(twd, 'Stalled')?.reason === 'RolloutAborted' && twd.status?.targetVersion?.rampPercentage === undefined,
  );
  assert.match(condition(aborted, 'Stalled')?.message ?? '', /error rate too high/);
  assert.match(condition(aborted, 'Stalled')?.message ?? '', /ramp is removed/);
  assert.equal(aborted.status?.currentVersion?.buildID, v1);
  // Temporal answered NOT_FOUND once in a full run, while its deployment workflow was busy: asked again.
  const described = await eventually('Temporal to describe the deployment', () =>
    client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName: `${namespace}/orders`,
    }),
  );
  assert.equal(
    described.workerDeploymentInfo?.routingConfig?.rampingDeploymentVersion?.buildId ?? '',
    '',
    'Temporal ramps nothing',
  );
  assert.equal(described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId, v1);
  assert.ok(aborted.status?.targetVersion?.deployments?.length, 'the failed build keeps its Deployment');
  const ramps = (await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace })).items
    .filter((e) => e.reason === 'VersionRamped')
    .map((e) => e.message ?? '');
  assert.ok(ramps.some((m) => m.includes('20%')));
  assert.deepEqual(
    ramps.filter((m) => m.includes('60%')),
    [],
    "step 2's ramp was never set: its gate failed first",
  );

  await pinned.signal('finish');
  const report = (await pinned.result()) as { finishedOn: { buildId: string } };
  assert.equal(report.finishedOn.buildId, v2, 'the pinned workflow finished on the failed build');
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(
    (await ns.read('orders')).status?.targetVersion?.rampPercentage,
    undefined,
    'the ramp is not started again for the same spec',
  );
});

test('a gate input read from a Secret reaches the gate and appears nowhere the controller writes', async (t) => {
  const namespace = await testNamespace(t, 'gate-secret');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const lines: string[] = [];
  const ns = await controlledNamespace(t, namespace, { log: (line) => lines.push(line) });
  const secretValue = `s3cr3t-${namespace}`;
  const inputFrom = { secretKeyRef: { name: 'gate-input', key: 'input.json' } };
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'AllAtOnce', gate: { workflowType: 'gate', inputFrom } },
    template: ns.template('blue'),
  });
  const missing = await ns.until(
    'orders',
    'the missing Secret to be reported',
    (twd) => condition(twd, 'Stalled')?.reason === 'GateInputInvalid',
  );
  assert.match(
    condition(missing, 'Stalled')?.message ?? '',
    new RegExp(`Secret ${namespace}/gate-input does not exist`),
  );

  // Not JSON first: the parser's complaint would quote the value.
  const write = (text: string) =>
    core.replaceNamespacedSecret({
      namespace,
      name: 'gate-input',
      body: { metadata: { name: 'gate-input' }, stringData: { 'input.json': text } },
    });
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'gate-input' }, stringData: { 'input.json': `not json ${secretValue}` } },
  });
  const invalid = await ns.until('orders', 'the invalid input to be reported', (twd) =>
    /is not JSON/.test(condition(twd, 'Stalled')?.message ?? ''),
  );
  assert.doesNotMatch(JSON.stringify(invalid.status), new RegExp(secretValue));
  await write(JSON.stringify({ pass: true, token: secretValue }));
  const current = await ns.until('orders', "the gate to pass with the Secret's input", rolledOut);

  const client = await temporalClient(t);
  const build = current.status?.currentVersion?.buildID ?? '';
  const gate = client.workflow.getHandle(
    gateWorkflowId(
      `${namespace}/orders`,
      build,
      { name: 'rollout', gate: { workflowType: 'gate', inputFrom } },
      ns.taskQueue,
    ),
  );
  assert.equal(await gateRanOn(client, gate.workflowId), build, 'the gate ran on the build it judged');
  const history = JSON.stringify((await gate.fetchHistory()).events?.[0]);
  assert.ok(
    history.includes(Buffer.from(JSON.stringify({ pass: true, token: secretValue })).toString('base64')),
    "the gate received the Secret's JSON",
  );
  const events = await core.listNamespacedEvent({ namespace });
  const written = [...lines, JSON.stringify(current.status), ...events.items.map((e) => e.message ?? '')].join('\n');
  assert.ok(
    events.items.some((e) => e.reason === 'GateStarted'),
    'the gate start is an event',
  );
  assert.doesNotMatch(written, new RegExp(secretValue), "the Secret's value is in no log line, status or event");
});

test('a gate input read from a ConfigMap reaches the gate on the target build; while it is missing, one Warning event counts the repeats', async (t) => {
  const namespace = await testNamespace(t, 'gate-configmap');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const client = await temporalClient(t);
  // The count of a repeated event is written once per window: 2 s here instead of 10 min.
  const ns = await controlledNamespace(t, namespace, { eventRepeatWindowMs: 2000 });
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const v1 =
    (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  const rollout = {
    strategy: 'AllAtOnce',
    gate: { workflowType: 'gate', inputFrom: { configMapKeyRef: { name: 'canary', key: 'input.json' } } },
  };
  await ns.patchSpec('orders', { rollout, template: ns.template('green') });
  const missing = await ns.until(
    'orders',
    'the missing ConfigMap to be reported',
    (twd) => condition(twd, 'Stalled')?.reason === 'GateInputInvalid',
  );
  assert.match(
    condition(missing, 'Stalled')?.message ?? '',
    new RegExp(`ConfigMap ${namespace}/canary does not exist`),
  );
  // Reconciled every second meanwhile: the same Warning each time, written once and then counted.
  const warnings = async () =>
    (await core.listNamespacedEvent({ namespace })).items.filter(
      (e) => e.type === 'Warning' && e.reason === 'GateInputInvalid',
    );
  const counted = await eventually(
    'the repeated Warning to be counted',
    async () => {
      const found = await warnings();
      return found.length === 1 && (found[0]?.count ?? 0) >= 3 ? found[0] : undefined;
    },
    30_000,
  );
  assert.match(counted.message ?? '', /ConfigMap .*canary does not exist/);
  assert.equal((await warnings()).length, 1, 'still one Event object');

  const input = { pass: true, message: `from the ConfigMap of ${namespace}` };
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'canary' }, data: { 'input.json': JSON.stringify(input) } },
  });
  const promoted = await ns.until(
    'orders',
    "the gate to pass with the ConfigMap's input and the new build to be current",
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  const v2 = promoted.status?.currentVersion?.buildID ?? '';
  const canaryGate = {
    workflowType: 'gate',
    inputFrom: { configMapKeyRef: { name: 'canary', key: 'input.json' } },
  };
  const gate = client.workflow.getHandle(
    gateWorkflowId(`${namespace}/orders`, v2, { name: 'rollout', gate: canaryGate }, ns.taskQueue),
  );
  assert.equal(
    await gateRanOn(client, gate.workflowId),
    v2,
    'the gate ran on the target build, not on the current one',
  );
  const started = JSON.stringify((await gate.fetchHistory()).events?.[0]);
  assert.ok(
    started.includes(Buffer.from(JSON.stringify(input)).toString('base64')),
    "the gate received the ConfigMap's JSON",
  );
});

test('a gate whose workflow type the build does not register is reported within seconds; fixing the type replaces the run and the rollout completes', async (t) => {
  const namespace = await testNamespace(t, 'gate-stuck');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const v1 = (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID;

  const rollout = (workflowType: string) => ({ strategy: 'AllAtOnce', gate: { workflowType } });
  await ns.patchSpec('orders', { rollout: rollout('UnregisteredSmokeTest'), template: ns.template('green') });
  // A failing workflow task is retried for the gate's hour: the status must not wait that long.
  const stuck = await ns.until(
    'orders',
    'the stuck gate to be reported',
    (twd) => condition(twd, 'Stalled')?.reason === 'GateStuck',
    30_000,
  );
  const v2 = stuck.status?.targetVersion?.buildID ?? '';
  const stage = (workflowType: string) => ({ name: 'rollout', gate: { workflowType } });
  const id = gateWorkflowId(`${namespace}/orders`, v2, stage('UnregisteredSmokeTest'), ns.taskQueue);
  const message = condition(stuck, 'Stalled')?.message ?? '';
  assert.match(message, /gate rollout/, 'names the gate');
  assert.ok(message.includes(id), `names the workflow: ${message}`);
  assert.match(message, /UnregisteredSmokeTest/, "gives the workflow task's failure");
  assert.equal(stuck.status?.currentVersion?.buildID, v1, 'the current build keeps the traffic');
  const firstRun = (await client.workflow.getHandle(id).describe()).runId;

  await ns.patchSpec('orders', { rollout: rollout('gate') });
  await ns.until(
    'orders',
    'the new gate to pass and the build to be promoted',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID === v2,
  );
  const old = await client.workflow.getHandle(id, firstRun).describe();
  assert.equal(old.status.name, 'TERMINATED', 'the run of the old spec was terminated');
  const fixed = gateWorkflowId(`${namespace}/orders`, v2, stage('gate'), ns.taskQueue);
  assert.equal(await gateRanOn(client, fixed), v2, 'the new run, under its own ID, passed on the target build');
});

test('the retry annotation runs a failed gate again, once per value', async (t) => {
  const namespace = await testNamespace(t, 'gate-retry');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const ns = await controlledNamespace(t, namespace);
  const canary = (pass: boolean) => ({
    metadata: { name: 'canary' },
    data: { 'input.json': JSON.stringify({ pass, message: 'the canary found errors' }) },
  });
  await core.createNamespacedConfigMap({ namespace, body: canary(false) });
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
  const v1 = (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID;
  const rollout = {
    strategy: 'AllAtOnce',
    gate: { workflowType: 'gate', inputFrom: { configMapKeyRef: { name: 'canary', key: 'input.json' } } },
  };
  await ns.patchSpec('orders', { rollout, template: ns.template('green') });
  await ns.until('orders', 'the gate to fail', (twd) => condition(twd, 'Stalled')?.reason === 'GateFailed');

  // The input is fixed; the spec is not changed.
  await core.replaceNamespacedConfigMap({ namespace, name: 'canary', body: canary(true) });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(condition(await ns.read('orders'), 'Stalled')?.reason, 'GateFailed', 'nothing retries on its own');

  await custom.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace,
      plural: KINDS.TemporalWorkerDeployment.plural,
      name: 'orders',
      body: { metadata: { annotations: { 'temporal.io/retry-gate': 'after-canary-fix' } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const passed = await ns.until(
    'orders',
    'the gate to run again and the build to be promoted',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
  );
  assert.equal(passed.status?.targetVersion?.gateRetry, 'after-canary-fix', 'the value acted on is remembered');
  assert.equal(passed.metadata.generation, 2, 'no spec change was needed');
});

test('a build whose workers register no activities runs its gate on its workflow queue once its registration grace has passed', async (t) => {
  const namespace = await testNamespace(t, 'gate-no-activities');
  const client = await temporalClient(t);
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('workflows-only-blue') });
  const v1 = (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion?.buildID;

  await ns.patchSpec('orders', {
    rollout: { strategy: 'AllAtOnce', gate: { workflowType: 'workflowOnlyGate' } },
    template: ns.template('workflows-only-green'),
  });
  const promoted = await ns.until(
    'orders',
    'the gate to run on the workflow queue and the build to be promoted',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== v1,
    120_000,
  );
  const v2 = promoted.status?.currentVersion?.buildID ?? '';
  const id = gateWorkflowId(
    `${namespace}/orders`,
    v2,
    { name: 'rollout', gate: { workflowType: 'workflowOnlyGate' } },
    ns.taskQueue,
  );
  const gateRun = await client.workflow.getHandle(id).describe();
  assert.equal(gateRun.status.name, 'COMPLETED');
  assert.equal(
    gateRun.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId,
    v2,
    'the gate ran pinned to the new build',
  );
});
