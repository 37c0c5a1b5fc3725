// What one reconcile observed of a worker deployment: everything the planner decides on, read
// once, as plain data. An observation that could not be completed says why instead.
import type { V1Deployment, V1Secret } from '@kubernetes/client-node';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { ReadCertificate } from './certificates.ts';
import type { MoveObservation } from './pinned-move.ts';
import type { PollersSeen } from './pollers.ts';
import type { ReadFailure } from './read-failure.ts';
import type { NotFoundAnswer } from './temporal-not-found.ts';
import type { ServiceAccountRef } from './token-policy.ts';
import type {
  BatchProgress,
  BuildTaskQueues,
  GateRun,
  ObservedDeployment,
  PodProblem,
  TemporalDeploymentState,
} from './snapshot.ts';

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
  /** On a TemporalClusterConnection, the copies of its Secrets the worker Pods mount. */
  secretCopies?: SecretCopyState[];
  /** The certificates of the connection's Secrets, the controller's and the workers' (none when absent). */
  certificates?: ReadCertificate[];
  /** What replaces each Deployment that drifted, by name. */
  replacements: Record<string, V1Deployment>;
  temporal: TemporalDeploymentState;
  /** What its Pods say keeps them from running (none when absent). */
  podProblems?: PodProblem[];
  /** The ConfigMaps and Secrets the target build's Pods cannot start without that do not exist (none when absent). */
  missingConfiguration?: MissingConfiguration[];
  /** What the leader last read of its builds' task queues and pollers; absent when not read (--no-backlog-metrics). */
  pollers?: PollersSeen;
  /** The autoscalers its owned resources made for its Deployments (none when absent). */
  ownedAutoscalers?: OwnedAutoscaler[];
  /** Read only when the planner asks for it (see readsNeeded). */
  target?: TargetObservation;
  /** What the pinned-workflow ladder asked to read (see readsNeeded). */
  pinned?: LadderObservation;
  /** What the moves of pinned workflows asked to read (see readsNeeded). */
  moves?: MoveObservation;
  /** The counts spec.rollout.analysis asked for (see readsNeeded). */
  analysis?: AnalysisObservation;
}

/** A ConfigMap or Secret of the worker deployment's namespace that a Pod template reads, not optionally, and that does not exist. */
export interface MissingConfiguration {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  /** Where the template names it: `container worker envFrom[0]`, `volume settings`. */
  field: string;
}

/** Workflows a build closed in an analysis window, and how many of those failed (failed, timed out or terminated). */
export interface OutcomeCounts {
  closed: number;
  failed: number;
}

/** A metric query's answer: its number, or why there is none (no series, NaN). */
export type MetricAnswer = { value: number } | { noSample: string };

/**
 * What spec.rollout.analysis asked for: the counts by build and the metrics' answers by name, or
 * why they could not be read (nothing is judged on half an answer).
 */
export type AnalysisObservation =
  { counts: Record<string, OutcomeCounts>; metrics?: Record<string, MetricAnswer> } | { failure: string };

/** The counts and batches of the pinned-workflow ladder. */
export interface LadderObservation {
  /** Running workflows per build; undefined where the count was not read. */
  running: Record<string, number | undefined>;
  /** Per job ID: its progress, or null when Temporal knows no batch of that ID. Absent: not read. */
  batches: Record<string, BatchProgress | null>;
  /** The job IDs of the running batches Temporal listed on the builds of LadderReads.listed (each read into `batches`). */
  listed?: string[];
  /** Why the reads stopped, when they did: nothing is started on half an answer. */
  failure?: string;
}

/** A copy of an owned resource that sets a Deployment's replicas (an HPA, a KEDA ScaledObject). */
export interface OwnedAutoscaler {
  /** The Deployment it scales, which owns it. */
  deployment: string;
  /** That Deployment's uid: a copy is deleted only if owned by it (an object of the user's under its name stays). */
  deploymentUid: string;
  /** The TemporalWorkerOwnedResource it is a copy of. */
  twor: string;
  apiVersion: string;
  kind: string;
  name: string;
  /** Whom it is deleted as: its twor's ServiceAccount (copyAccount), or why there is none. */
  account: ServiceAccountRef | { missing: string };
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
  failure: ReadFailure;
  /** Undefined: wait for an event (a fixed spec, a changed Secret). */
  requeueAfterMs?: number;
  /** Known when the connection's Secrets were read (see Observation.certificates). */
  certificates?: ReadCertificate[];
}

/**
 * A namespace that may no longer use a TemporalClusterConnection (the failure's reason says why):
 * the worker deployment's own copies of its Secrets there, which that namespace's editors read.
 */
export interface SecretCopyRevocation {
  connection: TemporalConnection;
  reason: string;
  /** Each by its uid, so that a Secret made anew under a copy's name stays; or why they could not be listed. */
  copies: { name: string; uid: string }[] | { unlisted: string };
}

/** What a reconcile of a worker deployment being deleted observed. */
export interface DeletionObservation {
  now: Date;
  /** As stored: its status says what the last reconcile said. */
  workerDeployment: TemporalWorkerDeployment;
  /** The Worker Deployment's name in Temporal. */
  temporalName: string;
  /** The Kubernetes Deployments it owns. */
  deployments: ObservedDeployment[];
  temporal: TemporalDeploymentState;
  /** Workflows still running per build (see workflowsToCount); undefined where the count could not be read. */
  runningWorkflows: Record<string, number | undefined>;
  /** When Temporal answered that the Worker Deployment does not exist: what that answer is weighed with. */
  notFound?: NotFoundAnswer;
}

/** A copy of a cluster connection's Secret, as the worker Pods need it, and how the one in place compares. */
export interface SecretCopyState {
  secret: V1Secret;
  /** `namespace/name` of the Secret it copies. */
  source: string;
  /** The copy in place holds the same, this worker deployment among its owners. */
  inPlace: boolean;
  /** A copy is in place, but an older one. */
  outdated: boolean;
}
