// How a reconcile reports that Temporal is over its rate limit, out of reach or refusing the
// controller's credentials, and when it tries again: after a rate limit with a delay that grows
// while it lasts (so a namespace over its limit is not hammered), otherwise at the poll interval.
// The message keeps the server's words and no changing figure, so a repeated failure does not
// rewrite the status, which would bring the reconcile straight back.
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { Backoff } from '../runtime/backoff.ts';
import { type Condition, progressing, stalled } from '../status/conditions.ts';
import { credentialsRefusal, troubleOf } from '../temporal/call-failures.ts';
import { MUTUAL_TLS_KEYS } from '../temporal/credentials.ts';
import { errorMessage } from '../k8s/api-errors.ts';

export interface TroubleDependencies {
  pollIntervalMs: number;
  /** Per worker deployment (`namespace/name`): grows with each rate-limited reconcile, reset by one that is not. */
  temporalBackoff: Backoff<string>;
}

export interface TemporalTrouble {
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
  if (trouble === 'TemporalRateLimited') {
    const text = `${what}: ${errorMessage(error)}; Temporal is rate limiting the controller, which tries again after a growing delay and scales down and deletes nothing meanwhile`;
    return { condition: progressing('False', trouble, text), requeueAfterMs: deps.temporalBackoff.next(key) };
  }
  if (trouble === 'TemporalUnreachable')
    return {
      condition: progressing('False', trouble, `${what}: ${errorMessage(error)}`),
      requeueAfterMs: deps.pollIntervalMs,
    };
  if (trouble === 'TemporalCredentialsRefused') {
    // A changed Secret brings the next reconcile at once; the poll interval covers a fix on the server's side.
    const text = `${what}: Temporal refused ${credentialsOf(connection)} (${credentialsRefusal(error) ?? ''}): ${remedyOf(connection)}; the controller scales down and deletes nothing meanwhile`;
    return { condition: stalled(trouble, text), requeueAfterMs: deps.pollIntervalMs };
  }
  return undefined;
}

/** Names the credentials the controller sent, never their value. */
function credentialsOf(connection: TemporalConnection): string {
  const namespace = connection.metadata.namespace ?? '';
  const of = `of TemporalConnection ${namespace}/${connection.metadata.name ?? ''}`;
  const { mutualTLSSecretRef: mtls, apiKeySecretRef: apiKey } = connection.spec;
  if (mtls)
    return `the client certificate ${of} (Secret ${namespace}/${mtls.name}, keys ${MUTUAL_TLS_KEYS.certificate} and ${MUTUAL_TLS_KEYS.privateKey})`;
  if (apiKey) return `the API key ${of} (Secret ${namespace}/${apiKey.name}, key ${apiKey.key})`;
  return `the connection without credentials ${of}`;
}

function remedyOf(connection: TemporalConnection): string {
  if (!connection.spec.mutualTLSSecretRef && !connection.spec.apiKeySecretRef)
    return 'give the TemporalConnection a mutualTLSSecretRef or an apiKeySecretRef that this server accepts';
  return 'put credentials that this server accepts in the Secret (the controller tries again as soon as it changes)';
}
