// The controller's own client of the Kubernetes API: JSON over one kept-alive HTTPS connection
// pool, each request counted by verb, resource and status, and held to a rate when given
// (--kube-api-qps, --kube-api-burst; watches are long-lived and are not). It replaces
// client-node, whose generated API alone took about 80 MiB of an idle controller's memory and
// whose serializers cost more CPU per Lease renewal than the renewal itself.
import { createHash } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import {
  KubernetesApiError,
  KubernetesUnreachableError,
  KubernetesUnreadableResponseError,
  type KubernetesStatus,
} from './api-errors.ts';
import { realTimers, type Timers } from '../timers.ts';
import { TokenBucket, type TokenRate } from '../token-bucket.ts';
import type { ClusterAccess, Credentials } from './cluster-access.ts';
import { requestLabels } from './request-labels.ts';

/** Called once per request; code is the HTTP status, or "error" when no response came. */
export type KubernetesRequestCounter = (verb: string, resource: string, code: string) => void;

export type Query = Record<string, string | number | boolean | undefined>;

const MERGE_PATCH = 'application/merge-patch+json';

/** A request that receives nothing for this long fails: a reconcile must not wait on a dead connection forever. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface KubernetesApiOptions {
  access: ClusterAccess;
  count?: KubernetesRequestCounter;
  rate?: TokenRate;
  timers?: Timers;
}

/** An open watch: its events come to the callback given to watch(); `ended` settles when it ends. */
export interface WatchStream {
  /** Resolves when the server ends the watch, rejects when the connection fails or falls silent. */
  readonly ended: Promise<void>;
  abort(): void;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: unknown;
}

export class KubernetesApi {
  private readonly access: ClusterAccess;
  private readonly count: KubernetesRequestCounter;
  private readonly limit: { bucket: TokenBucket; timers: Timers } | undefined;
  private readonly base: URL;
  /** The agent of the TLS settings in use, by their fingerprint: a rotated CA or certificate gets a new one. */
  private agent: { tls: Credentials['tls']; fingerprint: string; agent: http.Agent } | undefined;

  constructor(options: KubernetesApiOptions) {
    this.access = options.access;
    this.count = options.count ?? (() => {});
    const timers = options.timers ?? realTimers;
    this.limit = options.rate && { bucket: new TokenBucket(options.rate, timers), timers };
    this.base = new URL(options.access.server);
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  create<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, { body });
  }

  replace<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, { body });
  }

  mergePatch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body, contentType: MERGE_PATCH });
  }

  delete<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('DELETE', path, { body });
  }

  async request<T>(
    method: string,
    path: string,
    options: { query?: Query | undefined; body?: unknown; contentType?: string; impersonate?: string } = {},
  ): Promise<T> {
    await this.turn();
    const url = this.url(path, options.query);
    const { verb, resource } = requestLabels(method, url.href);
    let response: IncomingMessage;
    let text: string;
    try {
      response = await this.send(method, url, options);
      text = await readAll(response, REQUEST_TIMEOUT_MS);
    } catch (error) {
      this.count(verb, resource, 'error');
      throw new KubernetesUnreachableError(method, url.pathname, { cause: error });
    }
    const code = response.statusCode ?? 0;
    this.count(verb, resource, String(code));
    if (code < 200 || code > 299) throw new KubernetesApiError(method, url.pathname, code, parseStatus(text));
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new KubernetesUnreadableResponseError(method, url.pathname, Buffer.byteLength(text));
    }
  }

  /** Opens a watch; resolves once the server accepted it, rejects (KubernetesApiError) when it refused. */
  async watch(
    path: string,
    query: Query,
    onEvent: (event: WatchEvent) => void,
    silenceLimitMs: number,
  ): Promise<WatchStream> {
    const url = this.url(path, { ...query, watch: true });
    const { resource } = requestLabels('GET', url.href);
    let response: IncomingMessage;
    try {
      response = await this.send('GET', url);
    } catch (error) {
      this.count('watch', resource, 'error');
      throw new KubernetesUnreachableError('GET', url.pathname, { cause: error });
    }
    const code = response.statusCode ?? 0;
    this.count('watch', resource, String(code));
    if (code !== 200)
      throw new KubernetesApiError('GET', url.pathname, code, parseStatus(await readAll(response, REQUEST_TIMEOUT_MS)));
    return streamEvents(response, onEvent, silenceLimitMs, url.pathname);
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent?.agent.destroy();
    this.agent = undefined;
  }

  private url(path: string, query: Query = {}): URL {
    // The server's own path is kept: an API server behind a proxy lives under a prefix.
    const url = new URL(this.base.pathname.replace(/\/$/, '') + path, this.base);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  /** Resolves when the request may go: at once within the burst, else when its token is due. */
  private turn(): Promise<void> {
    const waitMs = this.limit?.bucket.take() ?? 0;
    if (waitMs === 0) return Promise.resolve();
    return new Promise((resolve) => this.limit?.timers.setTimeout(resolve, waitMs));
  }

  /**
   * `impersonate`: a user name the request acts as (Impersonate-User), with that user's rights
   * instead of the controller's. No Impersonate-Group: for a service account's name the API server
   * adds its groups itself, and naming groups would need the right to impersonate groups too.
   */
  private async send(
    method: string,
    url: URL,
    {
      body,
      contentType = 'application/json',
      impersonate,
    }: { body?: unknown; contentType?: string | undefined; impersonate?: string | undefined } = {},
  ): Promise<IncomingMessage> {
    const credentials = await this.access.credentials();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'temporal-worker-controller',
      ...(credentials.authorization ? { authorization: credentials.authorization } : {}),
      ...(impersonate ? { 'impersonate-user': impersonate } : {}),
      ...(payload === undefined
        ? {}
        : { 'content-type': contentType, 'content-length': String(Buffer.byteLength(payload)) }),
    };
    const transport = url.protocol === 'http:' ? http : https;
    return new Promise((resolve, reject) => {
      const request = transport.request(url, { method, headers, agent: this.agentFor(url, credentials) }, resolve);
      request.on('error', reject);
      request.setTimeout(REQUEST_TIMEOUT_MS, () =>
        request.destroy(new Error(`no response within ${REQUEST_TIMEOUT_MS / 1000}s`)),
      );
      request.end(payload);
    });
  }

  private agentFor(url: URL, { tls }: Credentials): http.Agent {
    // Credentials unchanged come back as the same object: no need to hash them again.
    if (this.agent?.tls === tls) return this.agent.agent;
    const fingerprint = createHash('sha256').update(JSON.stringify(tls)).digest('hex');
    if (this.agent?.fingerprint === fingerprint) {
      this.agent.tls = tls;
      return this.agent.agent;
    }
    // Rotated TLS material: open watches on the old connections end and are opened again by
    // their informers on the new ones, as after any lost connection.
    this.agent?.agent.destroy();
    const agent =
      url.protocol === 'http:' ? new http.Agent({ keepAlive: true }) : new https.Agent({ keepAlive: true, ...tls });
    this.agent = { tls, fingerprint, agent };
    return agent;
  }
}

/** The API server's Status object in an error's body, if that is what it is. */
function parseStatus(text: string): KubernetesStatus | undefined {
  try {
    const status = JSON.parse(text) as KubernetesStatus;
    return status && typeof status === 'object' && status.kind === 'Status' ? status : undefined;
  } catch {
    return undefined; // a proxy's HTML page, say
  }
}

function readAll(response: IncomingMessage, silenceLimitMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.setTimeout(silenceLimitMs, () =>
      response.destroy(new Error(`the response stalled for ${silenceLimitMs / 1000}s`)),
    );
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('the connection closed before the response ended')));
  });
}

/**
 * Watch events are JSON objects, one per line. A connection that closes or falls silent rejects
 * with KubernetesUnreachableError (what was received holds, and a watch from it may go on); an
 * event that cannot be read or applied, with its own error.
 */
function streamEvents(
  response: IncomingMessage,
  onEvent: (event: WatchEvent) => void,
  silenceLimitMs: number,
  path: string,
): WatchStream {
  let aborted = false;
  let unreadable: unknown;
  const unreachable = (reason: string | Error) =>
    new KubernetesUnreachableError('GET', path, { cause: typeof reason === 'string' ? new Error(reason) : reason });
  const ended = new Promise<void>((resolve, reject) => {
    let pending = '';
    response.setEncoding('utf8');
    response.setTimeout(silenceLimitMs, () =>
      response.destroy(unreachable(`the watch received nothing for ${silenceLimitMs / 1000}s`)),
    );
    response.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.trim() || aborted) continue;
        try {
          onEvent(JSON.parse(line) as WatchEvent);
        } catch (error) {
          unreadable = error;
          response.destroy(error as Error);
          return;
        }
      }
    });
    response.on('end', () => resolve());
    response.on('close', () => (aborted ? resolve() : reject(unreachable('the watch connection closed'))));
    response.on('error', (error) =>
      aborted
        ? resolve()
        : reject(error === unreadable || error instanceof KubernetesUnreachableError ? error : unreachable(error)),
    );
  });
  return {
    ended,
    abort: () => {
      aborted = true;
      response.destroy();
    },
  };
}
