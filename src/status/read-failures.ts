// The condition that says why a reconcile could not look, or why Temporal refused an action:
// Stalled where a person must fix something, Progressing=False where time may fix it. The message
// keeps the server's words and no changing figure, so a repeated failure does not rewrite the
// status, which would bring the reconcile straight back. Pure.
import type { TemporalConnection } from '../api/temporal-connection.ts';
import { connectionKindOf, connectionLabel } from '../domain/connection-ref.ts';
import type { ReadFailure } from '../domain/read-failure.ts';
import { NOT_FOUND_GRACE_MS } from '../domain/temporal-not-found.ts';
import { MUTUAL_TLS_KEYS } from '../domain/secret-keys.ts';
import { type Condition, progressing, stalled } from './conditions.ts';

export function readFailureCondition(failure: ReadFailure): Condition {
  switch (failure.kind) {
    case 'InvalidSpec':
      // An object stored before a rule existed (or with admission skipped) is left running as it is.
      return stalled(
        'InvalidSpec',
        `${failure.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}; the running builds are left as they are until the spec is fixed`,
      );
    case 'ConnectionNotFound':
      return stalled(
        'ConnectionNotFound',
        failure.unwatched
          ? `${connectionLabel(failure.namespace, failure.name)} is not read by this controller, which is installed for some namespaces only and has no right to cluster-scoped objects: use a TemporalConnection of this namespace in spec.workerOptions.connectionRef`
          : `${connectionLabel(failure.namespace, failure.name)} does not exist: create it or fix spec.workerOptions.connectionRef`,
      );
    case 'ConnectionCredentials': {
      const { namespace, name } = failure.connection.metadata;
      return stalled(failure.reason, `${connectionLabel(namespace, name)}: ${failure.message}`);
    }
    case 'TemporalNamespaceNotFound':
      return stalled('TemporalNamespaceNotFound', `${failure.what}: ${failure.detail}`);
    case 'TemporalDeploymentNotFound': {
      const { registered, temporalName, since } = failure;
      const had = registered.length
        ? `though it registered build${registered.length === 1 ? '' : 's'} ${registered.join(', ')} (see the status)`
        : 'though it answered with it just before';
      return progressing(
        'False',
        'TemporalDeploymentNotFound',
        `Temporal has answered since ${since.toISOString()} that Worker Deployment ${temporalName} does not exist, ${had}: it answers so for a moment after each change it makes, so the answer is believed once it has stood ${NOT_FOUND_GRACE_MS / 1000} s; meanwhile the controller asks again and scales down and deletes nothing`,
      );
    }
    case 'Temporal':
      switch (failure.trouble) {
        case 'TemporalRateLimited':
          return progressing(
            'False',
            failure.trouble,
            `${failure.what}: ${failure.detail}; Temporal is rate limiting the controller, which tries again after a growing delay and scales down and deletes nothing meanwhile`,
          );
        case 'TemporalBusy':
          return progressing(
            'False',
            failure.trouble,
            `${failure.what}: ${failure.detail}; Temporal's workflow of this Worker Deployment is too busy to answer (as for a while after a server restart): the controller tries again at the poll interval and scales down and deletes nothing meanwhile`,
          );
        case 'TemporalUnreachable':
          return progressing('False', failure.trouble, `${failure.what}: ${failure.detail}`);
        case 'TemporalCredentialsRefused':
          return stalled(
            failure.trouble,
            `${failure.what}: Temporal refused ${credentialsOf(failure.connection)} (${failure.refusal ?? ''}): ${remedyOf(failure.connection)}; the controller scales down and deletes nothing meanwhile`,
          );
      }
  }
}

/** Names the credentials the controller sent, never their value. */
function credentialsOf(connection: TemporalConnection): string {
  const { namespace, name } = connection.metadata;
  const of = `of ${connectionLabel(namespace, name)}`;
  const { mutualTLSSecretRef: mtls, apiKeySecretRef: apiKey } = connection.spec;
  if (mtls)
    return `the client certificate ${of} (Secret ${mtls.namespace ?? namespace ?? ''}/${mtls.name}, keys ${MUTUAL_TLS_KEYS.certificate} and ${MUTUAL_TLS_KEYS.privateKey})`;
  if (apiKey)
    return `the API key ${of} (Secret ${apiKey.namespace ?? namespace ?? ''}/${apiKey.name}, key ${apiKey.key})`;
  return `the connection without credentials ${of}`;
}

function remedyOf(connection: TemporalConnection): string {
  if (!connection.spec.mutualTLSSecretRef && !connection.spec.apiKeySecretRef)
    return `give the ${connectionKindOf(connection.metadata.namespace)} a mutualTLSSecretRef or an apiKeySecretRef that this server accepts`;
  return 'put credentials that this server accepts in the Secret (the controller tries again as soon as it changes)';
}
