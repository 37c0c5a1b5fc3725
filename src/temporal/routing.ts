// Carries a routing decision out in Temporal. Every change carries the conflict token of the
// state it was decided on, so a change made meanwhile by anyone else fails instead of being
// overwritten; the controller becomes the deployment's manager only when nobody is.
import type { WorkflowService } from '@temporalio/client';
import type { RoutingDecision } from '../planner/routing.ts';
import type { TemporalDeploymentState } from './deployment-state.ts';

export class ManagedElsewhereError extends Error {
  override name = 'ManagedElsewhereError';
  readonly holder: string;
  constructor(deploymentName: string, holder: string) {
    super(
      `Worker Deployment ${deploymentName} is managed by "${holder}", so the controller does not change its routing; ` +
        `release it with \`temporal worker deployment manager-identity unset --deployment-name ${deploymentName}\``,
    );
    this.holder = holder;
  }
}

export interface RoutingTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
  /** This installation's identity: the manager identity it claims and the identity of each change. */
  identity: string;
}

/** Applies the decision; resolves with the conflict token of the resulting state, if anything was changed. */
export async function applyRouting(
  target: RoutingTarget,
  state: TemporalDeploymentState,
  decision: RoutingDecision,
): Promise<Uint8Array | undefined> {
  if (decision.action === 'none' || decision.action === 'wait') return undefined;
  const { service, namespace, deploymentName, identity } = target;
  let conflictToken = state.conflictToken;
  if (state.managerIdentity && state.managerIdentity !== identity)
    throw new ManagedElsewhereError(deploymentName, state.managerIdentity);
  if (!state.managerIdentity) {
    const claimed = await service.setWorkerDeploymentManager({
      namespace,
      deploymentName,
      self: true,
      conflictToken,
      identity,
    });
    conflictToken = claimed.conflictToken;
  }
  const common = { namespace, deploymentName, conflictToken, identity };
  switch (decision.action) {
    case 'setCurrent':
      return (await service.setWorkerDeploymentCurrentVersion({ ...common, buildId: decision.buildId })).conflictToken;
    case 'setRamp':
      return (
        await service.setWorkerDeploymentRampingVersion({
          ...common,
          buildId: decision.buildId,
          percentage: decision.percentage,
        })
      ).conflictToken;
    case 'clearRamp':
      return (await service.setWorkerDeploymentRampingVersion({ ...common, buildId: '', percentage: 0 })).conflictToken;
  }
}
