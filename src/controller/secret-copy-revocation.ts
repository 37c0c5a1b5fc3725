// A namespace that may no longer use a TemporalClusterConnection (it left spec.allowedNamespaces,
// or the connection lost its workerAuth) loses the copies of its Secrets there, since that
// namespace's editors read them. Only the worker deployment's own copies go (notOurCopy: our
// managed-by label and its owner reference), each by its uid, so a Secret of the user's under a
// copy's name, or one made anew meanwhile, stays.
import { API_VERSION, KINDS } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { connectionLabel } from '../domain/connection-ref.ts';
import { MANAGED_BY } from '../domain/labels.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { LABELS } from '../k8s/names.ts';
import { notOurCopy } from '../k8s/secret-copies.ts';
import { type Condition, stalled } from '../status/conditions.ts';
import type { ReconcilerDependencies } from './dependencies.ts';

/**
 * Deletes them, a Normal event per copy; what could not be deleted is said as a stall of its own.
 * Each is counted (twc_secret_copy_revocations_total), a failure too: a credential left behind.
 */
export async function revokeSecretCopies(
  deps: Pick<ReconcilerDependencies, 'cluster' | 'recordEvent' | 'countSecretCopyRevocation'>,
  workerDeployment: TemporalWorkerDeployment,
  connection: TemporalConnection,
  /** Why the namespace may not use it: the Stalled condition's reason. */
  reason: string,
): Promise<Condition | undefined> {
  const { namespace = '', name = '' } = workerDeployment.metadata;
  const about = {
    apiVersion: API_VERSION,
    kind: KINDS.TemporalWorkerDeployment.kind,
    metadata: workerDeployment.metadata,
  };
  const of = connectionLabel(connection.metadata.namespace, connection.metadata.name);
  const count = (result: 'deleted' | 'failed') =>
    deps.countSecretCopyRevocation?.(namespace, connection.metadata.name ?? '', result);
  try {
    const listed = await deps.cluster.listObjects(
      { apiVersion: 'v1', kind: 'Secret' },
      namespace,
      `${MANAGED_BY.label}=${MANAGED_BY.value},${LABELS.deploymentName}=${name}`,
    );
    for (const copy of listed.filter((secret) => notOurCopy(secret, workerDeployment) === undefined)) {
      await deps.cluster.deleteObject(copy);
      count('deleted');
      await deps.recordEvent(about, {
        type: 'Normal',
        reason: 'SecretCopyDeleted',
        message: `deleted Secret ${namespace}/${copy.metadata.name}, the worker Pods' copy of a Secret of ${of}, which namespace ${namespace} may no longer use (${reason}): running Pods keep what they read, new ones cannot start on it`,
      });
    }
    return undefined;
  } catch (error) {
    count('failed');
    return stalled(
      'SecretCopyNotDeleted',
      `cannot delete the copies of ${of}'s Secrets in namespace ${namespace}, which may no longer use it: ${errorMessage(error)}; tried again at the next poll`,
    );
  }
}
