// `npm start` as a newcomer meets it: every command it prints works when pasted into a shell,
// a controller that dies is restarted, with a line that says so, and the examples run unchanged.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMAND_LABELS } from '../../src/localenv/start-message.ts';
import { eventually } from '../support/environment.ts';
import { commandLine, descendants, startLocalEnvironment, type LocalEnvironment } from '../support/npm-start.ts';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a printed line in a shell; a watch (`-w`) is stopped after `watchMs`, as a user would press Ctrl-C. */
function shell(command: string, watchMs?: number): Promise<Ran> {
  const child = spawn('sh', ['-c', command], { detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer =
    watchMs === undefined ? undefined : setTimeout(() => process.kill(-(child.pid ?? 0), 'SIGINT'), watchMs);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The command printed after `label`. */
function printed(output: string, label: string): string {
  const line = output.split('\n').find((l) => l.startsWith(label));
  assert.ok(line, `npm start printed a line starting with "${label}":\n${output}`);
  return line.slice(label.length).trim();
}

/** The value printed after `label:` (kubeconfig, temporal UI...). */
function shown(output: string, label: string): string {
  return printed(output, `${label}:`);
}

const EXAMPLES = path.join(import.meta.dirname, '../../examples');

/** Examples that need what a one-node local environment cannot give. */
const NOT_LOCAL: Record<string, string> = {
  'minimal.yaml': 'its TemporalConnection points at the in-cluster address temporal-frontend.temporal.svc:7233',
  'connection-mtls.yaml': 'placeholder client certificate for Temporal Cloud',
  'connection-api-key.yaml': 'placeholder API key for Temporal Cloud',
  'pools.yaml': 'selects two node pools (node-pool: spot, node-pool: on-demand); the environment has one node',
  'twor-hpa.yaml': 'TemporalWorkerOwnedResource is accepted, not rendered',
  'twor-pdb.yaml': 'TemporalWorkerOwnedResource is accepted, not rendered',
};

describe('npm start', () => {
  let local: LocalEnvironment;
  before(async () => {
    local = await startLocalEnvironment();
  });
  after(async () => {
    local.owner.kill('SIGINT');
    await new Promise((resolve) => local.owner.once('exit', resolve));
  });

  it('prints watch commands that work, the Temporal CLI and a Temporal UI that answers', async () => {
    const output = local.output();
    for (const label of [COMMAND_LABELS.watchWorkerDeployments, COMMAND_LABELS.watchDeployments]) {
      const watched = await shell(printed(output, label), 5_000);
      assert.equal(watched.stderr, '', `${label} writes no error`);
      assert.match(watched.stdout, /^NAME\s/m, `${label} prints a table`);
      assert.match(watched.stdout, /^sample/m, `${label} shows the sample`);
    }
    const build = /is Current at build (\S+)/.exec(output)?.[1] ?? '';
    const described = await shell(printed(output, COMMAND_LABELS.describeInTemporal));
    assert.equal(described.code, 0, `the Temporal CLI command succeeds: ${described.stderr}`);
    assert.ok(described.stdout.includes(build), `it shows build ${build}: ${described.stdout}`);
    const ui = await fetch(shown(output, 'temporal UI'));
    assert.equal(ui.status, 200, 'the Temporal UI answers');
  });

  it('restarts a controller that died, says so, and the restarted one rolls out a build', async () => {
    const controllers = () =>
      descendants(local.owner.pid ?? -1).filter((pid) => commandLine(pid).includes('cli/main.ts run'));
    const [first] = controllers();
    assert.ok(first, 'npm start runs a controller');
    process.kill(first, 'SIGKILL');
    await eventually(
      'npm start to say the controller died and runs again',
      () =>
        Promise.resolve(
          /^controller exited \(SIGKILL\); restarting it/m.test(local.output()) &&
            /^controller running again$/m.test(local.output())
            ? true
            : undefined,
        ),
      60_000,
    );
    const [second] = controllers();
    assert.ok(second !== undefined && second !== first, 'a new controller process runs');

    const output = local.output();
    const before = /is Current at build (\S+)/.exec(output)?.[1];
    const rolled = await shell(printed(output, COMMAND_LABELS.rollOut));
    assert.equal(rolled.code, 0, `the roll-out command succeeds: ${rolled.stderr}`);
    const kubectl = `KUBECONFIG=${shown(output, 'kubeconfig')} ${printed(output, COMMAND_LABELS.watchWorkerDeployments).split(' ')[1]} kubectl`;
    const current = `${kubectl} get twd sample -o jsonpath='{.status.currentVersion.buildID} {.status.targetVersion.buildID}'`;
    await eventually(
      'the restarted controller to make the new build Current',
      async () => {
        const [now, target] = (await shell(current)).stdout.split(' ');
        return now && now === target && now !== before ? now : undefined;
      },
      120_000,
    );
  });

  it('runs every example that a one-node environment can run, unchanged, until its build is Current', async () => {
    const output = local.output();
    const kubectl = `KUBECONFIG=${shown(output, 'kubeconfig')} ${printed(output, COMMAND_LABELS.watchWorkerDeployments).split(' ')[1]} kubectl`;
    const runnable = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml') && !(f in NOT_LOCAL));
    assert.ok(runnable.length >= 5, `examples to run: ${runnable.join(', ')}`);
    for (const file of runnable) {
      const applied = await shell(`${kubectl} apply -f ${path.join(EXAMPLES, file)} -o name`);
      assert.equal(applied.code, 0, `${file} is applied: ${applied.stderr}`);
      const name = /temporalworkerdeployment[^/]*\/(\S+)/.exec(applied.stdout)?.[1];
      assert.ok(name, `${file} holds a worker deployment: ${applied.stdout}`);
      // Manual: the controller runs and registers the build; routing is the user's.
      const wanted = /strategy: Manual/.test(readFileSync(path.join(EXAMPLES, file), 'utf8'))
        ? 'False ManualPromotion'
        : 'True TargetCurrent';
      const ready = `${kubectl} get twd ${name} -o jsonpath='{.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].reason}'`;
      let seen = '';
      await eventually(
        `${file}: ${name} to be Ready as ${wanted}`,
        async () => ((seen = (await shell(ready)).stdout) === wanted ? true : undefined),
        120_000,
      ).catch(async (error: Error) => {
        const conditions = await shell(`${kubectl} get twd ${name} -o jsonpath='{.status.conditions}'`);
        throw new Error(`${error.message} (last: "${seen}"; conditions: ${conditions.stdout})`);
      });
      const deleted = await shell(`${kubectl} delete -f ${path.join(EXAMPLES, file)} --wait=false`);
      assert.equal(deleted.code, 0, `${file} is deleted: ${deleted.stderr}`);
    }
  });
});
