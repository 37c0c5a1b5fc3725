// The sample's workflows with the pinned ones that run on a build (`order`, `pinnedUntilSignalled`)
// changed so that their histories do not replay: a timer before the first activity. Worker
// Versioning keeps their workflows on the build they started on, so the change is safe.
import { setWorkflowOptions, sleep } from '@temporalio/workflow';
import { order as originalOrder, pinnedUntilSignalled as originalPinned, type PinnedOptions } from '../workflows.ts';

export * from '../workflows.ts';

export async function order(number: number): ReturnType<typeof originalOrder> {
  await sleep(1);
  return originalOrder(number);
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, order);

export async function pinnedUntilSignalled(options: PinnedOptions = {}): ReturnType<typeof originalPinned> {
  await sleep(1);
  return originalPinned(options);
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, pinnedUntilSignalled);
