// The plan's Kubernetes steps that come before Temporal's: the finalizers, the Secret copies the
// Pods mount, and the builds' Deployments created, rolled, deleted and scaled, in that order.
import { hasFinalizer, isBeingDeleted } from '../domain/finalizer.ts';
import type { Observation, SecretCopyState } from '../domain/observation.ts';
import type { PlannedAction } from './planned-action.ts';
import type { VersionAction } from './versions.ts';

/** The order Kubernetes actions run in: the new build first (what traffic moves to), then rolls, deletions, scaling. */
const KUBERNETES_ORDER = ['create', 'update', 'delete', 'scale'] as const;

/** The copies of a cluster connection's Secrets not yet as they should be: before any Pod needs them. */
export function secretCopyActions(observation: { secretCopies?: readonly SecretCopyState[] }): PlannedAction[] {
  return (observation.secretCopies ?? []).flatMap(({ secret, source, inPlace, outdated }) =>
    inPlace
      ? []
      : [
          {
            action: 'applySecretCopy' as const,
            secret,
            reason: `the worker Pods mount Secret ${secret.metadata?.name ?? ''}, ${outdated ? 'an outdated' : 'a'} copy of Secret ${source}`,
          },
        ],
  );
}

/** The finalizers go on before anything exists in Temporal: whatever the reconcile creates there, deletion cleans up. */
export function finalizers(observation: {
  workerDeployment: Observation['workerDeployment'];
  connection?: Observation['connection'];
}): PlannedAction[] {
  const { workerDeployment, connection } = observation;
  if (!connection) return [];
  const reason = 'deletion must clean up what the controller creates in Temporal';
  return [
    ...(hasFinalizer(workerDeployment)
      ? []
      : [{ action: 'addFinalizer' as const, kind: 'TemporalWorkerDeployment' as const, reason }]),
    ...(hasFinalizer(connection) || isBeingDeleted(connection)
      ? []
      : [
          {
            action: 'addFinalizer' as const,
            kind: 'TemporalConnection' as const,
            reason: `${reason}, through this connection`,
          },
        ]),
  ];
}

export function kubernetesActions(actions: VersionAction[], observation: Observation): PlannedAction[] {
  const planned = actions.flatMap((a): PlannedAction[] => {
    switch (a.action) {
      case 'create': {
        const wanted = observation.wanted.find((w) => w.pool === a.pool);
        return wanted ? [{ ...a, deployment: wanted.deployment }] : [];
      }
      case 'update': {
        const replacement = observation.replacements[a.deployment];
        return replacement ? [{ ...a, replacement }] : [];
      }
      case 'delete':
      case 'scale':
        return [a];
      default:
        return [];
    }
  });
  return planned
    .sort(
      (a, b) =>
        KUBERNETES_ORDER.indexOf(a.action as (typeof KUBERNETES_ORDER)[number]) -
        KUBERNETES_ORDER.indexOf(b.action as (typeof KUBERNETES_ORDER)[number]),
    )
    .flatMap((a): PlannedAction[] =>
      a.action === 'scale' && a.replicas === 0
        ? [
            ...(observation.ownedAutoscalers ?? [])
              .filter((o) => o.deployment === a.deployment)
              .map((object) => ({
                action: 'deleteOwnedResource' as const,
                object,
                buildId: a.buildId,
                reason: `Deployment ${a.deployment} of build ${a.buildId} is scaled to zero next, and ${object.kind} ${object.name} would scale it back up`,
              })),
            a,
          ]
        : [a],
    );
}
