// When a failed call to Temporal is tried again: the SDK's default policy for its connection (up
// to 10 attempts, 100 ms growing by 1.7 to at most 5 s, ±20 % jitter, the codes below), except
// RESOURCE_EXHAUSTED. Retried at once, a rate limit would hold the reconcile for half a minute
// while taking more of the namespace's limit; the reconciler instead says so and comes back later.
import { type CallStatus, GrpcStatus } from './call-status.ts';

const MAX_ATTEMPTS = 10;
const INITIAL_MS = 100;
const FACTOR = 1.7;
const MAX_MS = 5_000;
const JITTER = 0.2;

const RETRIED: ReadonlySet<number> = new Set([
  GrpcStatus.UNKNOWN,
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.ABORTED,
  GrpcStatus.DATA_LOSS,
  GrpcStatus.OUT_OF_RANGE,
]);

/** How long to wait before attempt `attempt + 1` after `status` ended attempt `attempt`; undefined: give up. */
export function retryDelayMs(attempt: number, status: CallStatus, random: () => number): number | undefined {
  if (attempt >= MAX_ATTEMPTS || !retried(status)) return undefined;
  return Math.min(MAX_MS, INITIAL_MS * FACTOR ** attempt) * (1 - JITTER + random() * 2 * JITTER);
}

function retried({ code, details }: CallStatus): boolean {
  if (code !== GrpcStatus.INTERNAL) return RETRIED.has(code);
  // INTERNAL is mostly final (a refused message, TLS); a stream a proxy ended without a status,
  // or a connection closing under the call, is worth another try. No TLS failure is.
  if (/RST_STREAM with code 0|Call ended without gRPC status/i.test(details)) return true;
  return /RST_STREAM with code 2/i.test(details) && !/SSL alert number/i.test(details);
}
