// What a reconcile whose observation stopped still does: the finalizers go on, and a namespace
// refused its TemporalClusterConnection loses the worker deployment's copies of that connection's
// Secrets there, each deleted by its uid. Pure.
import { connectionLabel } from '../domain/connection-ref.ts';
import type { FailedObservation, SecretCopyRevocation } from '../domain/observation.ts';
import { type Condition, stalled } from '../status/conditions.ts';
import { readFailureCondition } from '../status/read-failures.ts';
import { finalizers, type PlannedAction } from './plan.ts';

export interface CutShortPlan {
  actions: PlannedAction[];
  /** What holds whatever the execution: the read failure, and copies that could not be listed. */
  conditions: Condition[];
}

export function planCutShort(failed: FailedObservation, revocation: SecretCopyRevocation | undefined): CutShortPlan {
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
