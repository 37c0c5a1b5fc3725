// Gate workflows in Temporal: started pinned to the build they judge, on each of its workflow
// task queues, and read back as Running, Completed or Failed. A failed run may be started again
// under the same workflow ID (the spec changed); a running or completed one never is.
import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, type WorkflowService } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import type { GateRun } from '../domain/snapshot.ts';

const { WorkflowExecutionStatus, WorkflowIdReusePolicy, HistoryEventFilterType } = proto.temporal.api.enums.v1;
const { PinnedOverrideBehavior } = proto.temporal.api.workflow.v1.VersioningOverride;

/** A gate that has not decided within this long counts as failed (timed out). */
const GATE_TIMEOUT_SECONDS = 3600;

export interface GateTarget {
  service: WorkflowService;
  namespace: string;
  deploymentName: string;
  identity: string;
}

/** The latest run under that ID; undefined when none was ever started. */
export async function readGate(target: GateTarget, workflowId: string): Promise<GateRun | undefined> {
  const { service, namespace } = target;
  let described;
  try {
    described = await service.describeWorkflowExecution({ namespace, execution: { workflowId } });
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === GrpcStatus.NOT_FOUND) return undefined;
    throw error;
  }
  const status = described.workflowExecutionInfo?.status;
  if (status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) return { workflowId, status: 'Running' };
  if (status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED)
    return { workflowId, status: 'Completed' };
  const runId = described.workflowExecutionInfo?.execution?.runId ?? '';
  return { workflowId, status: 'Failed', message: await howItClosed(target, workflowId, runId, status) };
}

export interface GateStart {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  /** The gate's first argument; never logged, it may come from a Secret. */
  input?: unknown;
}

/** Starts the gate pinned to the build; a run already going under that ID is left alone. */
export async function startGate(target: GateTarget, buildId: string, gate: GateStart): Promise<void> {
  const { service, namespace, deploymentName, identity } = target;
  try {
    await service.startWorkflowExecution({
      namespace,
      workflowId: gate.workflowId,
      workflowType: { name: gate.workflowType },
      taskQueue: { name: gate.taskQueue },
      ...(gate.input === undefined ? {} : { input: { payloads: [defaultPayloadConverter.toPayload(gate.input)] } }),
      workflowExecutionTimeout: msToTs(GATE_TIMEOUT_SECONDS * 1000),
      workflowIdReusePolicy: WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
      versioningOverride: {
        pinned: {
          behavior: PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED,
          version: { deploymentName, buildId },
        },
      },
      identity,
      requestId: randomUUID(),
    });
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === GrpcStatus.ALREADY_EXISTS) return;
    throw error;
  }
}

async function howItClosed(
  target: GateTarget,
  workflowId: string,
  runId: string,
  status: number | null | undefined,
): Promise<string> {
  const name =
    WorkflowExecutionStatus[status ?? 0]?.replace('WORKFLOW_EXECUTION_STATUS_', '').toLowerCase() ?? 'closed';
  const history = await target.service.getWorkflowExecutionHistory({
    namespace: target.namespace,
    execution: { workflowId, runId },
    historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
  });
  const event = history.history?.events?.[0];
  const detail =
    event?.workflowExecutionFailedEventAttributes?.failure?.message ??
    event?.workflowExecutionTerminatedEventAttributes?.reason ??
    (event?.workflowExecutionTimedOutEventAttributes
      ? `no decision within ${GATE_TIMEOUT_SECONDS / 60} minutes`
      : undefined) ??
    (event?.workflowExecutionCanceledEventAttributes ? 'canceled' : undefined);
  return detail ? `${name}: ${detail}` : name;
}
