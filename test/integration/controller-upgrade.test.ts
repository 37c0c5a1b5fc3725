// The controller upgraded, then rolled back, while a worker deployment is mid-rollout
// (docs/upgrade.md): version N is an earlier commit of this repository, N+1 this checkout, each
// run as `twc run` with the chart's rights and Lease. As a Deployment's rolling update does, the
// new replica starts and stands by, then the old one gets SIGTERM and hands the Lease over. The
// rollout goes on from the step Temporal is at, its pause counted from when Temporal applied it.
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { temporalDeploymentName } from '../../src/k8s/names.ts';
import { createTemporalConnection, rolledOut, workerDeployments } from '../support/controller.ts';
import { CONTROLLER_RELEASE, COPY_ACCOUNT, grantCopyAccount } from '../support/controller-rbac.ts';
import { checkoutOf } from '../support/earlier-version.ts';
import {
  eventually,
  kubeConfig,
  sharedEnvironment,
  temporalClient,
  testNamespace,
  uniqueName,
} from '../support/environment.ts';
import { temporalOperator } from '../support/temporal-operator.ts';
import { startTwcRun, type TwcRun } from '../support/twc-run.ts';

/**
 * Version N: the commit where CHANGELOG.md and docs/releases.md landed (0.1.0, unreleased), the
 * first to promise what a version keeps. Its package-lock.json is this checkout's, so it runs on
 * these node_modules; its CRDs differ from this checkout's in one field's description only, so the
 * suite's CRDs (N+1's, installed first as docs/install.md says) are its own.
 */
const VERSION_N = '4e0ee40f1cc45f9dcf07fb0047295423ebd2160e';
const PAUSE_MS = 30_000;
const [STEP_1, STEP_2] = [10, 50];
const STEPS = [STEP_1, STEP_2].map((rampPercentage) => ({ rampPercentage, pauseDuration: `${PAUSE_MS / 1000}s` }));
/**
 * How far into step 1's pause the old replica is stopped. A pause counted again from the handover
 * would end this much later than one counted from Temporal's time; half of it is left for
 * Temporal's answers and a loaded machine.
 */
const HANDOVER_INTO_PAUSE_MS = 20_000;
const LEADING = new RegExp(`name="${CONTROLLER_RELEASE.fullname}"`);
/** Temporal still sends workflows to a build in these states: its Deployment must keep its Pods. */
const NEEDED = new Set(['Current', 'Ramping', 'Draining']);

test('upgraded from version N mid-ramp, the controller goes on from the step Temporal is at and finishes; rolled back to N mid-ramp, N does the same', async (t) => {
  const versionN = await checkoutOf(VERSION_N);
  const namespace = await testNamespace(t, 'upgrade');
  await grantCopyAccount(namespace);
  await createTemporalConnection(namespace, { hostPort: sharedEnvironment().temporalAddress });
  const ns = workerDeployments(namespace);
  const operator = temporalOperator(await temporalClient(t), temporalDeploymentName(namespace, 'orders'));
  // One installation: the manager identity in Temporal and the Lease stay across versions.
  const identity = uniqueName('twc-test');
  const startController = async (version: 'N' | 'N+1'): Promise<TwcRun> => {
    const run = await startTwcRun(
      t,
      [
        `--kubeconfig=${sharedEnvironment().controllerKubeconfigPath}`,
        `--identity=${identity}`,
        `--namespace=${namespace}`,
        '--poll-interval=1s',
        `--service-account=${CONTROLLER_RELEASE.namespace}/${CONTROLLER_RELEASE.fullname}`,
        `--owned-resources-service-account=${COPY_ACCOUNT}`,
        // The one Lease the chart's rights let it write, the chart's.
        `--leader-election-namespace=${CONTROLLER_RELEASE.namespace}`,
        `--leader-election-id=${CONTROLLER_RELEASE.fullname}`,
        '--webhook-bind-address=0',
      ],
      version === 'N' ? versionN : undefined,
    );
    const log = path.join(sharedEnvironment().dir, `${namespace}-${version}-${run.metricsPort}.log`);
    t.after(() => writeFileSync(log, run.output()));
    // As the kubelet's readiness probe: a rolling update stops the old Pod only once the new one is ready.
    await eventually(`version ${version} to be ready (its output: ${log})`, async () =>
      (await run.get('/readyz')).status === 200 ? true : undefined,
    );
    return run;
  };
  // A Deployment whose Pod template the new version wrote again would restart its workers.
  const podTemplates = async () =>
    new Map(
      (await kubeConfig().makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace })).items.map((d) => [
        d.metadata?.name,
        JSON.stringify(d.spec?.template),
      ]),
    );
  const leads = (version: string, run: TwcRun) =>
    eventually(`version ${version} to lead`, async () =>
      (await run.sample('leader_election_master_status', LEADING)) === 1 ? Date.now() : undefined,
    );

  let leader = await startController('N');
  await leads('N', leader);
  await ns.createWorkerDeployment('orders', {
    replicas: 1,
    rollout: { strategy: 'Progressive', steps: STEPS },
    template: ns.template('blue'),
  });
  const v0 = (await ns.until('orders', 'v0 to be current', rolledOut)).status?.currentVersion?.buildID ?? '';

  /**
   * With `leader` at step 1 of a new build's rollout, hands over to version `next` mid-pause and
   * follows Temporal until the build is current; checks what must hold across the handover.
   */
  const handOverMidRamp = async (next: 'N' | 'N+1', previousBuild: string): Promise<string> => {
    const step1 = await ns.until(
      'orders',
      'the new build at step 1, since when Temporal says',
      (twd) =>
        twd.status?.targetVersion?.buildID !== previousBuild &&
        twd.status?.targetVersion?.rampPercentage === STEP_1 &&
        twd.status.targetVersion.rampLastModifiedAt !== undefined,
    );
    const build = step1.status?.targetVersion?.buildID ?? '';
    const step1At = new Date(step1.status?.targetVersion?.rampLastModifiedAt ?? 0);
    const successor = await startController(next);
    const templatesBefore = await podTemplates();
    await new Promise((resolve) => setTimeout(resolve, step1At.getTime() + HANDOVER_INTO_PAUSE_MS - Date.now()));
    assert.equal(await leader.terminate(), 0, 'the old version stops gracefully');
    const stoppedAt = Date.now();
    const tookOverAt = await leads(next, successor);
    leader = successor;

    const seen: string[] = [];
    const scaledDownWhileNeeded: string[] = [];
    await eventually(
      `${build} to go on to step 2, then current, under version ${next}`,
      async () => {
        const [state, deployments] = await Promise.all([operator.describe(), ns.buildDeployments()]);
        for (const version of state.versions)
          if (NEEDED.has(version.status) && !(deployments.get(version.buildId)?.replicas ?? 0))
            scaledDownWhileNeeded.push(`${version.buildId} (${version.status})`);
        const entry = state.rampingBuildId
          ? `${state.rampingBuildId} at ${state.rampPercentage}% since ${state.rampChangedAt?.toISOString()}`
          : `current ${state.currentBuildId}`;
        if (seen.at(-1) !== entry) seen.push(entry);
        return entry === `current ${build}` ? true : undefined;
      },
      PAUSE_MS * 3,
    );
    const since = (at: number) => `+${((at - step1At.getTime()) / 1000).toFixed(1)}s`;
    t.diagnostic(
      `to version ${next}: step 1 at ${step1At.toISOString()}, the old version stopped ${since(stoppedAt)}, version ${next} led ${since(tookOverAt)}; Temporal: ${seen.join(', ')}`,
    );
    assert.deepEqual(scaledDownWhileNeeded, [], 'no build Temporal still needs was scaled to zero or deleted');
    // The server may describe no ramp for a moment while it applies a routing change (the events
    // below say the controller never cleared it): only the states it settled in count.
    const settled = seen.filter((entry) => entry !== `current ${previousBuild}`);
    // The new leader may move to step 2 before the first look: step 1 is then not seen again.
    if (settled[0] === `${build} at ${STEP_1}% since ${step1At.toISOString()}`) settled.shift();
    assert.equal(settled.length, 2, `step 2, then current; step 1 not started again: ${seen.join(', ')}`);
    const step2At = new Date(settled[0]?.split(`${build} at ${STEP_2}% since `)[1] ?? '');
    assert.ok(step2At.getTime() >= stoppedAt - 1000, `step 2 by version ${next}: ${seen.join(', ')}`);
    assert.ok(step2At.getTime() - step1At.getTime() >= PAUSE_MS, 'step 1 lasted its pause');
    assert.ok(
      step2At.getTime() - step1At.getTime() < PAUSE_MS + HANDOVER_INTO_PAUSE_MS / 2,
      `step 1's pause counted from when Temporal applied it, not from the handover: step 2 ${since(step2At.getTime())}`,
    );

    const done = await ns.until(
      'orders',
      'the status to say the rollout is done',
      (twd) => rolledOut(twd) && twd.status?.currentVersion?.buildID === build,
    );
    const previous = done.status?.deprecatedVersions?.find((v) => v.buildID === previousBuild);
    assert.match(previous?.status ?? '', /^Drain(ing|ed)$/, 'the build it replaced drains');
    assert.equal((await ns.buildDeployments()).get(previousBuild)?.replicas, 1, 'and keeps its Pods');
    const templatesAfter = await podTemplates();
    for (const [name, template] of templatesBefore)
      assert.equal(templatesAfter.get(name), template, `version ${next} left the Pod template of ${name} as it was`);
    return build;
  };

  await ns.patchSpec('orders', { template: ns.template('green') });
  const v1 = await handOverMidRamp('N+1', v0);
  assert.deepEqual([...(await ns.buildDeployments()).keys()].sort(), [v0, v1].sort(), 'N+1 made no build of its own');

  // Rolled back: N reads and writes over the status N+1 wrote.
  await ns.patchSpec('orders', { template: ns.template('blue-again') });
  const v2 = await handOverMidRamp('N', v1);
  const deployments = await ns.buildDeployments();
  assert.deepEqual([...deployments.keys()].sort(), [v0, v1, v2].sort());
  assert.deepEqual(
    [...deployments.values()].map((d) => d.replicas),
    [1, 1, 1],
    'every build keeps its Pods (sunset.scaledownDelay is an hour)',
  );

  const events = await kubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
  assert.deepEqual(
    events.items
      .filter((e) => ['RampCleared', 'RoutingCleared', 'StatusUnreadable'].includes(e.reason ?? ''))
      .map((e) => `${e.reason}: ${e.message}`),
    [],
    'no version cleared a ramp, and each read the status the other wrote',
  );
});
