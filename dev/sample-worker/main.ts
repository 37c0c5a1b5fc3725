// Runs one sample worker from this process's environment, the form it takes in a real container:
// through the worker library, as a user's worker would.
import { runWorker } from '../../packages/worker/src/index.ts';
import { readConfig } from './config.ts';
import { createActivities } from './activities.ts';
import { workflowsPathOf } from './worker.ts';

const config = readConfig(process.env);
await runWorker({
  workflowsPath: workflowsPathOf(config.behaviour),
  activities: createActivities({
    deploymentName: config.deploymentName,
    buildId: config.buildId,
    behaviour: config.behaviour,
    identity: `${process.pid}@${config.buildId}`,
  }),
});
