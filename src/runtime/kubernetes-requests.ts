// Counting every request the controller makes to the Kubernetes API, by verb and resource as the
// API server names them: API clients made from a counted kubeconfig get an HTTP library that
// counts each response, informers a Watch that counts each watch once the server answered it.
// The counted kubeconfig also keeps connections open between requests: client-node makes a new
// undici Agent for each request, so each request and each watch paid a TCP and TLS handshake,
// and each left an idle connection behind for a while (most of an idle controller's CPU).
// Given a rate (--kube-api-qps, --kube-api-burst), requests beyond the burst wait their turn, as
// client-go's do; watches are long-lived and do not.
import { createHash } from 'node:crypto';
import {
  type ApiConstructor,
  type ApiType,
  type Cluster,
  createConfiguration,
  type DispatcherOptions,
  IsomorphicFetchHttpLibrary,
  KubeConfig,
  type RequestContext,
  ServerConfiguration,
  setHeaderMiddleware,
  wrapHttpLibrary,
} from '@kubernetes/client-node';
import type { AgentOptions } from 'node:https';
import { LongWatch } from './long-watch.ts';
import { realTimers, type Timers } from './timers.ts';
import { TokenBucket, type TokenRate } from './token-bucket.ts';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/** Called once per request; code is the HTTP status, or "error" when no response came. */
export type KubernetesRequestCounter = (verb: string, resource: string, code: string) => void;

/** The API server's verb and resource of a request; the resource carries its subresource, e.g. deployments/scale. */
export function requestLabels(method: string, url: string): { verb: string; resource: string } {
  const { pathname, searchParams } = new URL(url);
  const segments = pathname.split('/').filter(Boolean);
  // /api/v1/... or /apis/group/version/..., possibly behind a proxy's prefix.
  const api = segments.findIndex((s) => s === 'api' || s === 'apis');
  let parts = api < 0 ? [] : segments.slice(api + (segments[api] === 'api' ? 2 : 3));
  // namespaces/NAME/status and namespaces/NAME/finalize are a namespace's own subresources.
  if (parts[0] === 'namespaces' && parts.length >= 3 && parts[2] !== 'status' && parts[2] !== 'finalize')
    parts = parts.slice(2);
  const [resource = '', name, subresource] = parts;
  const resourceLabel = subresource ? `${resource}/${subresource}` : resource;
  const verbs: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch' };
  let verb = verbs[method] ?? method.toLowerCase();
  if (method === 'GET') verb = searchParams.get('watch') === 'true' ? 'watch' : name || !resource ? 'get' : 'list';
  if (method === 'DELETE') verb = name ? 'delete' : 'deletecollection';
  return { verb, resource: resourceLabel };
}

/** A copy of kubeconfig whose API clients count each request, and send them at `rate` when given. */
export function countedKubeConfig(
  kubeconfig: KubeConfig,
  count: KubernetesRequestCounter,
  rate?: TokenRate,
  timers: Timers = realTimers,
): KubeConfig {
  const counted = new CountedKubeConfig(count, rate && { bucket: new TokenBucket(rate, timers), timers });
  counted.loadFromOptions({
    clusters: kubeconfig.clusters,
    contexts: kubeconfig.contexts,
    users: kubeconfig.users,
    currentContext: kubeconfig.currentContext,
  });
  return counted;
}

class CountedKubeConfig extends KubeConfig {
  private readonly count: KubernetesRequestCounter;
  /** The dispatcher of the connection settings in use, by their fingerprint. */
  private shared: { fingerprint: string; dispatcher: Dispatcher } | undefined;
  /** Of the settings client-node last made a dispatcher for. */
  private latestFingerprint = '';

  private readonly limit: { bucket: TokenBucket; timers: Timers } | undefined;

  constructor(count: KubernetesRequestCounter, limit?: { bucket: TokenBucket; timers: Timers }) {
    super();
    this.count = count;
    this.limit = limit;
  }

  /** Resolves when the request may go: at once within the burst, else when its token is due. */
  private turn(): Promise<void> {
    const waitMs = this.limit?.bucket.take() ?? 0;
    if (waitMs === 0) return Promise.resolve();
    return new Promise((resolve) => this.limit?.timers.setTimeout(resolve, waitMs));
  }

  override createDispatcherOptions(cluster: Cluster | null, agentOptions: AgentOptions): DispatcherOptions {
    const options = super.createDispatcherOptions(cluster, agentOptions);
    // Certificates are read again for every request: a rotated one changes the fingerprint.
    this.latestFingerprint = createHash('sha256').update(JSON.stringify(options)).digest('hex');
    return options;
  }

  /** Authenticates as client-node does, but gives the request the shared dispatcher of its settings. */
  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    const setDispatcher = context.setDispatcher.bind(context);
    // client-node makes the dispatcher right after its options, in one synchronous step: the
    // fingerprint recorded then is this request's.
    context.setDispatcher = (created) => setDispatcher(this.dispatcherFor(this.latestFingerprint, created));
    await super.applySecurityAuthentication(context);
  }

  private dispatcherFor(fingerprint: string, created: Dispatcher): Dispatcher {
    if (this.shared?.fingerprint === fingerprint) return this.shared.dispatcher;
    // New settings: the old connections close once their requests (watches included) end.
    this.shared?.dispatcher.close().catch(() => {});
    this.shared = { fingerprint, dispatcher: created };
    return created;
  }

  /** What KubeConfig.makeApiClient builds, with an HTTP library that counts. */
  override makeApiClient<T extends ApiType>(api: ApiConstructor<T>): T {
    const cluster = this.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    const http = new IsomorphicFetchHttpLibrary();
    const httpApi = wrapHttpLibrary({
      send: async (request) => {
        await this.turn();
        const { verb, resource } = requestLabels(request.getHttpMethod(), request.getUrl());
        try {
          const response = await http.send(request).toPromise();
          this.count(verb, resource, String(response.httpStatusCode));
          return response;
        } catch (error) {
          this.count(verb, resource, 'error');
          throw error;
        }
      },
    });
    return new api(
      createConfiguration({
        baseServer: new ServerConfiguration(cluster.server, {}),
        authMethods: { default: this },
        middleware: [setHeaderMiddleware('User-Agent', 'temporal-worker-controller')],
        httpApi,
      }),
    );
  }
}

/** A Watch that counts each watch request: Watch.watch returns once the server answered, having called done if it refused. */
export class CountedWatch extends LongWatch {
  private readonly count: KubernetesRequestCounter;

  constructor(kubeconfig: KubeConfig, count: KubernetesRequestCounter) {
    super(kubeconfig);
    this.count = count;
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    let refused: unknown;
    let answered = false;
    const controller = await super.watch(path, queryParams, callback, (err: unknown) => {
      if (!answered) refused = err;
      done(err);
    });
    answered = true;
    const { resource } = requestLabels('GET', `http://host${path}`);
    const status = (refused as { statusCode?: number } | undefined)?.statusCode;
    this.count('watch', resource, refused === undefined ? '200' : status ? String(status) : 'error');
    return controller;
  }
}
