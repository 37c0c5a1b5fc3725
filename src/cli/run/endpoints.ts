// The probes and /metrics of `twc run`, served by every replica: endpoints given the same address
// share one server; with --metrics-secure, /metrics is served over HTTPS on an address of its own.
import { hostname } from 'node:os';
import { bearerAccess } from '../../runtime/bearer-access.ts';
import {
  healthz,
  metrics as metricsRoute,
  readyz,
  type Route,
  type RunningServer,
  serve,
} from '../../runtime/http-server.ts';
import { KubernetesApi } from '../../runtime/kube/api-client.ts';
import type { Metrics } from '../../runtime/metrics.ts';
import { issueAuthority, issueServing } from '../../webhook/certificate-issuer.ts';
import type { BindAddress } from '../config.ts';
import type { RunContext } from './context.ts';

/**
 * The access reviews of scrapes and dashboard readers: each token is reviewed once a minute (see
 * bearer-access.ts), so a few a second is plenty.
 */
export const ACCESS_REVIEW_RATE = { perSecond: 5, burst: 10 };
/** The metrics certificate is made anew at each start; scrapers do not verify it (as with controller-runtime's own). */
const METRICS_CERTIFICATE_LIFETIME_MS = 365 * 24 * 3600_000;

/** `notReadyBecause`: why /readyz says not ready, undefined when ready. */
export async function serveEndpoints(
  { options, access, metrics, log }: RunContext,
  notReadyBecause: () => string | undefined,
): Promise<RunningServer[]> {
  const endpoints = new Map<string, { address: BindAddress; routes: Record<string, Route> }>();
  const expose = (address: BindAddress | false, routes: Record<string, Route>): void => {
    if (!address) return;
    const key = `${address.host ?? ''}:${address.port}`;
    endpoints.set(key, { address, routes: { ...endpoints.get(key)?.routes, ...routes } });
  };
  if (!options.metricsSecure) expose(options.metricsBindAddress, { '/metrics': metricsRoute(metrics.registry) });
  expose(options.healthProbeBindAddress, { '/healthz': healthz, '/readyz': readyz(notReadyBecause) });
  const servers = await Promise.all(
    [...endpoints.values()].map(async ({ address, routes }) => {
      const server = await serve(address, routes);
      log.info({ routes: Object.keys(routes), address: `${address.host ?? '*'}:${server.port}` }, 'serving');
      return server;
    }),
  );
  if (options.metricsSecure && options.metricsBindAddress) {
    const address = options.metricsBindAddress;
    const api = new KubernetesApi({ access, count: metrics.countKubernetesRequest, rate: ACCESS_REVIEW_RATE });
    const server = await serveSecureMetrics(address, api, metrics);
    log.info({ routes: ['/metrics'], address: `${address.host ?? '*'}:${server.port}` }, 'serving over HTTPS');
    servers.push(server);
  }
  return servers;
}

/** /metrics over HTTPS for the bearer tokens the API server allows `get` on it (--metrics-secure). */
async function serveSecureMetrics(address: BindAddress, api: KubernetesApi, metrics: Metrics): Promise<RunningServer> {
  const now = Date.now();
  const authority = await issueAuthority(now, METRICS_CERTIFICATE_LIFETIME_MS);
  const tls = await issueServing(authority, ['localhost', hostname()], now, METRICS_CERTIFICATE_LIFETIME_MS);
  const access = bearerAccess(api, [{ nonResourceAttributes: { path: '/metrics', verb: 'get' } }]);
  return serve(address, { '/metrics': metricsRoute(metrics.registry) }, { tls, access });
}
