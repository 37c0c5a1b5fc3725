// Which connection a worker deployment names: a TemporalConnection of its own namespace (the
// default) or a TemporalClusterConnection, told apart everywhere else by the namespace a cluster
// connection lacks (''); and the words the adapters share for a connection object and for a
// Secret lookup. Pure.
import type { V1Secret } from '@kubernetes/client-node';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';

export type ConnectionRef = TemporalWorkerDeployment['spec']['workerOptions']['connectionRef'];

/** Where the named connection is: the worker deployment's namespace, or '' for a cluster one. */
export function connectionNamespace(ref: ConnectionRef, workerDeploymentNamespace: string): string {
  return ref.kind === 'TemporalClusterConnection' ? '' : workerDeploymentNamespace;
}

/** Whether the worker deployment uses the connection `name` of `namespace` ('' for a cluster one). */
export function usesConnection(twd: TemporalWorkerDeployment, namespace: string, name: string): boolean {
  const ref = twd.spec.workerOptions.connectionRef;
  return ref.name === name && connectionNamespace(ref, twd.metadata.namespace ?? '') === namespace;
}

/** The kind of a connection of `namespace`: a cluster one has none. */
export function connectionKindOf(namespace: string | undefined): NonNullable<ConnectionRef['kind']> {
  return namespace ? 'TemporalConnection' : 'TemporalClusterConnection';
}

/** As messages name it: `TemporalConnection ns/name` or `TemporalClusterConnection name`. */
export function connectionLabel(namespace: string | undefined, name: string | undefined): string {
  return `${connectionKindOf(namespace)} ${namespace ? `${namespace}/` : ''}${name ?? ''}`;
}

/**
 * A TemporalConnection, or a TemporalClusterConnection: the same spec, but the cluster kind has no
 * namespace, and each of its Secret references names one.
 */
export type AnyConnection = Pick<TemporalConnection, 'metadata' | 'spec'>;

/** The Secrets named, as cached: undefined for one that does not exist. */
export type SecretLookup = (namespace: string, name: string) => V1Secret | undefined;
