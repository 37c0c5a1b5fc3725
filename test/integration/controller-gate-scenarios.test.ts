// The upstream gate scenarios (reference 11.2: 2, 3, 11, 12, 18, 22, 23) under each strategy:
// a passing gate lets the strategy do what it does, a failing one holds the build where it is.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { condition, controlledNamespace, rolledOut } from '../support/controller.ts';
import { testNamespace } from '../support/environment.ts';

const gate = (pass: boolean) => ({ workflowType: 'gate', input: { pass } });
const step = { rampPercentage: 5, pauseDuration: '1h' };
const gatePassed = (twd: TemporalWorkerDeployment) =>
  twd.status?.targetVersion?.gates?.every((g) => g.status === 'Completed') === true;

interface Scenario {
  title: string;
  rollout: Record<string, unknown>;
  /** Roll out a first build without a gate, so a current build exists. */
  withCurrent: boolean;
  until: string;
  done: (twd: TemporalWorkerDeployment, previous: string | undefined) => boolean;
  check: (twd: TemporalWorkerDeployment, previous: string | undefined) => void;
}

const scenarios: Scenario[] = [
  {
    title: '2: Manual with a failing gate: the build stays Inactive, the gate failure is reported',
    rollout: { strategy: 'Manual', gate: gate(false) },
    withCurrent: false,
    until: 'the gate to fail',
    done: (twd) => condition(twd, 'Stalled')?.reason === 'GateFailed',
    check: (twd) => assert.equal(twd.status?.targetVersion?.status, 'Inactive'),
  },
  {
    title: '3: Manual with a passing gate: still no promotion',
    rollout: { strategy: 'Manual', gate: gate(true) },
    withCurrent: false,
    until: 'the gate to pass',
    done: gatePassed,
    check: (twd) => assert.equal(twd.status?.currentVersion, undefined),
  },
  {
    title: '11: AllAtOnce with a passing gate: Current',
    rollout: { strategy: 'AllAtOnce', gate: gate(true) },
    withCurrent: true,
    until: 'the new build to be current',
    done: (twd, previous) => rolledOut(twd) && twd.status?.currentVersion?.buildID !== previous,
    check: (twd, previous) => assert.notEqual(twd.status?.currentVersion?.buildID, previous),
  },
  {
    title: '12: AllAtOnce with a failing gate: the new build stays Inactive, the old one current',
    rollout: { strategy: 'AllAtOnce', gate: gate(false) },
    withCurrent: true,
    until: 'the gate to fail',
    done: (twd) => condition(twd, 'Stalled')?.reason === 'GateFailed',
    check: (twd, previous) => {
      assert.equal(twd.status?.targetVersion?.status, 'Inactive');
      assert.equal(twd.status?.currentVersion?.buildID, previous);
    },
  },
  {
    title: '18: Progressive with a passing gate and no current build: promoted directly',
    rollout: { strategy: 'Progressive', steps: [step], gate: gate(true) },
    withCurrent: false,
    until: 'the build to be current',
    done: rolledOut,
    check: (twd) => assert.equal(twd.status?.targetVersion?.rampPercentage, undefined),
  },
  {
    title: '22: Progressive with a passing gate: ramps at the first step',
    rollout: { strategy: 'Progressive', steps: [step], gate: gate(true) },
    withCurrent: true,
    until: 'the new build to ramp',
    done: (twd) => twd.status?.targetVersion?.rampPercentage === 5,
    check: (twd, previous) => assert.equal(twd.status?.currentVersion?.buildID, previous),
  },
  {
    title: '23: Progressive with a failing gate: no ramp',
    rollout: { strategy: 'Progressive', steps: [step], gate: gate(false) },
    withCurrent: true,
    until: 'the gate to fail',
    done: (twd) => condition(twd, 'Stalled')?.reason === 'GateFailed',
    check: (twd, previous) => {
      assert.equal(twd.status?.targetVersion?.status, 'Inactive');
      assert.equal(twd.status?.targetVersion?.rampPercentage, undefined);
      assert.equal(twd.status?.currentVersion?.buildID, previous);
    },
  },
];

suite('gates under each strategy', { concurrency: true }, () => {
  for (const scenario of scenarios) {
    test(scenario.title, async (t) => {
      const namespace = await testNamespace(t, 'gate-scenario');
      const ns = await controlledNamespace(t, namespace);
      let previous: string | undefined;
      if (scenario.withCurrent) {
        await ns.createWorkerDeployment('orders', { replicas: 1, template: ns.template('blue') });
        previous = (await ns.until('orders', 'the first build to be current', rolledOut)).status?.currentVersion
          ?.buildID;
        await ns.patchSpec('orders', { rollout: scenario.rollout, template: ns.template('green') });
      } else {
        await ns.createWorkerDeployment('orders', {
          replicas: 1,
          rollout: scenario.rollout,
          template: ns.template('green'),
        });
      }
      const reached = await ns.until('orders', scenario.until, (twd) => scenario.done(twd, previous));
      // Still so a moment later: the controller does not change its mind.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const later = await ns.read('orders');
      assert.equal(later.status?.targetVersion?.buildID, reached.status?.targetVersion?.buildID);
      scenario.check(later, previous);
    });
  }
});
