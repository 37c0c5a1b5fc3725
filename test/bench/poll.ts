// Polls until a check holds and says when it first did: benchmarks time what they wait for.

/** Resolves with `performance.now()` at the first poll that saw `check` hold. */
export async function until(
  check: () => Promise<boolean>,
  { intervalMs = 100, timeoutMs = 300_000 } = {},
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`benchmark timed out after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return performance.now();
}
