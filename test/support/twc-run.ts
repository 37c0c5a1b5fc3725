// `twc run` as a child process, as users and the chart run it: by default this checkout's, or the
// bin/twc of another checkout (an earlier version of the controller, see earlier-version.ts).
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { freePort } from '../../dev/localenv/ports.ts';

const THIS_CHECKOUT = path.join(import.meta.dirname, '../..');

export interface TwcRun {
  metricsPort: number;
  /** GET on one of its endpoints: status and body. */
  get(endpoint: '/metrics' | '/healthz' | '/readyz'): Promise<{ status: number; body: string }>;
  /** Sum of the samples of a metric whose labels match, e.g. sample('twc_temporal_requests_total', /method="DescribeWorkerDeployment"/). */
  sample(name: string, labels?: RegExp): Promise<number>;
  /** Sends SIGTERM; resolves with the exit code. */
  terminate(): Promise<number | null>;
  exited: Promise<number | null>;
  output(): string;
}

/**
 * `twc run args…` of `checkout`, serving plain metrics and probes on ports of its own, killed when
 * the test ends; `args` say the rest.
 */
export async function startTwcRun(t: TestContext, args: string[], checkout = THIS_CHECKOUT): Promise<TwcRun> {
  const [metricsPort, probePort] = [await freePort(), await freePort()];
  // bin/twc runs the Node its checkout pins, whatever `node` the machine has.
  const child = spawn(
    path.join(checkout, 'bin/twc'),
    [
      'run',
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      `--health-probe-bind-address=127.0.0.1:${probePort}`,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => {
    child.kill('SIGKILL');
  });
  const get = async (endpoint: string) => {
    const response = await fetch(`http://127.0.0.1:${endpoint === '/metrics' ? metricsPort : probePort}${endpoint}`);
    return { status: response.status, body: await response.text() };
  };
  return {
    metricsPort,
    get,
    sample: async (name, labels) => {
      const lines = (await get('/metrics')).body
        .split('\n')
        .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
      return lines
        .filter((line) => !labels || labels.test(line))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    },
    terminate: () => {
      child.kill('SIGTERM');
      return exited;
    },
    exited,
    output: () => output,
  };
}
