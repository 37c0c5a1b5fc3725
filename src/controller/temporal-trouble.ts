// How a reconcile reports that Temporal is over its rate limit or out of reach, and when it tries
// again: after a rate limit with a delay that grows while it lasts (so a namespace over its limit
// is not hammered), otherwise at the poll interval. The message keeps the server's words and no
// changing figure, so a repeated failure does not rewrite the status, which would bring the
// reconcile straight back.
import type { Backoff } from '../runtime/backoff.ts';
import { type Condition, progressing } from '../status/conditions.ts';
import { troubleOf } from '../temporal/call-failures.ts';
import { errorMessage } from './status-writer.ts';

export interface TroubleDependencies {
  pollIntervalMs: number;
  /** Per worker deployment (`namespace/name`): grows with each rate-limited reconcile, reset by one that is not. */
  temporalBackoff: Backoff<string>;
}

export interface TemporalTrouble {
  condition: Condition;
  requeueAfterMs: number;
}

/** Undefined when the failure is about the request rather than about Temporal (see troubleOf). */
export function temporalTrouble(deps: TroubleDependencies, key: string, error: unknown, what: string): TemporalTrouble | undefined {
  const trouble = troubleOf(error);
  if (trouble === 'TemporalRateLimited') {
    const text = `${what}: ${errorMessage(error)}; Temporal is rate limiting the controller, which tries again after a growing delay and scales down and deletes nothing meanwhile`;
    return { condition: progressing('False', trouble, text), requeueAfterMs: deps.temporalBackoff.next(key) };
  }
  if (trouble === 'TemporalUnreachable') return { condition: progressing('False', trouble, `${what}: ${errorMessage(error)}`), requeueAfterMs: deps.pollIntervalMs };
  return undefined;
}
