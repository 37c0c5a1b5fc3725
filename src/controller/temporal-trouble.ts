// When Temporal is over its rate limit, out of reach or refusing the controller's credentials, a
// reconcile says so (status/read-failures.ts words it) and tries again later: after a rate limit,
// or a call that ran out its timeout, with a delay that grows while it lasts (a namespace over its
// limit is not hammered, and a frontend too loaded to answer does not hold a reconcile slot for a
// whole timeout at every poll), otherwise at the poll interval.
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { ReadFailure } from '../domain/read-failure.ts';
import type { Backoff } from '../runtime/backoff.ts';
import type { Condition } from '../status/conditions.ts';
import { readFailureCondition } from '../status/read-failures.ts';
import { credentialsRefusal, troubleOf } from '../temporal/call-failures.ts';
import { GrpcStatus, TemporalCallError } from '../temporal/call-status.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';

export interface TroubleDependencies {
  pollIntervalMs: number;
  /** Per worker deployment (`namespace/name`): grows with each rate-limited reconcile, reset by one that is not. */
  temporalBackoff: Backoff<string>;
}

export interface TemporalTrouble {
  failure: Extract<ReadFailure, { kind: 'Temporal' }>;
  condition: Condition;
  requeueAfterMs: number;
}

/**
 * Undefined when the failure is about the request rather than about Temporal (see troubleOf).
 * `connection` lets a refusal of credentials name the TemporalConnection and Secret to fix.
 */
export function temporalTrouble(
  deps: TroubleDependencies,
  key: string,
  error: unknown,
  what: string,
  connection: TemporalConnection,
): TemporalTrouble | undefined {
  const trouble = troubleOf(error);
  if (!trouble) return undefined;
  const refusal = credentialsRefusal(error);
  const failure = {
    kind: 'Temporal' as const,
    trouble,
    what,
    detail: errorMessage(error),
    ...(refusal === undefined ? {} : { refusal }),
    connection,
  };
  const timedOut = error instanceof TemporalCallError && error.code === GrpcStatus.DEADLINE_EXCEEDED;
  const requeueAfterMs =
    trouble === 'TemporalRateLimited' || timedOut ? deps.temporalBackoff.next(key) : deps.pollIntervalMs;
  return { failure, condition: readFailureCondition(failure), requeueAfterMs };
}
