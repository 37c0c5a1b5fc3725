// startEnvironment() owns every process it starts: a failed start names the component and shows
// its log, and nothing outlives the owner, not even when the owner is killed outright.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startEnvironment } from '../../dev/localenv/environment.ts';
import { ComponentError } from '../../dev/localenv/process.ts';
import { eventually } from '../support/environment.ts';
import { alive, descendants, startLocalEnvironment } from '../support/npm-start.ts';

test('a component that fails to start is named, its log shown, and nothing is left running', async () => {
  // The CLI splits KEY=VALUE at the first '=', so this key leaves it a value that is not JSON,
  // which it refuses at start.
  const refused = { 'matching.PollerHistoryTTL=not-json': 1 };
  const error = await startEnvironment({ nodeAgent: false, temporalDynamicConfig: refused, log: () => {} }).then(
    async (environment) => {
      await environment.stop();
      assert.fail('the environment started with a dynamic config value the CLI refuses');
    },
    (e: unknown) => e,
  );
  assert.ok(error instanceof ComponentError, `a ComponentError, not ${String(error)}`);
  assert.equal(error.component, 'temporal dev server');
  assert.match(error.message, /last lines of temporal dev server's log/);
  assert.match(error.message, /invalid JSON value for key/, 'the log tail shows why the CLI refused to start');
  await eventually(
    'every started process to end',
    () => Promise.resolve(descendants(process.pid).length === 0 ? true : undefined),
    20_000,
  );
});

for (const signal of ['SIGINT', 'SIGKILL'] as const) {
  test(`${signal} to \`npm start\` leaves no process of the environment behind`, async () => {
    const { owner } = await startLocalEnvironment();
    const started = descendants(owner.pid ?? -1);
    // etcd, kube-apiserver, kube-controller-manager, the Temporal server, the node agent, the controller.
    assert.ok(started.length >= 6, `the environment runs its components as processes (${started.length})`);
    owner.kill(signal);
    await eventually(
      `every process to end after ${signal}`,
      () => Promise.resolve(started.every((pid) => !alive(pid)) ? true : undefined),
      30_000,
    );
  });
}
