// One PromQL instant query (POST /api/v1/query), answered by one number: a scalar or a vector of
// one series. No series, or NaN, is no sample; anything else that is not one number, or an
// answer that is not Prometheus's, is a PrometheusQueryError that says what came back. Redirects
// are refused, not followed: the token goes only where the administrator allowed.
import type { MetricAnswer } from '../domain/observation.ts';

export class PrometheusQueryError extends Error {
  override name = 'PrometheusQueryError';
}

export interface InstantQuery {
  /** The endpoint's base URL. */
  url: string;
  query: string;
  at: Date;
  bearerToken?: string;
  timeoutMs: number;
}

/** The most of an answer read: one number needs little, a mistaken query may answer megabytes. */
const MAX_ANSWER_BYTES = 1 << 20;

interface Answer {
  status?: string;
  errorType?: string;
  error?: string;
  data?: { resultType?: string; result?: unknown };
}

export async function instantQuery(request: InstantQuery, send: typeof fetch = fetch): Promise<MetricAnswer> {
  let response: Response;
  try {
    response = await send(`${request.url}/api/v1/query`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(request.bearerToken ? { authorization: `Bearer ${request.bearerToken}` } : {}),
      },
      body: new URLSearchParams({ query: request.query, time: String(request.at.getTime() / 1000) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    throw new PrometheusQueryError(`no answer: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const text = await response.text();
  if (text.length > MAX_ANSWER_BYTES)
    throw new PrometheusQueryError(`HTTP ${response.status}: an answer of more than ${MAX_ANSWER_BYTES} bytes`);
  let answer: Answer;
  try {
    answer = JSON.parse(text) as Answer;
  } catch {
    throw new PrometheusQueryError(`HTTP ${response.status}, not a Prometheus answer: ${text.slice(0, 200)}`);
  }
  if (answer.status !== 'success')
    throw new PrometheusQueryError(
      `HTTP ${response.status}: ${answer.errorType ?? 'error'}: ${answer.error ?? text.slice(0, 200)}`,
    );
  return oneNumber(answer.data);
}

function oneNumber(data: Answer['data']): MetricAnswer {
  if (data?.resultType === 'scalar') return sample(data.result);
  if (data?.resultType === 'vector' && Array.isArray(data.result)) {
    const series = data.result as { value?: unknown }[];
    if (series.length === 0) return { noSample: 'no series' };
    if (series.length > 1)
      throw new PrometheusQueryError(
        `the query answered ${series.length} series; it must answer one (aggregate them: sum(), max(), ...)`,
      );
    return sample(series[0]?.value);
  }
  throw new PrometheusQueryError(`the query answered a ${data?.resultType ?? 'missing'} result, not one number`);
}

/** A sample as Prometheus writes one: [time, "value"], the value a Go float's text. */
function sample(pair: unknown): MetricAnswer {
  const text: unknown = Array.isArray(pair) ? pair[1] : undefined;
  if (typeof text !== 'string') throw new PrometheusQueryError(`a sample without a value: ${JSON.stringify(pair)}`);
  if (text === 'NaN') return { noSample: 'NaN' };
  const value = text === '+Inf' || text === 'Inf' ? Infinity : text === '-Inf' ? -Infinity : Number(text);
  if (text.trim() === '' || Number.isNaN(value))
    throw new PrometheusQueryError(`a sample that is not a number: ${text}`);
  return { value };
}
