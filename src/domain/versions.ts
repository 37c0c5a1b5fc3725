// A build as the versions rule (planner/versions.ts) and the status (status/versions.ts) both read
// it: Temporal's status of it, its Deployments, since when it is healthy or superseded; and whether
// Temporal's server may drop it. Pure.
import type { VersionStatus } from './snapshot.ts';

export interface DeploymentState {
  name: string;
  /** spec.replicas of the Deployment; undefined when unset. */
  replicas?: number;
  /** The pool it runs, with pools. */
  pool?: string;
  /** Why it no longer matches what the spec and the connection ask: it must be rolled in place. */
  drift?: string;
}

export interface VersionState {
  buildId: string;
  /** NotRegistered when Temporal does not list it. */
  status: VersionStatus;
  /** Since when Temporal reports it Drained. */
  drainedSince?: Date;
  /** Temporal has seen it current or ramping: its drainage must be known before it may go. */
  everActive: boolean;
  /** Its Deployments (one per pool); empty when none exists. */
  deployments: DeploymentState[];
  /** Since when every one of its Deployments is available; unset while one is not. */
  healthySince?: Date;
  /** Since when a build that never took traffic is no longer the target (see status/versions.ts supersededTimes). */
  supersededAt?: Date;
}

/** Drained and scaled to zero: the server may drop it to make room. */
export function eligibleForDeletion(version: VersionState): boolean {
  return version.status === 'Drained' && version.deployments.every((d) => d.replicas === 0);
}
