// The sample's workflows with the auto-upgrade one changed so that its histories do not replay: a
// timer before its first activity, where the original's history has the activity first. Running
// workflows of it move to a build with this change at their next task, and break there.
import { setWorkflowOptions, sleep } from '@temporalio/workflow';
import { autoUpgradeUntilSignalled as original } from '../workflows.ts';

export * from '../workflows.ts';

export async function autoUpgradeUntilSignalled(): ReturnType<typeof original> {
  await sleep(1);
  return original();
}
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, autoUpgradeUntilSignalled);
