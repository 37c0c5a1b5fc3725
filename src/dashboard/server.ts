// `twc dashboard`: a read-only web page of the worker deployments, served from this process. The
// page is three local files (no framework, nothing fetched from elsewhere: the Content-Security-
// Policy allows this origin only); the data is the views of `twc status` (../cli/status), as JSON
// and as a stream of server-sent events, one message per burst of changes the watches bring.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { WorkerDeploymentView } from '../cli/status/view.ts';

/** What the page shows, and when it changes. */
export interface DashboardSource {
  views(): WorkerDeploymentView[];
  onChange(listener: () => void): () => void;
}

export interface Dashboard {
  /** http://address:port/ */
  url: string;
  close(): Promise<void>;
}

const ASSETS = path.join(import.meta.dirname, 'assets');
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
/** Changes arrive in bursts (a rollout step writes several objects): one message per burst. */
const BURST_MS = 100;
/** A comment now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

export async function serveDashboard(
  source: DashboardSource,
  /** No address: every interface. */
  listen: { address?: string; port: number },
): Promise<Dashboard> {
  const files = new Map(
    Object.entries(FILES).map(([route, { file, type }]) => [
      route,
      { body: readFileSync(path.join(ASSETS, file)), type },
    ]),
  );
  const streams = new Set<ServerResponse>();
  let timer: NodeJS.Timeout | undefined;
  const unsubscribe = source.onChange(() => {
    timer ??= setTimeout(() => {
      timer = undefined;
      const message = event(source.views());
      for (const stream of streams) stream.write(message);
    }, BURST_MS);
  });
  const keepalive = setInterval(() => {
    for (const stream of streams) stream.write(': keepalive\n\n');
  }, KEEPALIVE_MS);
  keepalive.unref();

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const route = new URL(request.url ?? '/', 'http://dashboard').pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', ...SECURITY_HEADERS }).end('read-only\n');
      return;
    }
    const file = files.get(route);
    if (file) {
      response
        .writeHead(200, { 'content-type': file.type, 'cache-control': 'no-cache', ...SECURITY_HEADERS })
        .end(file.body);
      return;
    }
    if (route === '/api/worker-deployments') {
      response
        .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', ...SECURITY_HEADERS })
        .end(JSON.stringify({ items: source.views() }));
      return;
    }
    if (route === '/api/stream') {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        ...SECURITY_HEADERS,
      });
      response.write(`retry: 2000\n\n${event(source.views())}`);
      streams.add(response);
      request.on('close', () => streams.delete(response));
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain', ...SECURITY_HEADERS }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.address, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/`,
    close: async () => {
      unsubscribe();
      clearTimeout(timer);
      clearInterval(keepalive);
      for (const stream of streams) stream.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function event(items: WorkerDeploymentView[]): string {
  return `data: ${JSON.stringify({ items })}\n\n`;
}
