// What a reconcile whose observation stopped still does: the finalizers go on, a namespace
// refused its TemporalClusterConnection loses the worker deployment's copies of that connection's
// Secrets there, each deleted by its uid, and the certificates of the connection's Secrets, when
// they were read, are still said (an expired one may be why Temporal refused). Pure.
import { connectionLabel } from '../domain/connection-ref.ts';
import type { FailedObservation, SecretCopyRevocation } from '../domain/observation.ts';
import { type Condition, stalled } from '../status/conditions.ts';
import { readFailureCondition } from '../status/read-failures.ts';
import type { CertificateVerdict } from '../status/certificates.ts';
import { workerDeploymentCertificates } from './certificates.ts';
import { finalizers } from './kubernetes-actions.ts';
import type { PlannedAction } from './planned-action.ts';

export interface CutShortPlan {
  actions: PlannedAction[];
  /** What holds whatever the execution: the read failure, and copies that could not be listed. */
  conditions: Condition[];
  /** What to say of the connection's certificates, when its Secrets were read (see planner/certificates.ts). */
  certificates?: CertificateVerdict;
}

/** `now` and `certificateExpiryWarningMs` judge the certificates of the connection's Secrets, if read. */
export function planCutShort(
  failed: FailedObservation,
  revocation: SecretCopyRevocation | undefined,
  now: Date,
  certificateExpiryWarningMs?: number,
): CutShortPlan {
  const { workerDeployment, connection } = failed;
  const certificates =
    connection && failed.certificates
      ? workerDeploymentCertificates(workerDeployment, connection, failed.certificates, now, certificateExpiryWarningMs)
      : undefined;
  return { ...cutShort(failed, revocation), ...(certificates ? { certificates } : {}) };
}

function cutShort(failed: FailedObservation, revocation: SecretCopyRevocation | undefined): CutShortPlan {
  const conditions = [readFailureCondition(failed.failure)];
  if (!revocation) return { actions: finalizers(failed), conditions };
  const namespace = failed.workerDeployment.metadata.namespace ?? '';
  const of = connectionLabel(revocation.connection.metadata.namespace, revocation.connection.metadata.name);
  if ('unlisted' in revocation.copies)
    return {
      actions: finalizers(failed),
      conditions: [...conditions, notDeleted(of, namespace, revocation.copies.unlisted)],
    };
  return {
    actions: [
      ...finalizers(failed),
      ...revocation.copies.map(({ name, uid }) => ({
        action: 'deleteSecretCopy' as const,
        secret: { namespace, name, uid },
        connection: { name: revocation.connection.metadata.name ?? '', label: of },
        reason: `the worker Pods' copy of a Secret of ${of}, which namespace ${namespace} may no longer use (${revocation.reason}): running Pods keep what they read, new ones cannot start on it`,
      })),
    ],
    conditions,
  };
}

/** The stall of copies left behind: a credential the namespace's editors can still read. */
export function notDeleted(of: string, namespace: string, why: string): Condition {
  return stalled(
    'SecretCopyNotDeleted',
    `cannot delete the copies of ${of}'s Secrets in namespace ${namespace}, which may no longer use it: ${why}; tried again at the next poll`,
  );
}
