// Carries a routing change out in Temporal. The change carries the conflict token of the state it
// was decided on, so a change made meanwhile by anyone else fails instead of being overwritten;
// the planner decides whether the controller first claims the free manager identity.
import type { RoutingChange } from '../domain/routing-change.ts';
import type { WorkflowService } from './protocol.ts';

export interface RoutingTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
  /** This installation's identity: the manager identity it claims and the identity of each change. */
  identity: string;
}

export async function changeRouting(target: RoutingTarget, change: RoutingChange): Promise<void> {
  const { service, namespace, deploymentName, identity } = target;
  let conflictToken = change.conflictToken;
  if (change.claimManager) {
    conflictToken = (
      await service.setWorkerDeploymentManager({ namespace, deploymentName, self: true, conflictToken, identity })
    ).conflictToken;
  }
  const common = { namespace, deploymentName, conflictToken, identity };
  // Promoting a build (or leaving every build) leaves another build's ramp in place: new workflows
  // would keep going to an abandoned target. Clearing it first is part of the same change.
  if ((change.action === 'setCurrent' || change.action === 'setUnversioned') && change.clearingRampOf) {
    const cleared = await service.setWorkerDeploymentRampingVersion({ ...common, buildId: '', percentage: 0 });
    common.conflictToken = cleared.conflictToken;
  }
  switch (change.action) {
    case 'setCurrent':
      await service.setWorkerDeploymentCurrentVersion({ ...common, buildId: change.buildId });
      return;
    case 'setRamp':
      await service.setWorkerDeploymentRampingVersion({
        ...common,
        buildId: change.buildId,
        percentage: change.percentage,
      });
      return;
    case 'clearRamp':
      await service.setWorkerDeploymentRampingVersion({ ...common, buildId: '', percentage: 0 });
      return;
    case 'setUnversioned':
      // No unversioned worker need poll: the builds' workers go away with their worker deployment.
      await service.setWorkerDeploymentCurrentVersion({ ...common, buildId: '', ignoreMissingTaskQueues: true });
      return;
  }
}
