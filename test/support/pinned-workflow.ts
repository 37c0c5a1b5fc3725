// A workflow pinned to a build that runs until the test signals `finish` (the sample worker's
// pinnedUntilSignalled): what keeps a draining build alive in the tests that need one. And its
// auto-upgrade twin, whose last task ran on a build it does not need.
import { type Client, WorkflowIdReusePolicy, type WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { PinnedOptions } from '../../dev/sample-worker/workflows.ts';
import { eventually, uniqueName } from './environment.ts';

const { VersioningBehavior } = proto.temporal.api.enums.v1;

/**
 * Starts it on `taskQueue` and resolves once its first task and activity ran on `buildId` and it
 * waits for `finish`.
 */
export async function pinnedWorkflow(
  client: Client,
  taskQueue: string,
  buildId: string,
  options: PinnedOptions = {},
): Promise<WorkflowHandle> {
  const workflow = await client.workflow.start('pinnedUntilSignalled', {
    args: [options],
    taskQueue,
    workflowId: uniqueName('pinned'),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
  await waitingOn(workflow, buildId, VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
  return workflow;
}

/**
 * Starts the sample's autoUpgradeUntilSignalled on `taskQueue` and resolves once its first task and
 * activity ran on `buildId` and it waits for `finish`, moving to the current build at its next task.
 */
export async function autoUpgradeWorkflow(client: Client, taskQueue: string, buildId: string): Promise<WorkflowHandle> {
  const workflow = await client.workflow.start('autoUpgradeUntilSignalled', {
    taskQueue,
    workflowId: uniqueName('auto-upgrade'),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
  await waitingOn(workflow, buildId, VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE);
  return workflow;
}

/**
 * Resolves once the sample's workflow waits for `finish` on `buildId` with `behavior`: its first
 * task ran there and so did the activity that records where it started. Until that activity ran, a
 * move of the workflow (or an upgrade) would send it to the other build, and its report would say
 * it started there.
 */
export async function waitingOn(
  workflow: WorkflowHandle,
  buildId: string,
  behavior: proto.temporal.api.enums.v1.VersioningBehavior,
): Promise<void> {
  await eventually(`the workflow ${workflow.workflowId} to wait on ${buildId}`, async () => {
    const info = (await workflow.describe()).raw.workflowExecutionInfo?.versioningInfo;
    const events = (await workflow.fetchHistory()).events ?? [];
    const waiting =
      events.some((e) => e.activityTaskCompletedEventAttributes) &&
      Boolean(events.at(-1)?.workflowTaskCompletedEventAttributes);
    return info?.deploymentVersion?.buildId === buildId && info.behavior === behavior && waiting ? true : undefined;
  });
}
