// Everything the controller asks of or tells Temporal about one Worker Deployment, behind one
// interface: the reconciler depends on this, not on gRPC, so its orchestration can be driven and
// recorded in a test. Each method is one of the thin adapters beside this file.
import type { WorkflowService } from '@temporalio/client';
import type { BuildTaskQueues, GateRun, TemporalDeploymentState } from '../domain/snapshot.ts';
import { type CleanupProgress, cleanUpDeployment } from './deployment-cleanup.ts';
import { describeDeployment } from './deployment-state.ts';
import { type GateStart, readGate, startGate } from './gate-workflows.ts';
import type { RoutingChange } from '../planner/routing.ts';
import { changeRouting } from './routing.ts';
import { buildTaskQueues, unversionedPollersOnAll } from './task-queues.ts';
import { deleteVersionRecord, type VersionRecordDeletion } from './version-records.ts';

export interface WorkerDeploymentClient {
  /** Throws TemporalNamespaceNotFoundError when the Temporal namespace itself is missing. */
  describe(): Promise<TemporalDeploymentState>;
  taskQueues(buildId: string): Promise<BuildTaskQueues>;
  unversionedPollersOnAll(workflowTaskQueues: string[]): Promise<boolean>;
  /** Undefined when no run was ever started under that ID. */
  readGate(workflowId: string): Promise<GateRun | undefined>;
  startGate(buildId: string, gate: GateStart): Promise<void>;
  deleteVersionRecord(buildId: string): Promise<VersionRecordDeletion>;
  changeRouting(change: RoutingChange): Promise<void>;
  /** Routing back to unversioned workers, every version record and the deployment: see deployment-cleanup.ts. */
  cleanUp(): Promise<CleanupProgress>;
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
    deleteVersionRecord: (buildId) => deleteVersionRecord(target, buildId),
    changeRouting: (change) => changeRouting(target, change),
    cleanUp: () => cleanUpDeployment(target),
  };
}
