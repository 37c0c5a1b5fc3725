// The plan's first phase: what Kubernetes alone decides, carried out before Temporal is read, whose
// description can take seconds while its Worker Deployment workflow is busy. The new build's
// Deployments first (new-build.ts), then each owned resource's copies (owned-resources.ts). Pure.
import type { OwnedResourceFacts } from '../domain/owned-resources.ts';
import { type NewBuildFacts, planNewBuild } from './new-build.ts';
import { ownedResourceAction } from './owned-resources.ts';
import type { PlannerConfig } from './plan.ts';
import type { PlannedAction } from './planned-action.ts';

export interface KubernetesPhaseFacts extends NewBuildFacts {
  /** The worker deployment's TemporalWorkerOwnedResources, their copies rendered. */
  ownedResources: OwnedResourceFacts[];
}

export function planKubernetesPhase(
  facts: KubernetesPhaseFacts,
  config: Pick<PlannerConfig, 'maxIneligibleVersions'>,
): PlannedAction[] {
  return [...planNewBuild(facts, config), ...facts.ownedResources.map(ownedResourceAction)];
}
