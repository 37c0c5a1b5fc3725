// What happens when a TemporalWorkerDeployment is deleted: its Deployments go first (their
// pollers must leave before Temporal lets go of a version), then its Worker Deployment is removed
// from Temporal, then the finalizers let Kubernetes finish. A TemporalConnection keeps its
// finalizer while a worker deployment still needs it for that cleanup.
import { API_VERSION, KINDS } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { temporalDeploymentName } from '../k8s/names.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import canonicalize from 'canonicalize';
import { mergeConditions, progressing } from '../status/conditions.ts';
import { ManagedElsewhereError } from '../temporal/deployment-cleanup.ts';
import { FINALIZER, hasFinalizer, isBeingDeleted } from '../domain/finalizer.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import { removeFinalizer } from './finalizers.ts';
import { errorMessage, lastKnownVersions, writeStatus } from './status-writer.ts';

export async function finalizeWorkerDeployment(
  deps: ReconcilerDependencies,
  stored: TemporalWorkerDeployment,
): Promise<ReconcileResult> {
  if (!hasFinalizer(stored)) return undefined;
  const namespace = stored.metadata.namespace ?? '';
  const deploymentName = temporalDeploymentName(namespace, stored.metadata.name ?? '');
  const temporalNamespace = stored.spec.workerOptions.temporalNamespace;
  const about = { apiVersion: API_VERSION, kind: KINDS.TemporalWorkerDeployment.kind, metadata: stored.metadata };
  const connectionName = stored.spec.workerOptions.connectionRef.name;
  const connection = deps.connection(namespace, connectionName);
  if (!connection) {
    // Its finalizer kept it while we could use it; without it there is no way to reach Temporal.
    await deps.recordEvent(about, {
      type: 'Warning',
      reason: 'TemporalCleanupSkipped',
      message: `TemporalConnection ${namespace}/${connectionName} does not exist, so Worker Deployment ${deploymentName} is left in Temporal namespace ${temporalNamespace}; remove it with \`temporal worker deployment delete --name ${deploymentName}\``,
    });
    await removeFinalizer(deps.cluster, KINDS.TemporalWorkerDeployment.plural, stored);
    return undefined;
  }

  for (const deployment of deps
    .deployments(namespace)
    .filter((d) => d.metadata?.ownerReferences?.some((o) => o.uid === stored.metadata.uid))) {
    const name = deployment.metadata?.name ?? '';
    await deps.cluster.deleteDeployment(namespace, name);
    await deps.recordEvent(about, {
      type: 'Normal',
      reason: 'DeploymentDeleted',
      message: `deleted Deployment ${name}: the worker deployment is being deleted`,
    });
  }

  let progress;
  try {
    const temporal = await deps.temporal(connection, {
      namespace: temporalNamespace,
      deploymentName,
      identity: deps.identity,
    });
    progress = await temporal.cleanUp();
  } catch (error) {
    const text = `cannot remove Worker Deployment ${deploymentName} from Temporal: ${errorMessage(error)}; to delete without that cleanup, remove the finalizer ${FINALIZER}`;
    return writeStatus(
      deps,
      stored,
      lastKnownVersions(stored),
      [
        progressing(
          'False',
          error instanceof ManagedElsewhereError ? 'ManagedElsewhere' : 'TemporalCleanupFailed',
          text,
        ),
      ],
      deps.pollIntervalMs,
    );
  }
  if (!progress.done)
    return writeStatus(
      deps,
      stored,
      lastKnownVersions(stored),
      [progressing('True', 'Deleting', progress.reason)],
      deps.pollIntervalMs,
    );

  await deps.recordEvent(about, { type: 'Normal', reason: 'TemporalCleanedUp', message: progress.reason });
  await releaseConnection(deps, connection, stored.metadata.uid);
  await removeFinalizer(deps.cluster, KINDS.TemporalWorkerDeployment.plural, stored);
  return undefined;
}

/** Lets a connection go once no worker deployment (other than `leaving`) may still need it. */
export async function releaseConnection(
  deps: ReconcilerDependencies,
  connection: TemporalConnection,
  leaving?: string,
): Promise<void> {
  if (!hasFinalizer(connection)) return;
  const users = deps
    .workerDeployments(connection.metadata.namespace ?? '')
    .filter(
      (twd) => twd.metadata.uid !== leaving && twd.spec.workerOptions.connectionRef.name === connection.metadata.name,
    )
    .filter((twd) => !isBeingDeleted(twd) || hasFinalizer(twd));
  if (users.length === 0) {
    await removeFinalizer(deps.cluster, KINDS.TemporalConnection.plural, connection);
    return;
  }
  if (isBeingDeleted(connection)) await sayConnectionInUse(deps, connection, users);
}

/** A connection deleted while in use stays Terminating: its status and a Warning event say which worker deployments hold it. */
async function sayConnectionInUse(
  deps: ReconcilerDependencies,
  connection: TemporalConnection,
  users: TemporalWorkerDeployment[],
): Promise<void> {
  const namespace = connection.metadata.namespace ?? '';
  const names = users.map((twd) => `${namespace}/${twd.metadata.name ?? ''}`).join(', ');
  const message = `TemporalConnection ${namespace}/${connection.metadata.name ?? ''} is kept (finalizer ${FINALIZER}) while worker deployments use it: ${names}; delete them or point their spec.workerOptions.connectionRef at another connection`;
  await deps.recordEvent(
    { apiVersion: API_VERSION, kind: KINDS.TemporalConnection.kind, metadata: connection.metadata },
    { type: 'Warning', reason: 'ConnectionInUse', message },
  );
  const now = deps.now().toISOString();
  const said = [
    { type: 'Ready', status: 'False' as const, reason: 'InUse', message },
    { type: 'Progressing', status: 'True' as const, reason: 'InUse', message },
  ];
  const conditions = mergeConditions(connection.status?.conditions ?? [], said, now, connection.metadata.generation);
  if (canonicalize(connection.status?.conditions ?? []) === canonicalize(conditions)) return;
  // A conflict means the connection changed since the cache was read: its event brings this back.
  await deps.cluster.replaceConnectionStatus({ ...connection, status: { ...connection.status, conditions } });
}
