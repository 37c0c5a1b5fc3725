// external.metrics.k8s.io/v1beta1 as an aggregated API, on the controller's HTTPS server: the
// API server proxies HPA controllers' (and people's) reads of backlog metrics here. Each read is
// authenticated as coming from the API server's front proxy (front-proxy.ts) and authorized for
// the user it names with a SubjectAccessReview, as Kubernetes asks of aggregated servers; the
// answer comes from the backlog figures in memory, never from a read of Temporal. Each query asks
// for the figures of the builds it may pick: the leader reads those while they are asked for.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { BacklogAsk, BuildBacklog } from '../domain/backlog.ts';
import type { RequestHandler } from '../runtime/http-server.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';
import type { Logger } from '../runtime/logger.ts';
import { authenticate, frontProxyTrust, type FrontProxyTrust, type RequestUser } from './front-proxy.ts';
import { InvalidLabelSelectorError, parseLabelSelector } from './label-selector.ts';
import { GROUP, METRICS, metricValues, picksBuild, VERSION } from './metric-values.ts';

const ROOT = `/apis/${GROUP}/${VERSION}`;
const TRUST_CONFIGMAP = '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication';
/** The request-header CA is read again this often, so that a rotated one is taken up. */
const TRUST_LIFETIME_MS = 60_000;
/** An allowed read is taken as allowed this long (a denial is asked again every time). */
const ALLOWED_LIFETIME_MS = 10_000;

export interface ExternalMetricsOptions {
  api: KubernetesApi;
  /**
   * The figures to answer from, asking for the builds the query may pick (the first ask of a build
   * finds none: its read starts then); undefined while this replica does not collect them (it
   * does not lead).
   */
  figures: (asked: Extract<BacklogAsk, { by: 'query' }>) => readonly BuildBacklog[] | undefined;
  log: Logger;
  now?: () => Date;
}

export function externalMetricsHandler(options: ExternalMetricsOptions): RequestHandler {
  const now = options.now ?? (() => new Date());
  let trust: { read: number; value: Promise<FrontProxyTrust> } | undefined;
  const currentTrust = (): Promise<FrontProxyTrust> => {
    if (!trust || now().getTime() - trust.read > TRUST_LIFETIME_MS) {
      const value = options.api
        .get<{ data?: Record<string, string> }>(TRUST_CONFIGMAP)
        .then((configMap) => frontProxyTrust(configMap.data ?? {}));
      trust = { read: now().getTime(), value };
      value.catch(() => (trust = undefined));
    }
    return trust.value;
  };
  const allowedAt = new Map<string, number>();
  const authorized = async (user: RequestUser, namespace: string, metric: string): Promise<boolean> => {
    const key = JSON.stringify([user, namespace, metric]);
    const known = allowedAt.get(key);
    if (known !== undefined && now().getTime() - known < ALLOWED_LIFETIME_MS) return true;
    const review = await options.api.create<{ status?: { allowed?: boolean } }>(
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.name,
          groups: user.groups,
          extra: user.extra,
          resourceAttributes: { namespace, verb: 'get', group: GROUP, version: VERSION, resource: metric },
        },
      },
    );
    const allowed = review.status?.allowed === true;
    if (allowed) allowedAt.set(key, now().getTime());
    return allowed;
  };

  return (request, response) => {
    // A request target that is no URL (an absolute form such as `http://[`) would throw.
    const url = URL.parse(request.url ?? '/', 'https://host');
    if (!url || (url.pathname !== ROOT && !url.pathname.startsWith(`${ROOT}/`))) return false;
    const reply = (code: number, body: object): void =>
      void response.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'GET') {
      reply(
        405,
        status(405, 'MethodNotAllowed', `${request.method ?? ''} is not served: external metrics are read only`),
      );
      return true;
    }
    // Discovery says only which metrics there are: the API server lets any authenticated user ask.
    if (url.pathname === ROOT || url.pathname === `${ROOT}/`) {
      reply(200, discovery());
      return true;
    }
    const query = /^\/namespaces\/([^/]+)\/([^/]+)$/.exec(url.pathname.slice(ROOT.length));
    if (!query) {
      reply(404, status(404, 'NotFound', `${url.pathname} is not served: ask ${ROOT}/namespaces/<namespace>/<metric>`));
      return true;
    }
    const [, namespace = '', metric = ''] = query;
    answer(namespace, metric, url.searchParams.get('labelSelector') ?? '', request).then(
      ([code, body]) => reply(code, body),
      (error: unknown) => {
        options.log.error(
          { error: errorMessage(error), path: url.pathname },
          'could not answer an external metrics read',
        );
        reply(500, status(500, 'InternalError', `could not answer: ${errorMessage(error)}`));
      },
    );
    return true;
  };

  /** `metric` as it stands in the path, percent-encoded. */
  async function answer(
    namespace: string,
    encodedMetric: string,
    selectorText: string,
    request: IncomingMessage,
  ): Promise<[number, object]> {
    let metric: string;
    try {
      metric = decodeURIComponent(encodedMetric);
    } catch {
      return [400, status(400, 'BadRequest', `${encodedMetric} is not a metric name`)];
    }
    const client = (request.socket as TLSSocket).getPeerX509Certificate?.();
    const identity = authenticate(await currentTrust(), client, request.headersDistinct, now());
    if ('refused' in identity) return [401, status(401, 'Unauthorized', identity.refused)];
    if (!(await authorized(identity.user, namespace, metric)))
      return [
        403,
        status(403, 'Forbidden', `${identity.user.name} may not get ${metric}.${GROUP} in namespace ${namespace}`),
      ];
    let selector;
    try {
      selector = parseLabelSelector(selectorText);
    } catch (error) {
      if (error instanceof InvalidLabelSelectorError) return [400, status(400, 'BadRequest', error.message)];
      throw error;
    }
    // No metric of that name: no figures asked for.
    if (!METRICS.has(metric))
      return [404, status(404, 'NotFound', `no metric ${metric}: served are ${[...METRICS.keys()].join(', ')}`)];
    const figures = options.figures({ by: 'query', namespace, picks: (build) => picksBuild(selector, build) });
    if (!figures)
      return [
        503,
        status(
          503,
          'ServiceUnavailable',
          'this replica does not lead: the leader collects and serves the backlog metrics',
        ),
      ];
    const items = metricValues(figures, { metric, namespace, selector }) ?? [];
    return [200, { kind: 'ExternalMetricValueList', apiVersion: `${GROUP}/${VERSION}`, metadata: {}, items }];
  }
}

function discovery(): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${GROUP}/${VERSION}`,
    resources: [...METRICS.keys()].map((name) => ({
      name,
      singularName: '',
      namespaced: true,
      kind: 'ExternalMetricValueList',
      verbs: ['get'],
    })),
  };
}

function status(code: number, reason: string, message: string): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}
