// Where spec.rollout.analysis.metrics are queried: only at the Prometheus-compatible endpoints the
// controller's administrator allows (--analysis-prometheus), which a spec names and never writes,
// so a namespace editor cannot point the controller (and its network position) at an address of
// their choosing. The bearer token, when one is sent, is the tenant's own, from a Secret of the
// worker deployment's namespace; an endpoint marked --analysis-prometheus-tenant-auth takes no
// query without one, so a multi-tenant front (prom-label-proxy, Mimir, Thanos) answers each
// tenant only what its own token may read. The controller sends no credential of its own. Pure.
import type { Rollout } from '../api/rollout.ts';

export const ENDPOINTS_FLAG = '--analysis-prometheus';
export const TENANT_AUTH_FLAG = '--analysis-prometheus-tenant-auth';

export interface PrometheusEndpoint {
  name: string;
  /** The base URL: the queries go to `<url>/api/v1/query`. */
  url: string;
  /** Every query must carry the worker deployment's own token. */
  tenantAuth: boolean;
}

type AnalysisPrometheus = NonNullable<NonNullable<Rollout['analysis']>['prometheus']>;

export type EndpointVerdict =
  { endpoint: PrometheusEndpoint; token?: { name: string; key: string } } | { refused: string };

const FIELD = 'spec.rollout.analysis.prometheus';

export function endpointFor(prometheus: AnalysisPrometheus, allowed: readonly PrometheusEndpoint[]): EndpointVerdict {
  if (allowed.length === 0)
    return {
      refused: `${FIELD}.name: metric analysis is off in this controller: its administrator allows no Prometheus endpoint (${ENDPOINTS_FLAG}, chart value controller.analysisPrometheus)`,
    };
  const endpoint = allowed.find((e) => e.name === prometheus.name);
  if (!endpoint)
    return {
      refused: `${FIELD}.name: "${prometheus.name}" is not a Prometheus endpoint this controller allows (${ENDPOINTS_FLAG}: ${allowed.map((e) => e.name).join(', ')})`,
    };
  const token = prometheus.bearerTokenSecretRef;
  if (endpoint.tenantAuth && !token)
    return {
      refused: `${FIELD}.bearerTokenSecretRef: endpoint ${endpoint.name} takes queries only with the worker deployment's own token (${TENANT_AUTH_FLAG})`,
    };
  return { endpoint, ...(token ? { token } : {}) };
}

/**
 * The endpoints of `name=url` entries (none yet marked for tenant credentials); throws an Error
 * naming the entry that is not one. Only http and https, without credentials in the URL: a token
 * is the tenant's, sent as a header.
 */
export function parseEndpoints(entries: readonly string[]): PrometheusEndpoint[] {
  const endpoints = entries.map((entry) => {
    const at = entry.indexOf('=');
    const name = entry.slice(0, at).trim();
    if (at < 0 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name))
      throw new Error(`"${entry}" is not name=url, the name a DNS label`);
    let url: URL;
    try {
      url = new URL(entry.slice(at + 1).trim());
    } catch {
      throw new Error(`"${entry}": the URL is not one`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`"${entry}": the URL is not http or https`);
    if (url.username || url.password || url.search || url.hash)
      throw new Error(`"${entry}": the URL must have no credentials, query or fragment`);
    return { name, url: url.href.replace(/\/$/, ''), tenantAuth: false };
  });
  const names = endpoints.map((e) => e.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new Error(`endpoint ${twice} is named twice`);
  return endpoints;
}
