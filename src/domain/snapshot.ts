// The words the pure core and the adapters share: what Kubernetes and Temporal say of a worker
// deployment's builds, as plain data. The adapters produce these values, the planner and the
// status mapper read them; neither side imports the other.

/** A build as Temporal sees it; NotRegistered when Temporal does not list it. */
export type VersionStatus = 'NotRegistered' | 'Inactive' | 'Ramping' | 'Current' | 'Draining' | 'Drained';

export interface TemporalVersion {
  buildId: string;
  status: Exclude<VersionStatus, 'NotRegistered'>;
  /** Since when it is Drained. */
  drainedSince?: Date;
  /** It has been current or ramping at some time. */
  everActive: boolean;
  /** When it first became current or ramping, where the server reports it. */
  firstActiveAt?: Date;
  lastCurrentAt?: Date;
  /** When it last stopped being current or ramping, where the server reports it. */
  deactivatedAt?: Date;
}

/** Temporal's view of one Worker Deployment: routing, the versions it lists, and the conflict token every routing change carries. */
export interface TemporalDeploymentState {
  /** Temporal lists the deployment: some worker of it has polled. */
  exists: boolean;
  versions: TemporalVersion[];
  currentBuildId?: string;
  /** When Temporal made the current build current: the start of an AllAtOnce rollout's analysis. */
  currentChangedAt?: Date;
  rampingBuildId?: string;
  rampPercentage?: number;
  rampChangedAt?: Date;
  conflictToken?: Uint8Array;
  managerIdentity?: string;
  lastModifierIdentity?: string;
}

/** What the controller needs to know of one of its Kubernetes Deployments. */
export interface ObservedDeployment {
  name: string;
  buildId: string;
  pool?: string;
  /** spec.replicas; undefined when unset. */
  replicas?: number;
  /** Every wanted replica runs the latest template and is available. */
  available: boolean;
  /** When the Deployment last became Available. */
  availableSince?: Date;
  /** Why the Deployment controller gave up on its rollout (progressDeadlineSeconds passed). */
  stuck?: string;
  /** The Temporal namespace its workers poll (their TEMPORAL_NAMESPACE). */
  temporalNamespace?: string;
  /** The hashes it was built with (see ANNOTATIONS in k8s/versioned-deployment.ts). */
  specHash?: string;
  templateHash?: string;
  connectionHash?: string;
  /** Per ConfigMap and Secret its Pod template reads, the digest it was rolled with; absent on one made before digests. */
  configuration?: Record<string, string>;
  /** spec.deployment as last applied to it (see k8s/deployment-settings.ts). */
  settings?: string;
  /** Why it no longer matches what the spec and the connection ask: it must be rolled in place. */
  drift?: string;
}

/** What one Pod of a worker deployment says keeps it from running, in the kubelet's words. */
export interface PodProblem {
  pod: string;
  buildId: string;
  /** The container that cannot run; absent when the Pod as a whole failed (evicted, say). */
  container?: string;
  /** The kubelet's reason: CreateContainerConfigError, ImagePullBackOff, CrashLoopBackOff... */
  reason: string;
  message: string;
}

export type GateRunStatus = 'Running' | 'Completed' | 'Failed';

/** One gate workflow as Temporal reports it. */
export interface GateRun {
  workflowId: string;
  /** The run read: a replacement terminates exactly this one. */
  runId?: string;
  workflowType?: string;
  /** The build its versioning override pins it to; absent when it has none. */
  pinnedTo?: { deploymentName: string; buildId: string };
  status: GateRunStatus;
  /** How a failed run ended. */
  message?: string;
  /** Why a running run cannot progress: its workflow task keeps failing. */
  stuck?: string;
}

/** The task queues Temporal registered for a build, by the kind of task its workers poll. */
export interface BuildTaskQueues {
  workflow: string[];
  activity: string[];
}

/** The steps of the pinned-workflow ladder, each a batch operation on every workflow its query finds. */
export type LadderOperation = 'Signal' | 'Cancel' | 'Terminate';

/** The ladder's steps, and the move of workflows that replay onto the current build. */
export type BatchOperationKind = LadderOperation | 'Move';

export type BatchOperationState = 'Running' | 'Completed' | 'Failed';

/** One batch operation as Temporal reports it. */
export interface BatchProgress {
  jobId: string;
  operation: BatchOperationKind;
  state: BatchOperationState;
  startTime?: Date;
  closeTime?: Date;
  /** Workflows it acts on, and of those, done and failed. */
  total: number;
  completed: number;
  failed: number;
}
