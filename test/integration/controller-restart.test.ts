// A controller restarted mid-ramp resumes the rollout where Temporal says it is: it neither
// starts the steps over nor skips one, because the step and its clock live in Temporal.
import { CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { controlledNamespace, rolledOut } from '../support/controller.ts';
import { eventually, kubeConfig, temporalClient, testNamespace } from '../support/environment.ts';
import { temporalOperator } from '../support/temporal-operator.ts';

test('Progressive: stopped during step 1 and restarted after its pause, the controller goes on to step 2, then current', async (t) => {
  const namespace = await testNamespace(t, 'restart');
  const ns = await controlledNamespace(t, namespace);
  const operator = temporalOperator(await temporalClient(t), temporalDeploymentName(namespace, 'orders'));
  const steps = [
    { rampPercentage: 10, pauseDuration: '30s' },
    { rampPercentage: 50, pauseDuration: '30s' },
  ];
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Progressive', steps },
    template: ns.template('blue'),
  });
  const v0 = (await ns.until('orders', 'v0 to be current', rolledOut)).status?.currentVersion?.buildID;
  await ns.patchSpec('orders', { template: ns.template('green') });
  const step1 = await ns.until(
    'orders',
    'v1 at step 1, since when Temporal says',
    (twd) =>
      twd.status?.targetVersion?.rampPercentage === 10 && twd.status.targetVersion.rampLastModifiedAt !== undefined,
  );
  const v1 = step1.status?.targetVersion?.buildID;
  const step1At = new Date(step1.status?.targetVersion?.rampLastModifiedAt ?? 0);

  await ns.stopController();
  // Stopped until step 1's pause is over: nothing moves without a controller.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, step1At.getTime() + 32_000 - Date.now())));
  const stopped = await operator.describe();
  assert.deepEqual(
    [stopped.rampingBuildId, stopped.rampPercentage, stopped.rampChangedAt?.getTime()],
    [v1, 10, step1At.getTime()],
  );

  const restartedAt = Date.now();
  await ns.startController();
  const seen: string[] = [];
  const promoted = await eventually(
    'v1 to go through step 2 to current',
    async () => {
      const state = await operator.describe();
      const entry =
        state.currentBuildId === v1 && !state.rampingBuildId
          ? 'current'
          : `${state.rampPercentage}% since ${state.rampChangedAt?.toISOString()}`;
      if (seen.at(-1) !== entry) seen.push(entry);
      return entry === 'current' ? state : undefined;
    },
    120_000,
  );
  const promotedAt = Date.now();
  // What the controller changed, it says in an event: it never took the ramp away.
  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
  assert.equal(
    events.items.filter((e) => e.reason === 'RampCleared' || e.reason === 'RoutingCleared').length,
    0,
    'the controller never removed the ramp',
  );
  // The server may describe no ramp for a moment while it applies a routing change (before naming
  // the new current build, or between two ramps): only the states it settled in count.
  const settled = seen.filter((entry) => entry !== 'undefined% since undefined');
  // The restarted controller may move to step 2 before the first look: step 1 then is not seen again.
  if (settled[0] === `10% since ${step1At.toISOString()}`) settled.shift();
  const [step2, last] = settled;
  assert.match(step2 ?? '', /^50% since /, `then step 2: ${seen.join(', ')}`);
  assert.equal(last, 'current');
  assert.equal(settled.length, 2, `no other state in between, step 1 not started over: ${seen.join(', ')}`);
  const step2At = new Date(step2?.replace(/^50% since /, '') ?? '');
  assert.ok(step2At.getTime() >= restartedAt - 1000, 'step 2 began only after the restart');
  assert.ok(promotedAt - step2At.getTime() >= 30_000, 'step 2 lasted its pause: not skipped');
  assert.notEqual(promoted.currentBuildId, v0);
  await ns.until('orders', 'the status to say so', rolledOut);
});
