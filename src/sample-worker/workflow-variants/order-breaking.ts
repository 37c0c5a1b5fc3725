// The sample's workflows with `order` changed so that histories of the original do not replay: a
// timer before its activity, where the original's history has the activity first.
import { setWorkflowOptions, sleep } from '@temporalio/workflow';
import { order as original } from '../workflows.ts';

export * from '../workflows.ts';

export async function order(number: number): ReturnType<typeof original> {
  await sleep(1);
  return original(number);
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, order);
