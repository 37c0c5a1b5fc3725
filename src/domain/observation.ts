// What one reconcile observed of a worker deployment: everything the planner decides on, read
// once, as plain data. An observation that could not be completed says why instead.
import type { V1Deployment } from '@kubernetes/client-node';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { Condition } from '../status/conditions.ts';
import type { BuildTaskQueues, GateRun, ObservedDeployment, TemporalDeploymentState } from './snapshot.ts';

export interface Observation {
  now: Date;
  /** As stored (its resourceVersion guards the status write), its spec with the schema's defaults. */
  workerDeployment: TemporalWorkerDeployment;
  connection: TemporalConnection;
  /** The target build: the build ID of the spec's template. */
  buildId: string;
  /** The Worker Deployment's name in Temporal. */
  temporalName: string;
  /** The Kubernetes Deployments it owns, with why each must be rolled in place, if it must. */
  deployments: ObservedDeployment[];
  /** What the spec builds for the target, one per pool (pool undefined without pools). */
  wanted: { pool?: string; deployment: V1Deployment }[];
  /** What replaces each Deployment that drifted, by name. */
  replacements: Record<string, V1Deployment>;
  temporal: TemporalDeploymentState;
  /** Read only when the planner asks for it (see readsNeeded). */
  target?: TargetObservation;
}

export interface TargetObservation {
  taskQueues: BuildTaskQueues;
  /** Asked only when it matters; undefined while the build lists no workflow task queue. */
  unversionedPollers?: boolean;
  /** The gate whose runs were read (see readsNeeded). */
  gateStage?: string;
  /** That gate's latest run per gate task queue. */
  gateRuns?: Record<string, GateRun | undefined>;
  /** The gate's runs could not be read, for a reason other than Temporal being out of reach. */
  gateReadFailure?: string;
}

/** An observation cut short: the spec, the connection or Temporal stopped it. */
export interface FailedObservation {
  workerDeployment: TemporalWorkerDeployment;
  /** Known when the spec named an existing connection: the finalizers still go on. */
  connection?: TemporalConnection;
  condition: Condition;
  /** Undefined: wait for an event (a fixed spec, a changed Secret). */
  requeueAfterMs?: number;
}
