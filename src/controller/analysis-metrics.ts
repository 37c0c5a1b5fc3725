// spec.rollout.analysis.metrics as a reconcile reads them: the endpoint the administrator allows
// (domain/analysis-prometheus.ts), the tenant's token from its own Secret when the spec names one,
// then every query at once. Nothing is judged on half an answer: one query that fails, or an
// endpoint refused, is the whole read's failure, which holds the step (it never passes it), and
// says why in the status. Each query's result is counted for /metrics.
import type { V1Secret } from '@kubernetes/client-node';
import { endpointFor, type PrometheusEndpoint } from '../domain/analysis-prometheus.ts';
import type { MetricAnswer } from '../domain/observation.ts';
import type { MetricReads } from '../planner/analysis.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { type InstantQuery, instantQuery } from '../prometheus/instant-query.ts';

export type MetricsRead = { answers: Record<string, MetricAnswer> } | { failure: string };

/** A query's result, as twc_analysis_queries_total counts it. */
export type QueryResult = 'answered' | 'no_sample' | 'failed' | 'refused';

export type ReadAnalysisMetrics = (namespace: string, reads: MetricReads) => Promise<MetricsRead>;

/** How long one query may take: a reconcile waits for it. */
const QUERY_TIMEOUT_MS = 10_000;

export interface AnalysisMetricsSources {
  endpoints: readonly PrometheusEndpoint[];
  /** A Secret as cached, undefined when it does not exist. */
  secret: (namespace: string, name: string) => Promise<V1Secret | undefined>;
  query?: (request: InstantQuery) => Promise<MetricAnswer>;
  count?: (namespace: string, result: QueryResult) => void;
}

export function analysisMetricsReader({
  endpoints,
  secret,
  query = instantQuery,
  count = () => {},
}: AnalysisMetricsSources): ReadAnalysisMetrics {
  return async (namespace, reads) => {
    // Every query of a read refused before any is sent, each counted so.
    const refused = (failure: string): MetricsRead => {
      reads.queries.forEach(() => count(namespace, 'refused'));
      return { failure };
    };
    const verdict = endpointFor(reads.prometheus, endpoints);
    if ('refused' in verdict) return refused(verdict.refused);
    let bearerToken: string | undefined;
    if (verdict.token) {
      const { name, key } = verdict.token;
      const field = 'spec.rollout.analysis.prometheus.bearerTokenSecretRef';
      const found = await secret(namespace, name);
      if (!found) return refused(`${field}: Secret ${namespace}/${name} does not exist`);
      const data = found.data?.[key];
      if (data === undefined) return refused(`${field}: Secret ${namespace}/${name} has no key ${key}`);
      bearerToken = Buffer.from(data, 'base64').toString('utf8').trim();
    }
    const { url } = verdict.endpoint;
    const answered = await Promise.allSettled(
      reads.queries.map((q) =>
        query({
          url,
          query: q.query,
          at: reads.at,
          timeoutMs: QUERY_TIMEOUT_MS,
          ...(bearerToken ? { bearerToken } : {}),
        }),
      ),
    );
    const answers: Record<string, MetricAnswer> = {};
    const failures: string[] = [];
    answered.forEach((result, i) => {
      const name = reads.queries[i]?.name ?? '';
      if (result.status === 'rejected') {
        count(namespace, 'failed');
        failures.push(`metric ${name}: ${errorMessage(result.reason)}`);
        return;
      }
      count(namespace, 'value' in result.value ? 'answered' : 'no_sample');
      answers[name] = result.value;
    });
    if (failures.length > 0)
      return { failure: `Prometheus endpoint ${verdict.endpoint.name} did not answer: ${failures.join('; ')}` };
    return { answers };
  };
}
