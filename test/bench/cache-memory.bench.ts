// `node test/bench/cache-memory.bench.ts`: what the controller's caches hold per worker
// deployment, without the real environment. The controller's own Caches (controller/caches.ts:
// its informers, their rows of the watch table, what they keep of each object) list N worker
// deployments with their Deployments and Pods, as the API server sent them in a real run
// (test/support/captured-objects.json; `node test/bench/memory.bench.ts --capture` makes them
// again), from a local HTTP server in this process; each count runs in a process of its own with
// `bin/twc`'s V8 flags, which says its heap after a full GC and its peak RSS. Figures per worker
// deployment are the differences from a process that listed none: the whole, then each kind
// alone. Prints figures; asserts nothing.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { homedir } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CAPTURED, CAPTURED_OBJECTS, type CapturedObjects, KINDS, type Kind, NAMESPACE } from './captured-objects.ts';
import { NODE_FLAGS } from '../../scripts/image/build.ts';

/** The V8 flags of bin/twc and the image, and a GC to call. */
const BENCH_NODE_FLAGS = [...NODE_FLAGS, '--expose-gc'];
const COMPILE_CACHE = path.join(homedir(), '.cache/temporal-worker-controller/node-compile-cache');

const { values } = parseArgs({
  options: {
    'worker-deployments': { type: 'string', default: '200,1000' },
    // Internal: one measuring process.
    child: { type: 'string' },
  },
});

if (values.child) await measure(Number(values.child));
else await compare(values['worker-deployments'].split(',').map(Number));

interface Case {
  /** The kinds whose lists hold the copies; the others list none. */
  kinds: Kind[];
  count: number;
}

interface Figures {
  heapBytes: number;
  peakRssBytes: number;
}

async function compare(counts: number[]): Promise<void> {
  const fixture = JSON.parse(readFileSync(CAPTURED_OBJECTS, 'utf8')) as CapturedObjects;
  const child = (kinds: Kind[], count: number) => measured(fixture, { kinds, count });
  {
    await child([...KINDS], 0); // a first start may fill Node's compile cache: not measured
    const none = await child([...KINDS], 0);
    const perWorkerDeployment = (f: Figures, n: number) => ({
      heap: (f.heapBytes - none.heapBytes) / n,
      peak: (f.peakRssBytes - none.peakRssBytes) / n,
    });
    const shape = KINDS.map((kind) => `${fixture[kind].length} ${kind}`).join(', ');
    console.log(
      `controller caches (controller/caches.ts), per worker deployment of ${shape}, as listed in a real run:`,
    );
    console.log(
      `  none listed: heap ${mib(none.heapBytes)} after a full GC, peak RSS ${mib(none.peakRssBytes)} (modules and runtime)`,
    );
    for (const count of counts) {
      const all = perWorkerDeployment(await child([...KINDS], count), count);
      const byKind: string[] = [];
      for (const kind of KINDS.filter((k) => k !== 'TemporalConnection')) {
        const alone = perWorkerDeployment(await child([kind], count), count);
        byKind.push(`${kind} ${kib(alone.heap)}`);
      }
      console.log(
        `  ${count} worker deployments: heap ${kib(all.heap)} each (${mib(all.heap * count)} in all; ${byKind.join(', ')}), peak RSS ${kib(all.peak)} each (${mib(all.peak * count)})`,
      );
    }
  }
}

/** Runs one measuring process (this file with --child) against a server of its case. */
async function measured(fixture: CapturedObjects, of: Case): Promise<Figures> {
  const server = await serveLists(fixture, of);
  try {
    const port = (server.address() as AddressInfo).port;
    return await new Promise((resolve, reject) => {
      const child = fork(import.meta.filename, ['--child', String(port)], {
        execArgv: BENCH_NODE_FLAGS,
        // As bin/twc runs it: with Node's compile cache, so without the TypeScript stripper.
        env: { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? COMPILE_CACHE },
      });
      child.on('message', (figures: Figures) => resolve(figures));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? undefined : reject(new Error(`measuring process exited with ${code}`))));
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** Lists `count` copies of the fixture's objects of each kind asked for, and watches that stay silent. */
async function serveLists(fixture: CapturedObjects, of: Case): Promise<http.Server> {
  // Each object's text, per kind: the connection once, the others once per worker deployment.
  const lists = new Map<Kind, string[]>(
    KINDS.map((kind) => {
      const objects = fixture[kind].map((object) => JSON.stringify(object));
      return [
        kind,
        kind === 'TemporalConnection'
          ? objects
          : Array.from({ length: of.count }, (_, i) => objects.map((text) => copy(text, i))).flat(),
      ];
    }),
  );
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.searchParams.get('watch') === 'true') {
      // Open until the measuring process ends.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      return;
    }
    const kind = kindOf(url.pathname);
    const items = kind && of.kinds.includes(kind) ? (lists.get(kind) ?? []) : [];
    // Pages as the API server gives them when asked for a limit: the offset as the continue token.
    const from = Number(url.searchParams.get('continue') ?? 0);
    const to = Math.min(items.length, from + Number(url.searchParams.get('limit') ?? items.length));
    const page = items.slice(from, to).map((text) => JSON.parse(text) as unknown);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'List',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1', ...(to < items.length ? { continue: String(to) } : {}) },
        items: page,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function kindOf(pathname: string): Kind | undefined {
  if (pathname.endsWith('/temporalworkerdeployments')) return 'TemporalWorkerDeployment';
  if (pathname.endsWith('/temporalconnections')) return 'TemporalConnection';
  if (pathname.endsWith('/deployments')) return 'Deployment';
  if (pathname.endsWith('/pods')) return 'Pod';
  return undefined;
}

/** A captured object as that of worker deployment `i`: its name and uids its own. */
function copy(text: string, i: number): string {
  const name = `wd-${String(i).padStart(4, '0')}`;
  return text
    .replaceAll(CAPTURED, name)
    .replace(
      /"uid":"([0-9a-f-]{28})[0-9a-f]{8}"/g,
      (_, head: string) => `"uid":"${head}${i.toString(16).padStart(8, '0')}"`,
    );
}

/** One measuring process: the controller's caches started against the server, then its figures. */
async function measure(port: number): Promise<void> {
  const { Caches } = await import('../../src/controller/caches.ts');
  const { KubernetesApi } = await import('../../src/runtime/kube/api-client.ts');
  const { createLogger } = await import('../../src/runtime/logger.ts');
  const api = new KubernetesApi({
    access: {
      server: `http://127.0.0.1:${port}`,
      source: 'the bench',
      credentials: () => Promise.resolve({ tls: { rejectUnauthorized: true } }),
    },
  });
  const caches = new Caches({
    api,
    namespaces: [NAMESPACE],
    clusterConnections: false,
    enqueue: () => {},
    hooks: { workerDeployment: {}, connection: {}, ownedResource: {} },
    log: await createLogger({ level: 'error', format: 'json' }),
  });
  await caches.start();
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) gc?.();
  const heapBytes = process.memoryUsage().heapUsed;
  const status = readFileSync('/proc/self/status', 'utf8');
  const peakRssBytes = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
  process.send?.({ heapBytes, peakRssBytes } satisfies Figures, () => process.exit(0));
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

export {};
