// Why a reconcile could not observe what it decides on, as plain data: the observer says what
// happened, status/read-failures.ts says it to people. Temporal's own troubles (over its rate limit,
// busy, out of reach, refusing the credentials) are also how a Temporal action can fail.
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { NotFoundAnswer } from './temporal-not-found.ts';

export type TemporalTrouble =
  'TemporalRateLimited' | 'TemporalBusy' | 'TemporalUnreachable' | 'TemporalCredentialsRefused';

export type ReadFailure =
  | { kind: 'InvalidSpec'; errors: { field: string; message: string }[] }
  /** `name`: the connection the spec names, in the worker deployment's namespace. */
  /** `unwatched`: a TemporalClusterConnection, which a controller of some namespaces only does not read. */
  | { kind: 'ConnectionNotFound'; namespace: string; name: string; unwatched?: true }
  /** The connection's Secret is missing or unusable: `reason` says which (SecretNotFound, InvalidSecret). */
  | { kind: 'ConnectionCredentials'; reason: string; connection: TemporalConnection; message: string }
  | { kind: 'TemporalNamespaceNotFound'; what: string; detail: string }
  /** Temporal answered that the Worker Deployment does not exist, not believed yet (see domain/temporal-not-found.ts). */
  | ({ kind: 'TemporalDeploymentNotFound'; temporalName: string } & NotFoundAnswer)
  | {
      kind: 'Temporal';
      trouble: TemporalTrouble;
      /** What could not be done: "cannot read Worker Deployment …". */
      what: string;
      /** The server's or the network's words. */
      detail: string;
      /** How the server refused the credentials, in words that do not change between attempts. */
      refusal?: string;
      connection: TemporalConnection;
    };
