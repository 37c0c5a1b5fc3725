// Gate workflows in Temporal: started pinned to the build they judge, on each of its workflow
// task queues, and read back as Running (stuck when its workflow task keeps failing), Completed or
// Failed, with the run ID, type and pinned build the planner tells the controller's own run by.
// Any closed run may be followed by a new one under the same workflow ID (the planner starts one
// only when no run of its own counts: a completed run someone else started must not hold the ID);
// a running one is terminated first.
import { msToTs } from '@temporalio/common/lib/time.js';
import { randomUUID } from 'node:crypto';
import type { GateRun } from '../domain/snapshot.ts';
import { GrpcStatus, TemporalCallError } from './call-status.ts';
import { enums, type WorkflowService } from './protocol.ts';

const { WorkflowExecutionStatus, WorkflowIdReusePolicy, HistoryEventFilterType, PinnedOverrideBehavior } = enums;

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
    if (error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND) return undefined;
    throw error;
  }
  const info = described.workflowExecutionInfo;
  const status = info?.status;
  const runId = info?.execution?.runId ?? '';
  const pinned = info?.versioningInfo?.versioningOverride?.pinned?.version;
  const run = {
    workflowId,
    runId,
    ...(info?.type?.name ? { workflowType: info.type.name } : {}),
    ...(pinned?.deploymentName && pinned.buildId
      ? { pinnedTo: { deploymentName: pinned.deploymentName, buildId: pinned.buildId } }
      : {}),
  };
  if (status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
    // A workflow task that failed is tried again for as long as the run lasts, without an end.
    const attempt = described.pendingWorkflowTask?.attempt ?? 1;
    if (attempt <= 1) return { ...run, status: 'Running' };
    return { ...run, status: 'Running', stuck: await whyWorkflowTaskFails(target, workflowId, runId) };
  }
  if (status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) return { ...run, status: 'Completed' };
  return { ...run, status: 'Failed', message: await howItClosed(target, workflowId, runId, status) };
}

/** Terminates exactly that run; one already closed counts as terminated. */
export async function terminateGate(target: GateTarget, workflowId: string, runId: string, reason: string) {
  const { service, namespace, identity } = target;
  try {
    await service.terminateWorkflowExecution({
      namespace,
      workflowExecution: { workflowId, ...(runId ? { runId } : {}) },
      reason,
      identity,
    });
  } catch (error) {
    if (error instanceof TemporalCallError && error.code === GrpcStatus.NOT_FOUND) return;
    throw error;
  }
}

/** Temporal keeps the first failure of a workflow task that keeps failing in the history, not the retries. */
async function whyWorkflowTaskFails(target: GateTarget, workflowId: string, runId: string): Promise<string> {
  const history = await target.service.getWorkflowExecutionHistory({
    namespace: target.namespace,
    execution: { workflowId, runId },
  });
  const events = history.history?.events ?? [];
  const last = events.findLast((e) => e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes);
  const failure = last?.workflowTaskFailedEventAttributes?.failure?.message;
  if (failure) return `its workflow task fails: ${failure}`;
  return last?.workflowTaskTimedOutEventAttributes
    ? 'its workflow task times out: no worker of the build completes it'
    : 'its workflow task fails';
}

export interface GateStart {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  /** The gate's first argument; never logged, it may come from a Secret. */
  input?: unknown;
}

/**
 * Starts the gate pinned to the build and resolves with the new run's ID, which the status records:
 * only that run may pass the gate. A run already going under that ID is left alone and yields no
 * run ID, so it counts for nothing.
 */
export async function startGate(target: GateTarget, buildId: string, gate: GateStart): Promise<string | undefined> {
  const { service, namespace, deploymentName, identity } = target;
  try {
    const started = await service.startWorkflowExecution({
      namespace,
      workflowId: gate.workflowId,
      workflowType: { name: gate.workflowType },
      taskQueue: { name: gate.taskQueue },
      ...(gate.input === undefined ? {} : { input: { payloads: [jsonPayload(gate.input)] } }),
      workflowExecutionTimeout: msToTs(GATE_TIMEOUT_SECONDS * 1000),
      workflowIdReusePolicy: WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
      versioningOverride: {
        pinned: {
          behavior: PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED,
          version: { deploymentName, buildId },
        },
      },
      identity,
      requestId: randomUUID(),
    });
    return started.runId || undefined;
  } catch (error) {
    if (error instanceof TemporalCallError && error.code === GrpcStatus.ALREADY_EXISTS) return undefined;
    throw error;
  }
}

/**
 * A value as every SDK's default converter writes JSON (encoding json/plain), so the gate reads it
 * as its first argument whatever its language. The SDK's converter would load its whole common library.
 */
export function jsonPayload(value: unknown): { metadata: Record<string, Uint8Array>; data: Uint8Array } {
  return { metadata: { encoding: UTF8.encode('json/plain') }, data: UTF8.encode(JSON.stringify(value)) };
}

const UTF8 = new TextEncoder();

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
