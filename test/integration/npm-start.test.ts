// `npm start` as a newcomer meets it: every command it prints works when pasted into a shell,
// a controller that dies is restarted, with a line that says so, and the examples run unchanged.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LABELS } from '../../src/domain/labels.ts';
import { COMMAND_LABELS } from '../../dev/localenv/start-message.ts';
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

/**
 * What the controller says of a connection to a Temporal that is not here, whose placeholders
 * (Temporal Cloud's address, a certificate or key to replace) the example keeps.
 */
const ELSEWHERE = /^(InvalidSecret|TemporalUnreachable|TemporalCredentialsRefused)$/;

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

  it('runs every example unchanged: worker deployments until Current on the nodes they select, connections until checked, owned resources until applied', async () => {
    const output = local.output();
    const kubectl = `KUBECONFIG=${shown(output, 'kubeconfig')} ${printed(output, COMMAND_LABELS.watchWorkerDeployments).split(' ')[1]} kubectl`;
    assert.equal(
      (await shell(conditionOf(kubectl, 'tconn temporal', 'Ready'))).stdout,
      'True Connected',
      "npm start's connection, at the examples' in-cluster address, reaches Temporal",
    );
    // The owned-resource webhook is on: the API server calls it, and it refuses a banned kind.
    const banned = JSON.stringify({
      apiVersion: 'temporal.io/v1alpha1',
      kind: 'TemporalWorkerOwnedResource',
      metadata: { name: 'banned' },
      spec: { workerRef: { name: 'orders' }, object: { apiVersion: 'apps/v1', kind: 'Deployment' } },
    });
    const refused = await shell(`echo '${banned}' | ${kubectl} apply -f -`);
    assert.notEqual(refused.code, 0, 'a twor of a Deployment is refused');
    assert.match(refused.stderr, /denied the request: spec\.object\.kind: Deployment may not be owned/);
    // Owned resources last, while the worker deployment they attach to (minimal.yaml's) still runs.
    const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));
    const owned = files.filter((f) => f.startsWith('twor-'));
    const attachedTo = new Set(
      owned.map((f) => /workerRef:\s*\n\s*name: (\S+)/.exec(readFileSync(path.join(EXAMPLES, f), 'utf8'))?.[1]),
    );
    for (const file of [...files.filter((f) => !owned.includes(f)), ...owned]) {
      const applied = await shell(`${kubectl} apply -f ${path.join(EXAMPLES, file)} -o name`);
      assert.equal(applied.code, 0, `${file} is applied: ${applied.stderr}`);
      const name = /temporalworkerdeployment[^/]*\/(\S+)/.exec(applied.stdout)?.[1];
      const twor = /temporalworkerownedresource[^/]*\/(\S+)/.exec(applied.stdout)?.[1];
      if (name) await runsUntilCurrent(kubectl, file, name, !attachedTo.has(name));
      else if (twor) await appliedToEveryBuild(kubectl, file, twor);
      else await connectionsChecked(kubectl, file, applied.stdout);
    }
  });
});

/** `kubectl get` printing a condition's status and reason, as "True Connected". */
function conditionOf(kubectl: string, resource: string, type: string): string {
  const field = (name: string) => `{.status.conditions[?(@.type=="${type}")].${name}}`;
  return `${kubectl} get ${resource} -o jsonpath='${field('status')} ${field('reason')}'`;
}

async function runsUntilCurrent(kubectl: string, file: string, name: string, thenDelete: boolean): Promise<void> {
  // Manual: the controller runs and registers the build; routing is the user's.
  const wanted = /strategy: Manual/.test(readFileSync(path.join(EXAMPLES, file), 'utf8'))
    ? 'False ManualPromotion'
    : 'True TargetCurrent';
  let seen = '';
  await eventually(
    `${file}: ${name} to be Ready as ${wanted}`,
    async () => (seen = (await shell(conditionOf(kubectl, `twd ${name}`, 'Ready'))).stdout) === wanted || undefined,
    120_000,
  ).catch(async (error: Error) => {
    const conditions = await shell(`${kubectl} get twd ${name} -o jsonpath='{.status.conditions}'`);
    throw new Error(`${error.message} (last: "${seen}"; conditions: ${conditions.stdout})`);
  });
  const list = async <T>(what: string) =>
    (JSON.parse((await shell(`${kubectl} get ${what} -o json`)).stdout) as { items: T[] }).items;
  const pods = await list<V1Pod>(`pods -l ${LABELS.deploymentName}=${name}`);
  const nodes = await list<V1Node>('nodes');
  assert.ok(pods.length > 0, `${file}: ${name} has Pods`);
  for (const pod of pods) {
    const labels = nodes.find((n) => n.metadata?.name === pod.spec?.nodeName)?.metadata?.labels ?? {};
    for (const [key, value] of Object.entries(pod.spec?.nodeSelector ?? {}))
      assert.equal(labels[key], value, `${file}: Pod ${pod.metadata?.name} on node ${pod.spec?.nodeName} has ${key}`);
  }
  if (!thenDelete) return;
  // The worker deployment only: minimal.yaml's connection is the one every example uses.
  const deleted = await shell(`${kubectl} delete twd ${name} --wait=false`);
  assert.equal(deleted.code, 0, `${file}: ${name} is deleted: ${deleted.stderr}`);
}

async function appliedToEveryBuild(kubectl: string, file: string, twor: string): Promise<void> {
  let seen = '';
  await eventually(
    `${file}: ${twor} to be applied`,
    async () =>
      (seen = (await shell(conditionOf(kubectl, `twor ${twor}`, 'Ready'))).stdout) === 'True Applied' || undefined,
    60_000,
  ).catch(async (error: Error) => {
    const status = await shell(`${kubectl} get twor ${twor} -o jsonpath='{.status}'`);
    throw new Error(`${error.message} (last: "${seen}"; status: ${status.stdout})`);
  });
  const names = (await shell(`${kubectl} get twor ${twor} -o jsonpath='{.status.versions[*].resourceName}'`)).stdout;
  assert.ok(names.trim().length > 0, `${file}: ${twor} names its copies`);
}

async function connectionsChecked(kubectl: string, file: string, applied: string): Promise<void> {
  // `tconn name` or `tcconn name`, as kubectl get takes them.
  const connections = [...applied.matchAll(/temporal(cluster)?connection[^/]*\/(\S+)/g)].map(
    (m) => `${m[1] ? 'tcconn' : 'tconn'} ${m[2] ?? ''}`,
  );
  assert.ok(connections.length > 0, `${file} holds a worker deployment or a connection: ${applied}`);
  for (const connection of connections) {
    const ready = await eventually(
      `${file}: connection ${connection} to be checked`,
      async () => (await shell(conditionOf(kubectl, connection, 'Ready'))).stdout.trim() || undefined,
      60_000,
    );
    const [status, reason = ''] = ready.split(' ');
    assert.equal(status, 'False', `${file}: ${connection} cannot reach a Temporal that is not here`);
    assert.match(reason, ELSEWHERE, `${file}: ${connection} says why`);
    const message = await shell(
      `${kubectl} get ${connection} -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}'`,
    );
    assert.match(message.stdout, /key (tls|ca)\.crt|tmprl\.cloud|temporal\.io/, `${file}: names the key or the host`);
  }
  const deleted = await shell(`${kubectl} delete -f ${path.join(EXAMPLES, file)} --wait=false`);
  assert.equal(deleted.code, 0, `${file} is deleted: ${deleted.stderr}`);
}
