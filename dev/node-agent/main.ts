// The node agent as a process of its own:
// `node dev/node-agent/main.ts --kubeconfig F [--nodes JSON] [--service-addresses JSON]
// [--image-store DIR --pod-log-dir DIR] [--token-renew-after SECONDS] [--sdk-metrics HOST:PORT]`,
// the nodes a list of {name, labels?, taints?} (default: one node, local-node), the service
// addresses an object from the host:port a Pod dials to the local host:port that serves it, the
// image store the images Pods may run as processes, the renewal of projected tokens sooner than a
// kubelet's (tests), where the hosted workers' SDK metrics are served for Prometheus.
// Started by the environment with an IPC channel; it tells the parent when it is ready and
// exits when the parent goes away, so no worker outlives the environment.
import { KubeConfig } from '@kubernetes/client-node';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { parseArgs } from 'node:util';
import { NodeAgent } from './agent.ts';
import type { LocalNode } from './placement.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    nodes: { type: 'string', default: '[{"name":"local-node"}]' },
    'service-addresses': { type: 'string', default: '{}' },
    'image-store': { type: 'string' },
    'pod-log-dir': { type: 'string' },
    'token-renew-after': { type: 'string' },
    'sdk-metrics': { type: 'string' },
  },
});
if (!values.kubeconfig) {
  console.error(
    'usage: node dev/node-agent/main.ts --kubeconfig FILE [--nodes JSON] [--service-addresses JSON] [--image-store DIR] [--pod-log-dir DIR] [--token-renew-after SECONDS] [--sdk-metrics HOST:PORT]',
  );
  process.exit(2);
}
const nodes = (JSON.parse(values.nodes) as Partial<LocalNode>[]).map((node) => ({
  name: node.name ?? '',
  labels: node.labels ?? {},
  taints: node.taints ?? [],
}));
// Dozens of workers share this process; their routine state changes would drown the log. They
// share its SDK metrics too: what tells one build's from another's is the workflows' own tags.
Runtime.install({
  logger: new DefaultLogger('WARN'),
  ...(values['sdk-metrics']
    ? {
        telemetryOptions: {
          metrics: { prometheus: { bindAddress: values['sdk-metrics'], countersTotalSuffix: true } },
        },
      }
    : {}),
});

const kubeconfig = new KubeConfig();
kubeconfig.loadFromFile(values.kubeconfig);
const agent = new NodeAgent(kubeconfig, nodes, {
  serviceAddresses: new Map(Object.entries(JSON.parse(values['service-addresses']) as Record<string, string>)),
  ...(values['image-store'] ? { imageStore: values['image-store'] } : {}),
  ...(values['pod-log-dir'] ? { podLogDir: values['pod-log-dir'] } : {}),
  ...(values['token-renew-after'] ? { tokenRenewAfterMs: Number(values['token-renew-after']) * 1000 } : {}),
  log: (message) => console.error(`${new Date().toISOString()} ${message}`),
});

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
console.error(`${new Date().toISOString()} node agent ready: nodes ${nodes.map((n) => n.name).join(', ')}`);
process.send?.({ type: 'ready' });
