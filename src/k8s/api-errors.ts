// client-node reports a failed API call as an ApiException carrying the HTTP status as `code`.

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
 * What the API server said, when the error is its answer: client-node's own message carries the
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
