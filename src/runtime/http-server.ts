// The operations endpoints: liveness and readiness probes and Prometheus metrics, served on
// bind addresses written as controller-runtime's flags take them (":8080", "127.0.0.1:8080",
// "0" for off); metrics may be served over HTTPS to the bearer tokens the API server allows.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { BearerAccess } from './bearer-access.ts';
import { exposition } from './exposition.ts';

export interface Response {
  status: number;
  /** The whole body, or its parts in order, each written once the client has taken the one before. */
  body: string | AsyncIterable<string>;
  contentType?: string;
}

/** Answers one GET path, given the request's query. */
export type Route = (query: URLSearchParams) => Response | Promise<Response>;

/** Serves the requests it knows (true), and leaves the others to the server's other routes (false). */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Host and port of a bind address, undefined for "0" (disabled); no host means every interface. */
export function parseBindAddress(value: string): { host?: string; port: number } | undefined {
  if (value === '0') return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535)
    throw new Error(`"${value}" is not a bind address such as :8080 or 127.0.0.1:8080, or 0 to disable`);
  const host = match[1] ?? match[2];
  return host ? { host, port } : { port };
}

export interface RunningServer {
  /** The port listened on, which the kernel chose when the address asked for port 0. */
  port: number;
  close(): Promise<void>;
}

export interface Protection {
  /** PEM certificate and key: served over HTTPS. */
  tls: { cert: string; key: string };
  /** Who may read any route of the server. */
  access: BearerAccess;
}

export async function serve(
  bindAddress: { host?: string; port: number },
  routes: Record<string, Route>,
  protection?: Protection,
): Promise<RunningServer> {
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    // A request target that is no URL (an absolute form such as `http://[`) would throw, and end the process.
    const url = URL.parse(request.url ?? '/', 'http://host');
    const route = request.method === 'GET' && url ? routes[url.pathname] : undefined;
    if (!route) {
      response.writeHead(404).end('not found\n');
      return;
    }
    Promise.resolve(protection?.access(request.headers))
      .then((verdict) => {
        if (verdict && !verdict.allowed) return { status: verdict.status, body: `${verdict.message}\n` };
        return route(url?.searchParams ?? new URLSearchParams());
      })
      .then(
        ({ status, body, contentType }) => {
          response.writeHead(status, { 'Content-Type': contentType ?? 'text/plain; charset=utf-8' });
          return typeof body === 'string' ? void response.end(body) : writeParts(response, body);
        },
        (error: unknown) => response.writeHead(500).end(`${error instanceof Error ? error.message : String(error)}\n`),
      );
  };
  const server: Server = protection ? createSecureServer(protection.tls, handle) : createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bindAddress.port, bindAddress.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Writes `parts` as the client takes them; one that fails after the status was sent cuts the response off. */
async function writeParts(response: ServerResponse, parts: AsyncIterable<string>): Promise<void> {
  try {
    for await (const part of parts) {
      if (response.destroyed) return;
      if (!response.write(part)) await drainedOrClosed(response);
    }
    response.end();
  } catch (error) {
    response.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}

/** Answering at all proves the process is alive and its event loop turns. */
export const healthz: Route = () => ({ status: 200, body: 'ok\n' });

/** Ready unless `notReadyBecause` gives a reason. */
export function readyz(notReadyBecause: () => string | undefined): Route {
  return () => {
    const reason = notReadyBecause();
    return reason === undefined ? { status: 200, body: 'ok\n' } : { status: 503, body: `${reason}\n` };
  };
}

/**
 * Every metric, or with `name[]` in the query (as Prometheus's own clients take it) only the
 * metrics named: the others are not collected, so a scrape that names no backlog gauge does not
 * ask for the backlog figures (controller/backlog-demand.ts). Written in parts as the client takes
 * them (exposition.ts).
 */
export function metrics(registry: Registry): Route {
  return (query) => {
    const asked = query.getAll('name[]');
    const names =
      asked.length === 0
        ? registry.getMetricsAsArray().map((metric) => metric.name)
        : [...new Set(asked)].filter((name) => registry.getSingleMetric(name));
    return { status: 200, body: exposition(registry, names), contentType: registry.contentType };
  };
}
