// `kubectl twc status --watch` in a real terminal (tmux) during a Progressive rollout on the local
// environment: the screen shows the new build ramping, then current, redrawn from the watches;
// `twc status -o json` is checked field by field. The captures go to reports/cli-status/.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { WorkerDeploymentView } from '../../src/cli/status/view.ts';
import { progressiveAtFirstBuild, workerDeployments } from '../support/controller.ts';
import { eventually, sharedEnvironment, testNamespace, uniqueName } from '../support/environment.ts';
import { ensureCommand } from '../support/system-packages.ts';

const run = promisify(execFile);
const BIN = path.join(import.meta.dirname, '../../bin');
const REPORTS = path.join(import.meta.dirname, '../../reports/cli-status');

/** A detached tmux session running `command` on a 160x50 terminal, killed when the test ends. */
async function terminal(t: { after: (fn: () => Promise<unknown>) => void }, command: string) {
  const session = uniqueName('twc-status');
  await run('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '50', command]);
  t.after(() => run('tmux', ['kill-session', '-t', session]).catch(() => undefined));
  return {
    /** What the screen shows now, without colours. */
    capture: async () => (await run('tmux', ['capture-pane', '-p', '-t', session])).stdout,
  };
}

test('kubectl twc status --watch redraws a Progressive rollout as it ramps and completes; -o json has every field', async (t) => {
  ensureCommand('tmux', ['-V'], 'tmux');
  // Backlog metrics on, as twc run has them: the leader reads each build's pollers too.
  const { namespace, ns, v1 } = await progressiveAtFirstBuild(t, 'cli-status', { backlogMetrics: true });
  // Of the same name elsewhere: never shown for this namespace.
  const elsewhere = await testNamespace(t, 'a-decoy');
  await workerDeployments(elsewhere).createWorkerDeployment('orders', { template: ns.template('blue') });

  const { kubeconfigPath, kubeBinary } = sharedEnvironment();
  const screen = await terminal(
    t,
    `env PATH=${BIN}:$PATH KUBECONFIG=${kubeconfigPath} TERM=xterm-256color ${kubeBinary} kubectl twc status orders -n ${namespace} --watch`,
  );
  const first = await eventually('the first frame', async () => {
    const shown = await screen.capture();
    return shown.includes(`${namespace}/orders`) ? shown : undefined;
  });
  assert.match(first, new RegExp(`● ${v1}  Current`), first);
  assert.match(first, /Progressive 25% → 100%/);

  await ns.patchSpec('orders', { template: ns.template('green') });
  const ramping = await eventually('the screen to show the new build ramping at 25%', async () => {
    const shown = await screen.capture();
    return /◐ \S+ {2}Ramping 25% {2}target/.test(shown) ? shown : undefined;
  });
  const v2 = /◐ (\S+) {2}Ramping 25%/.exec(ramping)?.[1] ?? '';
  assert.notEqual(v2, v1);
  assert.match(ramping, new RegExp(`● ${v1}  Current`), 'the current build under it');
  assert.match(ramping, new RegExp(`Deployment orders-${v2}  1/1 ready`));
  // Each build's one worker, as Temporal saw it poll.
  await ns.until(
    'orders',
    'one poller seen of each build',
    (twd) => twd.status?.targetVersion?.pollers === 1 && twd.status.currentVersion?.pollers === 1,
  );
  const polled = await eventually('the screen to show the pollers seen', async () => {
    const shown = await screen.capture();
    return new RegExp(`Ramping 25% {2}target {2}\\S+ {2}1 poller seen`).test(shown) ? shown : undefined;
  });
  assert.match(polled, new RegExp(`● ${v1}  Current  \\S+  1 poller seen`), polled);

  const status = await run(path.join(BIN, 'twc'), ['status', 'orders', '-n', namespace, '-o', 'json'], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath },
  });
  const view = JSON.parse(status.stdout) as WorkerDeploymentView;
  const everywhere = await run(path.join(BIN, 'twc'), ['status', '-A', '-o', 'json'], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath },
  });
  const names = (JSON.parse(everywhere.stdout) as { items: WorkerDeploymentView[] }).items.map(
    (item) => `${item.namespace}/${item.name}`,
  );
  assert.ok(names.includes(`${namespace}/orders`) && names.includes(`${elsewhere}/orders`), names.join(', '));
  const here = await run(path.join(BIN, 'twc'), ['status', '-n', namespace, '-o', 'json'], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath },
  });
  assert.deepEqual(
    (JSON.parse(here.stdout) as { items: WorkerDeploymentView[] }).items.map((item) => item.namespace),
    [namespace],
    '-n shows that namespace only',
  );
  assert.deepEqual(
    [view.namespace, view.name, view.strategy, view.steps, view.generation === view.observedGeneration],
    [namespace, 'orders', 'Progressive', [25], true],
  );
  const [target, current] = view.builds;
  assert.deepEqual(
    [target?.buildID, target?.roles, target?.status, target?.rampPercentage],
    [v2, ['target'], 'Ramping', 25],
  );
  assert.deepEqual(target?.deployments, [{ name: `orders-${v2}`, ready: 1, desired: 1 }]);
  assert.deepEqual([target?.pollers, current?.pollers], [1, 1], 'pollers seen');
  assert.deepEqual([current?.buildID, current?.roles, current?.status], [v1, ['current'], 'Current']);
  assert.ok(target?.createdAt && current?.createdAt && target.createdAt > current.createdAt, 'creation times');
  const progressing = view.conditions.find((c) => c.type === 'Progressing');
  assert.equal(progressing?.status, 'True', JSON.stringify(view.conditions));
  assert.ok(progressing.reason && progressing.message, 'a reason and a message');
  assert.ok(view.events.length > 0 && view.events.length <= 5, `the newest events: ${view.events.length}`);

  const done = await eventually(
    'the screen to show the new build current and the old one draining',
    async () => {
      const shown = await screen.capture();
      return new RegExp(`● ${v2}  Current`).test(shown) && new RegExp(`◌ ${v1}  Draining|○ ${v1}  Drained`).test(shown)
        ? shown
        : undefined;
    },
    90_000,
  );
  await mkdir(REPORTS, { recursive: true });
  await writeFile(path.join(REPORTS, '1-current.txt'), first);
  await writeFile(path.join(REPORTS, '2-ramping.txt'), ramping);
  await writeFile(path.join(REPORTS, '3-promoted.txt'), done);
  t.diagnostic(`screens saved in ${REPORTS}`);
});
