// Everything the controller asks of or tells Temporal about one Worker Deployment, behind one
// interface: the reconciler depends on this, not on gRPC, so its orchestration can be driven and
// recorded in a test. Each method is one of the thin adapters beside this file.
import type {
  BatchOperationKind,
  BatchProgress,
  BuildTaskQueues,
  GateRun,
  TemporalDeploymentState,
} from '../domain/snapshot.ts';
import { type BatchStart, describeBatch, listRunningBatches, startBatch, stopBatch } from './batch-operations.ts';
import type { RoutingChange } from '../domain/routing-change.ts';
import { deleteWorkerDeployment } from './deployment-deletion.ts';
import { describeDeployment } from './deployment-state.ts';
import { type GateStart, readGate, startGate, terminateGate } from './gate-workflows.ts';
import type { WorkflowService } from './protocol.ts';
import { changeRouting } from './routing.ts';
import { countRunningWorkflows, listPinnedRuns } from './running-workflows.ts';
import { readReplayCheck, type ReplayCheckStart, startReplayCheck } from './replay-checks.ts';
import type { CheckRun, PinnedRun } from '../domain/pinned-move.ts';
import { countOutcomes } from './workflow-outcomes.ts';
import type { OutcomeCounts } from '../domain/observation.ts';
import { buildTaskQueues, unversionedPollersOnAll } from './task-queues.ts';
import { deleteVersionRecord, type VersionRecordDeletion } from './version-records.ts';

export interface WorkerDeploymentClient {
  /** Throws TemporalNamespaceNotFoundError when the Temporal namespace itself is missing. */
  describe(): Promise<TemporalDeploymentState>;
  taskQueues(buildId: string): Promise<BuildTaskQueues>;
  unversionedPollersOnAll(workflowTaskQueues: string[]): Promise<boolean>;
  /** Undefined when no run was ever started under that ID. */
  readGate(workflowId: string): Promise<GateRun | undefined>;
  /** The run ID of the run started; undefined when a run was already going under that workflow ID. */
  startGate(buildId: string, gate: GateStart): Promise<string | undefined>;
  /** Terminates that run of a gate, saying why; one already closed counts as terminated. */
  terminateGate(workflowId: string, runId: string, reason: string): Promise<void>;
  /** `skipDrainage`: even if pinned workflows may still run on it. */
  deleteVersionRecord(buildId: string, options?: { skipDrainage?: boolean }): Promise<VersionRecordDeletion>;
  changeRouting(change: RoutingChange): Promise<void>;
  /** The pinned workflows still running on a build, as visibility counts them. */
  countRunningWorkflows(buildId: string): Promise<number>;
  /** Up to `limit` of them, as visibility lists them. */
  listPinnedRuns(buildId: string, limit: number): Promise<PinnedRun[]>;
  /** Starts the worker library's replay check pinned to build `onto`. */
  startReplayCheck(onto: string, check: ReplayCheckStart): Promise<void>;
  /** The latest run of a replay check, with its results once completed; undefined when none was started. */
  readReplayCheck(workflowId: string): Promise<CheckRun | undefined>;
  /** The workflows a build closed since `since` (of `workflowTypes` only, when given), and how many failed. */
  countOutcomes(buildId: string, since: Date, workflowTypes?: string[]): Promise<OutcomeCounts>;
  /** The Worker Deployment itself, once it has no version left. */
  deleteDeployment(): Promise<void>;
  /** Starts a batch operation; one already started under its job ID counts as started. */
  startBatch(start: BatchStart): Promise<void>;
  /** Undefined when Temporal knows no batch of that job ID. */
  describeBatch(jobId: string, operation: BatchOperationKind): Promise<BatchProgress | undefined>;
  stopBatch(jobId: string, reason: string): Promise<void>;
  /** The job IDs of the running batches whose job ID starts with `prefix`. */
  listRunningBatches(prefix: string): Promise<string[]>;
}

export interface WorkerDeploymentAddress {
  /** The Temporal namespace. */
  namespace: string;
  /** The Worker Deployment's name in Temporal. */
  deploymentName: string;
  /** This installation's identity, on every change it makes. */
  identity: string;
}

export function workerDeploymentClient(
  service: WorkflowService,
  address: WorkerDeploymentAddress,
): WorkerDeploymentClient {
  const target = { service, ...address };
  return {
    describe: () => describeDeployment(service, address.namespace, address.deploymentName),
    taskQueues: (buildId) => buildTaskQueues(target, buildId),
    unversionedPollersOnAll: (queues) => unversionedPollersOnAll(target, queues),
    readGate: (workflowId) => readGate(target, workflowId),
    startGate: (buildId, gate) => startGate(target, buildId, gate),
    terminateGate: (workflowId, runId, reason) => terminateGate(target, workflowId, runId, reason),
    deleteVersionRecord: (buildId, options) => deleteVersionRecord(target, buildId, options),
    changeRouting: (change) => changeRouting(target, change),
    countRunningWorkflows: (buildId) => countRunningWorkflows(target, buildId),
    listPinnedRuns: (buildId, limit) => listPinnedRuns(target, buildId, limit),
    startReplayCheck: (onto, check) => startReplayCheck(target, onto, check),
    readReplayCheck: (workflowId) => readReplayCheck(target, workflowId),
    countOutcomes: (buildId, since, workflowTypes) => countOutcomes(target, buildId, since, workflowTypes),
    deleteDeployment: () => deleteWorkerDeployment(target),
    startBatch: (start) => startBatch(target, start),
    describeBatch: (jobId, operation) => describeBatch(target, jobId, operation),
    stopBatch: (jobId, reason) => stopBatch(target, jobId, reason),
    listRunningBatches: (prefix) => listRunningBatches(target, prefix),
  };
}
