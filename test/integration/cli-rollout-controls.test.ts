// twc pause, resume, promote and abort against the real controller and Temporal: each changes
// spec.rollout, and the controller holds, goes on, promotes or aborts as that field says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { sharedEnvironment, testNamespace } from '../support/environment.ts';

const execute = promisify(execFile);
const TWC = path.join(import.meta.dirname, '../../bin/twc');

/** Runs `twc args…` against the shared cluster: its output, or its refusal on stderr. */
async function twc(...args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await execute(TWC, args, {
      env: { ...process.env, KUBECONFIG: sharedEnvironment().kubeconfigPath },
    });
    return { ok: true, out: stdout.trim() };
  } catch (error) {
    return { ok: false, out: String((error as { stderr?: string }).stderr ?? error).trim() };
  }
}

const ramping = (twd: TemporalWorkerDeployment, build: string, percentage: number) =>
  twd.status?.targetVersion?.buildID === build && twd.status.targetVersion.rampPercentage === percentage;

test('a Progressive rollout paused holds its ramp, resumed goes on, promoted skips its pauses; a ramp aborted is cleared', async (t) => {
  const namespace = await testNamespace(t, 'cli-controls');
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    // Pauses far longer than the test: only promote can end them.
    rollout: {
      strategy: 'Progressive',
      steps: [
        { rampPercentage: 10, pauseDuration: '30m' },
        { rampPercentage: 40, pauseDuration: '30m' },
      ],
    },
    template: ns.template('blue'),
  });
  const v1 = (await ns.until('orders', 'v1 to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  const paused = await twc('pause', 'orders', '-n', namespace);
  assert.deepEqual(paused, {
    ok: true,
    out: `${namespace}/orders: paused: no change moves new workflows toward the target until \`twc resume\``,
  });
  await ns.patchSpec('orders', { template: ns.template('green') });
  const held = await ns.until(
    'orders',
    'the new build held by the pause',
    (twd) => condition(twd, 'Progressing')?.reason === 'Paused',
  );
  const v2 = held.status?.targetVersion?.buildID ?? '';
  assert.notEqual(v2, v1);
  assert.match(
    condition(held, 'Progressing')?.message ?? '',
    /paused \(spec\.rollout\.paused\): it takes no new workflows yet/,
  );
  assert.equal(held.status?.targetVersion?.rampPercentage, undefined, 'no ramp while paused');
  assert.equal(condition(held, 'Stalled')?.status, 'False', 'paused is not stalled');
  assert.equal(
    (await twc('promote', 'orders', '-n', namespace)).out,
    `twc promote: ${namespace}/orders: is paused: \`twc resume\` it first`,
  );

  assert.equal((await twc('resume', 'orders', '-n', namespace)).out, `${namespace}/orders: resumed`);
  await ns.until('orders', 'the ramp at step 1 once resumed', (twd) => ramping(twd, v2, 10));
  const refused = await twc('promote', 'orders', '-n', namespace, '--build', v1);
  assert.deepEqual(refused, {
    ok: false,
    out: `twc promote: ${namespace}/orders: build ${v1} is not the target: the target is build ${v2}`,
  });
  assert.deepEqual(await twc('promote', 'orders', '-n', namespace, '--build', v2), {
    ok: true,
    out: `${namespace}/orders: build ${v2} is promoted: the remaining steps go without their pauses, each gate still runs`,
  });
  const promoted = await ns.until(
    'orders',
    'v2 current long before its 30-minute pauses',
    (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID === v2,
  );
  assert.equal(condition(promoted, 'Ready')?.status, 'True');

  await ns.patchSpec('orders', { template: ns.template('blue-again') });
  const v3 =
    (await ns.until('orders', 'v3 ramping at step 1', (twd) => twd.status?.targetVersion?.rampPercentage === 10)).status
      ?.targetVersion?.buildID ?? '';
  assert.deepEqual(await twc('abort', 'orders', '-n', namespace), {
    ok: true,
    out: `${namespace}/orders: the rollout of build ${v3} is aborted: its ramp is cleared`,
  });
  const aborted = await ns.until(
    'orders',
    'the ramp of v3 cleared',
    (twd) =>
      condition(twd, 'Progressing')?.reason === 'RolloutAborted' &&
      twd.status?.targetVersion?.rampPercentage === undefined,
  );
  assert.equal(aborted.status?.currentVersion?.buildID, v2, 'new workflows go to v2 again');
  assert.equal(condition(aborted, 'Stalled')?.status, 'True', 'a person must change the template');
  assert.match(condition(aborted, 'Stalled')?.message ?? '', /until the template names another build/);
});

test('under Manual, twc promote makes the target current; pause is refused with the reason', async (t) => {
  const namespace = await testNamespace(t, 'cli-manual');
  const ns = await controlledNamespace(t, namespace);
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Manual' },
    template: ns.template('blue'),
  });
  const waiting = await ns.until(
    'orders',
    'the build waiting for a person',
    (twd) => condition(twd, 'Ready')?.reason === 'ManualPromotion',
  );
  const v1 = waiting.status?.targetVersion?.buildID ?? '';
  assert.match(condition(waiting, 'Ready')?.message ?? '', new RegExp(`twc promote orders -n ${namespace}`));
  assert.equal(
    (await twc('pause', 'orders', '-n', namespace)).out,
    `twc pause: ${namespace}/orders: uses the Manual strategy, which moves no traffic: there is nothing to pause`,
  );
  assert.equal((await twc('promote', 'orders', '-n', namespace)).ok, true);
  const current = await ns.until('orders', 'v1 current', rolledOut);
  assert.equal(current.status?.currentVersion?.buildID, v1);
});
