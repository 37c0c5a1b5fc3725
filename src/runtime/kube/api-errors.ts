// How a failed Kubernetes API call reads: the API server's own words when it answered, and what
// went wrong on the way when it did not. The node agent, which still uses client-node, reads its
// ApiException through the same functions: both carry the HTTP status as `code`.

/** The API server's answer to a refused request (kind: Status). */
export interface KubernetesStatus {
  kind: 'Status';
  message?: string;
  reason?: string;
  code?: number;
}

/** The API server answered with an error status. */
export class KubernetesApiError extends Error {
  override readonly name = 'KubernetesApiError';
  /** The HTTP status. */
  readonly code: number;
  /** The Status object of the body, when the body was one. */
  readonly status: KubernetesStatus | undefined;

  constructor(method: string, path: string, code: number, status: KubernetesStatus | undefined) {
    super(status?.message ? `${status.message} (HTTP ${code})` : `${method} ${path}: HTTP ${code}`);
    this.code = code;
    this.status = status;
  }
}

/** No answer came: the connection failed, or the answer stalled. */
export class KubernetesUnreachableError extends Error {
  override readonly name = 'KubernetesUnreachableError';

  constructor(method: string, path: string, options: { cause: unknown }) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`${method} ${path}: the Kubernetes API did not answer: ${reason}`, options);
  }
}

/**
 * A success whose body is not JSON (a truncated answer, a proxy's page). Says its length only:
 * the body may be a credential (a TokenRequest's), and a parser's message quotes what it read.
 */
export class KubernetesUnreadableResponseError extends Error {
  override readonly name = 'KubernetesUnreadableResponseError';

  constructor(method: string, path: string, length: number) {
    super(`${method} ${path}: the Kubernetes API answered with ${length} bytes that are not JSON`);
  }
}

/** The HTTP status of a failed Kubernetes API call, if it was one. */
export function httpStatus(error: unknown): number | undefined {
  return (error as { code?: number } | undefined)?.code;
}

/** A catch handler that swallows one status, which for that call means the work is already done. */
export function unless(status: number): (error: unknown) => void {
  return (error) => {
    if (httpStatus(error) !== status) throw error;
  };
}

/**
 * What the API server said, when the error is client-node's answer: its own message carries the
 * raw body and headers ("Unknown API Status Code!"), unfit for a condition or an event.
 */
export function apiServerMessage(error: unknown): string | undefined {
  const { code, body } = (error ?? {}) as { code?: unknown; body?: unknown };
  if (typeof code !== 'number' || typeof body !== 'string') return undefined;
  try {
    const status = JSON.parse(body) as { message?: unknown };
    return typeof status.message === 'string' ? `${status.message} (HTTP ${code})` : undefined;
  } catch {
    // Not a Status object (a proxy's HTML page, say): the body says nothing we can use.
    return `HTTP ${code}`;
  }
}

/** One line for a log, a condition or an event: the API server's words when it answered, else the error's message. */
export function errorMessage(error: unknown): string {
  return apiServerMessage(error) ?? (error instanceof Error ? error.message : String(error));
}
