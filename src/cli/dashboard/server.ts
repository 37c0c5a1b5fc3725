// `twc dashboard`: a read-only web page of the worker deployments, served from this process. The
// page is three local files (no framework, nothing fetched from elsewhere: the Content-Security-
// Policy allows this origin only); the data is the views of `twc status` (../status), as JSON
// and as a stream of server-sent events, one message per burst of changes the watches bring.
// It answers only requests made for it (request-origin.ts) and, when told, serves the data only
// to a bearer token the API server allows (the page asks for one and keeps it in a cookie).
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { BearerAccess } from '../../runtime/bearer-access.ts';
import type { WorkerDeploymentView } from '../status/view.ts';
import { foreignRequest } from './request-origin.ts';

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

export interface DashboardProtection {
  /** Who may read the data (the page itself is for anyone the Host check lets in). */
  access?: BearerAccess;
}

/** The cookie the page keeps a bearer token in: an EventSource cannot send an Authorization header. */
const TOKEN_COOKIE = 'twc_token';

export async function serveDashboard(
  source: DashboardSource,
  /** No address: every interface. */
  listen: { address?: string; port: number },
  protection: DashboardProtection = {},
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
    const refused = foreignRequest(request.headers);
    if (refused) {
      response.writeHead(403, { 'content-type': 'text/plain', ...SECURITY_HEADERS }).end(`${refused}\n`);
      return;
    }
    // A request target that is no URL (an absolute form such as `http://[`) would throw, and end the process.
    const route = URL.parse(request.url ?? '/', 'http://dashboard')?.pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', ...SECURITY_HEADERS }).end('read-only\n');
      return;
    }
    const file = route === undefined ? undefined : files.get(route);
    if (file) {
      response
        .writeHead(200, { 'content-type': file.type, 'cache-control': 'no-cache', ...SECURITY_HEADERS })
        .end(file.body);
      return;
    }
    if (protection.access && route?.startsWith('/api/')) {
      void protection.access(withCookieToken(request.headers)).then((verdict) => {
        if (verdict.allowed) answerData(route, request, response);
        else
          response
            .writeHead(verdict.status, { 'content-type': 'text/plain', ...SECURITY_HEADERS })
            .end(`${verdict.message}\n`);
      });
      return;
    }
    answerData(route, request, response);
  });
  const answerData = (route: string | undefined, request: IncomingMessage, response: ServerResponse): void => {
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
  };
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

/** The headers with the page's token cookie as the bearer token, unless one is given already. */
function withCookieToken(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  if (headers.authorization) return headers;
  const cookie = (headers.cookie ?? '').split(';').map((c) => c.trim().split('='));
  const token = cookie.find(([name]) => name === TOKEN_COOKIE)?.[1];
  // A malformed escape would throw, and end the process.
  const decoded = token === undefined ? undefined : URL.parse(`http://t/?t=${token}`)?.searchParams.get('t');
  return decoded ? { ...headers, authorization: `Bearer ${decoded}` } : headers;
}

function event(items: WorkerDeploymentView[]): string {
  return `data: ${JSON.stringify({ items })}\n\n`;
}
