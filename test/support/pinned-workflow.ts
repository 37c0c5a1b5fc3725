// A workflow pinned to a build that runs until the test signals `finish` (the sample worker's
// pinnedUntilSignalled): what keeps a draining build alive in the tests that need one.
import { type Client, WorkflowIdReusePolicy, type WorkflowHandle } from '@temporalio/client';
import type { PinnedOptions } from '../../src/sample-worker/workflows.ts';
import { eventually, uniqueName } from './environment.ts';

/** Starts it on `taskQueue` and resolves once Temporal says it is pinned to `buildId`. */
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
  await eventually(`the workflow to be pinned to ${buildId}`, async () => {
    const info = (await workflow.describe()).raw.workflowExecutionInfo?.versioningInfo;
    return info?.deploymentVersion?.buildId === buildId ? true : undefined;
  });
  return workflow;
}
