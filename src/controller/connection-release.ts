// A TemporalConnection keeps its finalizer while any worker deployment may still need it to
// reach Temporal, and lets it go once none does. Deleted while in use, it stays Terminating and
// says which worker deployments hold it.
import { API_VERSION } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { sameJson } from '../domain/same-json.ts';
import { FINALIZER, hasFinalizer, isBeingDeleted } from '../domain/finalizer.ts';
import { type ClusterClient, connectionPlural } from '../k8s/cluster-client.ts';
import { connectionKindOf, connectionLabel, usesConnection } from '../domain/connection-ref.ts';
import { mergeConditions } from '../status/conditions.ts';
import type { RecordEvent } from './events.ts';
import { removeFinalizer } from './finalizers.ts';

export interface ConnectionReleaseDependencies {
  cluster: ClusterClient;
  /** Of one namespace, or of every namespace watched. */
  workerDeployments(namespace?: string): readonly TemporalWorkerDeployment[];
  recordEvent: RecordEvent;
  now(): Date;
}

/** Lets a connection go once no worker deployment (other than `leaving`) may still need it. */
export async function releaseConnection(
  deps: ConnectionReleaseDependencies,
  connection: TemporalConnection,
  leaving?: string,
): Promise<void> {
  if (!hasFinalizer(connection)) return;
  const { namespace = '', name = '' } = connection.metadata;
  // A cluster connection is used from every namespace.
  const users = deps
    .workerDeployments(namespace || undefined)
    .filter((twd) => twd.metadata.uid !== leaving && usesConnection(twd, namespace, name))
    .filter((twd) => !isBeingDeleted(twd) || hasFinalizer(twd));
  if (users.length === 0) {
    await removeFinalizer(deps.cluster, connectionPlural(namespace), connection);
    return;
  }
  if (isBeingDeleted(connection)) await sayConnectionInUse(deps, connection, users);
}

/** A connection deleted while in use stays Terminating: its status and a Warning event say which worker deployments hold it. */
async function sayConnectionInUse(
  deps: ConnectionReleaseDependencies,
  connection: TemporalConnection,
  users: TemporalWorkerDeployment[],
): Promise<void> {
  const { namespace, name } = connection.metadata;
  const names = users.map((twd) => `${twd.metadata.namespace ?? ''}/${twd.metadata.name ?? ''}`).join(', ');
  const message = `${connectionLabel(namespace, name)} is kept (finalizer ${FINALIZER}) while worker deployments use it: ${names}; delete them or point their spec.workerOptions.connectionRef at another connection`;
  await deps.recordEvent(
    { apiVersion: API_VERSION, kind: connectionKindOf(namespace), metadata: connection.metadata },
    { type: 'Warning', reason: 'ConnectionInUse', message },
  );
  const now = deps.now().toISOString();
  const said = [
    { type: 'Ready', status: 'False' as const, reason: 'InUse', message },
    { type: 'Progressing', status: 'True' as const, reason: 'InUse', message },
  ];
  const conditions = mergeConditions(connection.status?.conditions ?? [], said, now, connection.metadata.generation);
  if (sameJson(connection.status?.conditions ?? [], conditions)) return;
  // A conflict means the connection changed since the cache was read: its event brings this back.
  await deps.cluster.replaceConnectionStatus({ ...connection, status: { ...connection.status, conditions } });
}
