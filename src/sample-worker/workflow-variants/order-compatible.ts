// The sample's workflows with `order` changed as Temporal asks: the new timer behind a patch, so
// histories of the original replay (without the patch's marker, the timer is skipped).
import { patched, setWorkflowOptions, sleep } from '@temporalio/workflow';
import { order as original } from '../workflows.ts';

export * from '../workflows.ts';

export async function order(number: number): ReturnType<typeof original> {
  if (patched('order-timer')) await sleep(1);
  return original(number);
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, order);
