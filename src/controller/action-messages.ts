// What the Normal event of a carried-out action says: what was done, to which object, then the
// plan's reason (why). Pure.
import { count } from '../domain/count.ts';
import type { PlannedAction } from '../planner/planned-action.ts';

export function doneMessage(
  action: Exclude<PlannedAction, { action: 'addFinalizer' | 'removeFinalizer' | 'syncOwnedResource' }>,
): string {
  switch (action.action) {
    case 'create':
      return `created Deployment ${action.deployment.metadata?.name ?? ''} for build ${action.buildId}${action.pool ? ` (pool ${action.pool})` : ''}`;
    case 'update': // "Deployment D of build B is rolled in place: what changed"
      return action.reason;
    case 'scale':
      return `scaled Deployment ${action.deployment} of build ${action.buildId} to ${count(action.replicas, 'replica')}: ${action.reason}`;
    case 'delete':
      return `deleted Deployment ${action.deployment} of build ${action.buildId}: ${action.reason}`;
    case 'deleteOwnedResource':
      return `deleted ${action.object.kind} ${action.object.name}: ${action.reason}`;
    case 'applySecretCopy':
      return `wrote Secret ${action.secret.metadata?.name ?? ''}: ${action.reason}`;
    case 'deleteSecretCopy':
      return `deleted Secret ${action.secret.namespace}/${action.secret.name}, ${action.reason}`;
    case 'deleteTemporalVersion':
      return `deleted version ${action.buildId} from Temporal: ${action.reason}`;
    case 'startGate': // "started gate ..."
    case 'terminateGate': // "terminated gate run ...: why"
    case 'route': // "... promoting it", "starting the ramp ..."
    case 'deleteTemporalDeployment': // "deleted Worker Deployment ... from Temporal: ..."
      return action.reason;
    case 'startBatch':
      return `started ${action.operation} batch ${action.jobId}: ${action.reason}`;
    case 'startReplayCheck':
      return `started replay check ${action.workflowId}: ${action.reason}`;
    case 'startMoveBatch':
      return `started Move batch ${action.jobId}: ${action.reason}`;
    case 'stopBatch':
      return `stopped batch ${action.jobId}: ${action.reason}`;
  }
}
