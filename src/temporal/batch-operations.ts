// Batch operations on the workflows of a build (the ladder's steps, on a visibility query; a move
// onto the current build, on the runs named): started under the job ID the planner derives, so
// that a start repeated by a restarted controller finds the batch already there, read back for
// their progress, listed when a lost status write may have forgotten one, and stopped when the
// build they act on becomes active again.
import { optionalTsToDate } from '@temporalio/common/lib/time.js';
import type { BatchOperationKind, BatchOperationState, BatchProgress, LadderOperation } from '../domain/snapshot.ts';
import { runningBatchesQuery } from '../domain/visibility.ts';
import { GrpcStatus, TemporalCallError } from './call-status.ts';
import { enums, type WorkflowService } from './protocol.ts';

const { BatchOperationState: States, PinnedOverrideBehavior } = enums;

export interface BatchTarget {
  service: WorkflowService;
  namespace: string;
  /** The Worker Deployment's name in Temporal, which a move's override names. */
  deploymentName: string;
  identity: string;
}

export type BatchStart =
  | {
      jobId: string;
      operation: LadderOperation;
      /** The visibility query of the workflows it acts on. */
      query: string;
      /** The signal a Signal batch sends. */
      signalName?: string;
      reason: string;
    }
  | {
      jobId: string;
      operation: 'Move';
      /** Exactly the runs it moves: those a replay check found to replay. */
      executions: { workflowId: string; runId: string }[];
      /** The build they are pinned to. */
      onto: string;
      reason: string;
    };

/** Starts the batch; one already started under that job ID counts as started. */
export async function startBatch(target: BatchTarget, start: BatchStart): Promise<void> {
  const { service, namespace, identity } = target;
  try {
    await service.startBatchOperation({
      namespace,
      jobId: start.jobId,
      reason: start.reason,
      ...(start.operation === 'Move' ? moveOperation(target, start) : ladderOperation(identity, start)),
    });
  } catch (error) {
    if (error instanceof TemporalCallError && error.code === GrpcStatus.ALREADY_EXISTS) return;
    throw error;
  }
}

function ladderOperation(identity: string, start: Extract<BatchStart, { operation: LadderOperation }>) {
  const operation = {
    Signal: { signalOperation: { signal: start.signalName ?? '', identity } },
    Cancel: { cancellationOperation: { identity } },
    Terminate: { terminationOperation: { identity } },
  }[start.operation];
  return { visibilityQuery: start.query, ...operation };
}

/** A pinned versioning override onto the build, set on each run named (UpdateWorkflowExecutionOptions). */
function moveOperation({ deploymentName, identity }: BatchTarget, start: Extract<BatchStart, { operation: 'Move' }>) {
  return {
    executions: start.executions,
    updateWorkflowOptionsOperation: {
      identity,
      workflowExecutionOptions: {
        versioningOverride: {
          pinned: {
            behavior: PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED,
            version: { deploymentName, buildId: start.onto },
          },
        },
      },
      updateMask: { paths: ['versioning_override'] },
    },
  };
}

/** Undefined when Temporal knows no batch of that job ID (which says its operation). */
export async function describeBatch(
  target: BatchTarget,
  jobId: string,
  operation: BatchOperationKind,
): Promise<BatchProgress | undefined> {
  const { service, namespace } = target;
  let described;
  try {
    described = await service.describeBatchOperation({ namespace, jobId });
  } catch (error) {
    if (error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND) return undefined;
    throw error;
  }
  const startTime = optionalTsToDate(described.startTime);
  const closeTime = optionalTsToDate(described.closeTime);
  return {
    jobId,
    operation,
    state: stateOf(described.state),
    ...(startTime ? { startTime } : {}),
    ...(closeTime ? { closeTime } : {}),
    total: Number(described.totalOperationCount ?? 0),
    completed: Number(described.completeOperationCount ?? 0),
    failed: Number(described.failureOperationCount ?? 0),
  };
}

/**
 * One page is read: the ladder runs at most one batch per step on a build, so a page of this size
 * holds them all, whatever else anyone starts under the same prefix.
 */
const LIST_PAGE_SIZE = 100;

/** The job IDs of the batches still running whose job ID starts with `prefix`, as visibility lists them. */
export async function listRunningBatches(target: BatchTarget, prefix: string): Promise<string[]> {
  const { service, namespace } = target;
  const page = await service.listWorkflowExecutions({
    namespace,
    pageSize: LIST_PAGE_SIZE,
    query: runningBatchesQuery(prefix),
  });
  return (page.executions ?? []).flatMap((e) => (e.execution?.workflowId ? [e.execution.workflowId] : []));
}

/** Stops a running batch; one that already ended, or that Temporal does not know, counts as stopped. */
export async function stopBatch(target: BatchTarget, jobId: string, reason: string): Promise<void> {
  const { service, namespace, identity } = target;
  try {
    await service.stopBatchOperation({ namespace, jobId, reason, identity });
  } catch (error) {
    if (error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND) return;
    throw error;
  }
}

function stateOf(state: number | null | undefined): BatchOperationState {
  switch (state) {
    case States.BATCH_OPERATION_STATE_COMPLETED:
      return 'Completed';
    case States.BATCH_OPERATION_STATE_FAILED:
      return 'Failed';
    default:
      return 'Running';
  }
}
