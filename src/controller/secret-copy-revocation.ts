// A namespace that may no longer use a TemporalClusterConnection (it left spec.allowedNamespaces,
// or the connection lost its workerAuth) loses the copies of its Secrets there, since that
// namespace's editors read them. Only the worker deployment's own copies go (notOurCopy: our
// managed-by label and its owner reference), each by its uid, so a Secret of the user's under a
// copy's name, or one made anew meanwhile, stays. Listed here; deleted by the executor
// (planner/revocation.ts plans it).
import { refusedClusterConnection } from '../domain/cluster-connection-use.ts';
import { MANAGED_BY } from '../domain/labels.ts';
import type { FailedObservation, SecretCopyRevocation } from '../domain/observation.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { LABELS } from '../k8s/names.ts';
import { notOurCopy } from '../k8s/secret-copies.ts';
import type { ReconcilerDependencies } from './dependencies.ts';

/** The copies to revoke when the observation stopped at a refused cluster connection; undefined otherwise. */
export async function observeRevocation(
  deps: Pick<ReconcilerDependencies, 'cluster' | 'countSecretCopyRevocation'>,
  { workerDeployment, failure }: FailedObservation,
): Promise<SecretCopyRevocation | undefined> {
  if (failure.kind !== 'ConnectionCredentials' || !refusedClusterConnection(failure.reason)) return undefined;
  const { connection, reason } = failure;
  try {
    const listed = await deps.cluster.listObjects(
      { apiVersion: 'v1', kind: 'Secret' },
      workerDeployment.metadata.namespace ?? '',
      `${MANAGED_BY.label}=${MANAGED_BY.value},${LABELS.deploymentName}=${workerDeployment.metadata.name ?? ''}`,
    );
    const copies = listed
      .filter((secret) => notOurCopy(secret, workerDeployment) === undefined)
      .map((secret) => ({ name: secret.metadata.name ?? '', uid: secret.metadata.uid ?? '' }));
    return { connection, reason, copies };
  } catch (error) {
    // A credential that may be left behind: counted as a revocation that failed.
    deps.countSecretCopyRevocation?.(
      workerDeployment.metadata.namespace ?? '',
      connection.metadata.name ?? '',
      'failed',
    );
    return { connection, reason, copies: { unlisted: errorMessage(error) } };
  }
}
