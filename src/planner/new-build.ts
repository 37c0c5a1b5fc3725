// The new build's Deployments, decided on Kubernetes facts alone, before Temporal is read: creating
// them routes no traffic, strands no workflow and deletes nothing, and Temporal's description can
// take seconds while its Worker Deployment workflow is busy (a template change waited for it).
// What else the full plan asks of a creation is known here too: the finalizers are on, the
// credentials the workers read exist, an older build already runs against the same Temporal
// namespace and connection (a spec that changes either waits for Temporal to confirm them), and the
// status says the last reconcile reached Temporal and counted its versions far enough below the
// limit that no build Temporal lists could make it refuse this one. Otherwise nothing is created
// here, and the full plan decides. Pure.
import type { ObservedDeployment } from '../domain/snapshot.ts';
import type { Observation } from '../domain/observation.ts';
import { finalizers } from './kubernetes-actions.ts';
import type { PlannerConfig } from './plan.ts';
import type { PlannedAction } from './planned-action.ts';

export interface NewBuildFacts {
  workerDeployment: Observation['workerDeployment'];
  connection: Observation['connection'];
  buildId: string;
  deployments: ObservedDeployment[];
  wanted: Observation['wanted'];
  /** Every Secret the workers read exists (and on a cluster connection, its copy is in place). */
  credentialsExist: boolean;
}

export function planNewBuild(
  facts: NewBuildFacts,
  config: Pick<PlannerConfig, 'maxIneligibleVersions'>,
): PlannedAction[] {
  const { workerDeployment, buildId } = facts;
  const missing = facts.wanted.filter(
    (w) => !facts.deployments.some((d) => d.buildId === buildId && d.pool === w.pool),
  );
  if (missing.length === 0 || !facts.credentialsExist || finalizers(facts).length > 0) return [];
  // A Deployment that has not drifted was built with the current connection.
  const namespace = workerDeployment.spec.workerOptions.temporalNamespace;
  const proven = facts.deployments.some((d) => d.buildId !== buildId && !d.drift && d.temporalNamespace === namespace);
  if (!proven) return [];
  const counted = workerDeployment.status?.versionCount;
  if (counted === undefined) return [];
  // Each older build counted twice at most (Temporal's count and its Deployments): an upper bound.
  const older = new Set(facts.deployments.map((d) => d.buildId).filter((b) => b !== buildId)).size;
  if (counted + older >= config.maxIneligibleVersions) return [];
  return missing.map(({ pool, deployment }) => ({
    action: 'create' as const,
    buildId,
    ...(pool ? { pool } : {}),
    deployment,
    reason: `build ${buildId} has no Deployment${pool ? ` for pool ${pool}` : ''} yet (created before Temporal is read: ${counted} versions in Temporal and ${older} older builds in Kubernetes, below the limit of ${config.maxIneligibleVersions})`,
  }));
}
