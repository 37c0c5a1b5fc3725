// The node agent as a process of its own: `node src/node-agent/main.ts --kubeconfig F [--node-name N]`.
// Started by the environment with an IPC channel; it tells the parent when it is ready and
// exits when the parent goes away, so no worker outlives the environment.
import { KubeConfig } from '@kubernetes/client-node';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { parseArgs } from 'node:util';
import { NodeAgent } from './agent.ts';

const { values } = parseArgs({
  options: { kubeconfig: { type: 'string' }, 'node-name': { type: 'string', default: 'local-node' } },
});
if (!values.kubeconfig) {
  console.error('usage: node src/node-agent/main.ts --kubeconfig FILE [--node-name NAME]');
  process.exit(2);
}
// Dozens of workers share this process; their routine state changes would drown the log.
Runtime.install({ logger: new DefaultLogger('WARN') });

const kubeconfig = new KubeConfig();
kubeconfig.loadFromFile(values.kubeconfig);
const agent = new NodeAgent(kubeconfig, values['node-name'], (message) =>
  console.error(`${new Date().toISOString()} ${message}`),
);

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  const force = setTimeout(() => process.exit(code), 10_000);
  force.unref();
  await agent.stop().catch((error: unknown) => console.error('stopping the node agent:', error));
  process.exit(code);
}
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
process.on('disconnect', () => void shutdown(0));

try {
  await agent.start();
} catch (error) {
  console.error('node agent failed to start:', error);
  process.exit(1);
}
console.error(`${new Date().toISOString()} node agent ready: node ${agent.nodeName}`);
process.send?.({ type: 'ready' });
