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
