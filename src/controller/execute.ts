// Carries out a plan's actions in the order the planner gave them: finalizers, Kubernetes
// Deployments, owned resources' copies, gate runs terminated and started, the routing change,
// Temporal's version records. It stops at the first failure, since the rest of the plan may no
// longer hold, and says which action failed and why in a condition (which the status writer also
// reports as a Warning event); an independent action's failure is said in a Warning event alone,
// and the plan goes on. It writes an event for every action done and decides nothing.
import { API_VERSION, KINDS } from '../api/kinds.ts';
import type { TemporalConnection } from '../api/temporal-connection.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { FINALIZER } from '../domain/finalizer.ts';
import { httpStatus } from '../runtime/kube/api-errors.ts';
import { type AnyObject, type ClusterClient, connectionPlural } from '../k8s/cluster-client.ts';
import type { Execution, PlannedAction } from '../planner/planned-action.ts';
import { type Condition, progressing, stalled } from '../status/conditions.ts';
import type { WorkerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import type { Logger } from '../runtime/logger.ts';
import type { EventTarget, RecordEvent } from './events.ts';
import { doneMessage } from './action-messages.ts';
import { type ConnectionReleaseDependencies, releaseConnection } from './connection-release.ts';
import { deleteCopies } from './copy-deletion.ts';
import { notDeleted } from '../planner/revocation.ts';
import { type OwnedResourceDependencies, syncOwnedResource } from './owned-resources.ts';
import { addFinalizer, addSharedFinalizer, removeFinalizer } from './finalizers.ts';
import { GateInputError, gateInput } from './gate-input.ts';
import { errorMessage } from '../runtime/kube/api-errors.ts';
import { type TemporalTrouble, temporalTrouble, type TroubleDependencies } from './temporal-trouble.ts';
import { isConcurrentBatchLimit } from '../temporal/call-failures.ts';

export interface ExecutorDependencies
  extends TroubleDependencies, ConnectionReleaseDependencies, OwnedResourceDependencies {
  cluster: ClusterClient;
  recordEvent: RecordEvent;
  log: Logger;
  /** A cluster connection's copy revoked, or a try that failed (see Metrics.countSecretCopyRevocation). */
  countSecretCopyRevocation?(namespace: string, connection: string, result: 'deleted' | 'failed'): void;
}

export interface ExecutionContext {
  /** `namespace/name` of the worker deployment. */
  key: string;
  workerDeployment: TemporalWorkerDeployment;
  /** Absent when it no longer exists: only actions that need neither it nor Temporal run then. */
  connection?: TemporalConnection;
  /** Absent when the observation stopped before Temporal was reached: only Kubernetes actions run then. */
  temporal?: WorkerDeploymentClient;
  /** The spec changed since the plan was made: the actions left are not taken. */
  superseded?: () => boolean;
}

export interface ExecutionResult extends Execution {
  /** The worker deployment as the last write to it left it: its resourceVersion guards the status write. */
  stored: TemporalWorkerDeployment;
}

export async function executePlan(
  deps: ExecutorDependencies,
  context: ExecutionContext,
  actions: PlannedAction[],
  notes: { type?: 'Normal' | 'Warning'; reason: string; message: string }[] = [],
): Promise<ExecutionResult> {
  let stored = context.workerDeployment;
  const about = (): EventTarget => ({
    apiVersion: API_VERSION,
    kind: KINDS.TemporalWorkerDeployment.kind,
    metadata: stored.metadata,
  });
  for (const { type = 'Normal', ...note } of notes) await deps.recordEvent(about(), { type, ...note });
  const done: PlannedAction[] = [];
  const startedGateRuns: Record<string, string> = {};
  const result = (failed?: ExecutionResult['failed']): ExecutionResult => ({
    stored,
    done,
    ...(failed ? { failed } : {}),
    ...(Object.keys(startedGateRuns).length > 0 ? { startedGateRuns } : {}),
  });
  for (const action of actions) {
    // Doing nothing is always safe, and the change's own reconcile, waiting for this one, decides
    // again: Temporal's writes take up to seconds each while its Worker Deployment workflow is busy.
    if (context.superseded?.()) break;
    try {
      if (action.action === 'addFinalizer' && action.kind === 'TemporalWorkerDeployment') {
        stored = await addFinalizer(deps.cluster, KINDS.TemporalWorkerDeployment.plural, stored);
      } else {
        const outcome = await carryOut(deps, context, action);
        if (outcome && 'waiting' in outcome) {
          const message = outcome.waiting;
          await deps.recordEvent(about(), { type: 'Normal', reason: 'VersionRecordDeleteWaiting', message });
          continue;
        }
        if (outcome && action.action === 'startGate') startedGateRuns[action.start.workflowId] = outcome.gateRunId;
      }
    } catch (error) {
      const failed = { action, ...failureOf(deps, context, action, error) };
      const { reason, message } = failed.condition;
      deps.log.warn({ action: action.action, reason }, message);
      if (!('independent' in action)) return result(failed);
      await deps.recordEvent(about(), { type: 'Warning', reason, message });
      continue;
    }
    done.push(action);
    // An owned resource's copies are carried out at every reconcile, and each says what it did.
    if (action.action === 'syncOwnedResource') continue;
    const event = eventOf(action);
    if (event) await deps.recordEvent(about(), { type: 'Normal', ...event });
    // Actions are rare (a rollout's few steps): each is worth a line.
    deps.log.info({ action: action.action }, event?.message ?? action.reason);
  }
  return result();
}

/** What an action left to tell: what a deletion waits for, or the run a gate start began. */
type Outcome = { waiting: string } | { gateRunId: string };

async function carryOut(
  deps: ExecutorDependencies,
  context: ExecutionContext,
  action: PlannedAction,
): Promise<Outcome | void> {
  const namespace = context.workerDeployment.metadata.namespace ?? '';
  switch (action.action) {
    case 'addFinalizer':
      await addSharedFinalizer(
        deps.cluster,
        connectionPlural(connectionOf(context).metadata.namespace),
        connectionOf(context),
      );
      return;
    case 'removeFinalizer':
      // The connection's finalizer stays while another worker deployment uses it.
      if (action.kind === 'TemporalConnection')
        return releaseConnection(deps, connectionOf(context), context.workerDeployment.metadata.uid);
      return removeFinalizer(deps.cluster, KINDS.TemporalWorkerDeployment.plural, context.workerDeployment);
    case 'create':
      return deps.cluster.createDeployment(action.deployment);
    case 'update':
      return deps.cluster.replaceDeployment(action.replacement);
    case 'delete':
      return deps.cluster.deleteDeployment(namespace, action.deployment);
    case 'scale':
      return deps.cluster.scaleDeployment(namespace, action.deployment, action.replicas);
    case 'deleteOwnedResource': {
      // By ownership, not by name (whatever else carries the name or the labels stays), and as the
      // copy's ServiceAccount, as it was made: never with the controller's rights.
      const { apiVersion, kind, twor, deploymentUid, account } = action.object;
      if ('missing' in account) throw new Error(account.missing);
      return deleteCopies(deps.cluster, { apiVersion, kind }, namespace, twor, new Set([deploymentUid]), account);
    }
    case 'syncOwnedResource':
      return syncOwnedResource(deps, context.workerDeployment, action);
    case 'deleteSecretCopy': {
      const count = (result: 'deleted' | 'failed') =>
        deps.countSecretCopyRevocation?.(namespace, action.connection.name, result);
      // By its uid: a Secret made anew under the copy's name meanwhile stays.
      try {
        await deps.cluster.deleteObject({ apiVersion: 'v1', kind: 'Secret', metadata: action.secret });
      } catch (error) {
        count('failed');
        throw error;
      }
      return count('deleted');
    }
    case 'applySecretCopy':
      // The worker deployment's own copy, under its own field manager.
      return deps.cluster.apply(
        action.secret as AnyObject,
        `twc/${namespace}/${context.workerDeployment.metadata.name ?? ''}`,
      );
    case 'terminateGate':
      return temporalOf(context).terminateGate(action.workflowId, action.runId, action.reason);
    case 'startGate': {
      const { start } = action;
      const input = await gateInput(deps.cluster, namespace, start.gate);
      const gateRunId = await temporalOf(context).startGate(action.buildId, {
        workflowId: start.workflowId,
        workflowType: start.gate.workflowType,
        taskQueue: start.taskQueue,
        ...(input === undefined ? {} : { input }),
      });
      return gateRunId === undefined ? undefined : { gateRunId };
    }
    case 'route':
      return temporalOf(context).changeRouting(action.change);
    case 'deleteTemporalVersion': {
      const deletion = await temporalOf(context).deleteVersionRecord(
        action.buildId,
        action.skipDrainage ? { skipDrainage: true } : {},
      );
      return deletion.deleted ? undefined : { waiting: `${deletion.waitingFor}; trying again` };
    }
    case 'deleteTemporalDeployment':
      return temporalOf(context).deleteDeployment();
    case 'startBatch':
      return temporalOf(context).startBatch({
        jobId: action.jobId,
        operation: action.operation,
        query: action.query,
        ...(action.signalName ? { signalName: action.signalName } : {}),
        reason: action.batchReason,
      });
    case 'stopBatch':
      return temporalOf(context).stopBatch(action.jobId, action.reason);
    case 'startReplayCheck':
      return temporalOf(context).startReplayCheck(action.onto, {
        workflowId: action.workflowId,
        taskQueue: action.taskQueue,
        runs: action.runs,
      });
    case 'startMoveBatch':
      return temporalOf(context).startBatch({
        jobId: action.jobId,
        operation: 'Move',
        executions: action.executions,
        onto: action.onto,
        reason: action.batchReason,
      });
  }
}

function connectionOf(context: ExecutionContext): TemporalConnection {
  if (!context.connection) throw new Error('an action on the connection was planned without the connection');
  return context.connection;
}

function temporalOf(context: ExecutionContext): WorkerDeploymentClient {
  if (!context.temporal) throw new Error('a Temporal action was planned without a Temporal client');
  return context.temporal;
}

const EVENTS = {
  create: 'DeploymentCreated',
  update: 'DeploymentUpdated',
  scale: 'DeploymentScaled',
  delete: 'DeploymentDeleted',
  deleteOwnedResource: 'OwnedResourceDeleted',
  terminateGate: 'GateTerminated',
  startGate: 'GateStarted',
  deleteTemporalVersion: 'VersionRecordDeleted',
  deleteTemporalDeployment: 'TemporalCleanedUp',
  startBatch: 'BatchOperationStarted',
  stopBatch: 'BatchOperationStopped',
  startReplayCheck: 'ReplayCheckStarted',
  startMoveBatch: 'PinnedWorkflowsMoveStarted',
  applySecretCopy: 'SecretCopied',
  deleteSecretCopy: 'SecretCopyDeleted',
} as const;
const ROUTING_EVENTS = {
  setCurrent: 'VersionPromoted',
  setRamp: 'VersionRamped',
  clearRamp: 'RampCleared',
  setUnversioned: 'RoutingCleared',
} as const;
const KUBERNETES_FAILURES = {
  create: 'DeploymentCreateFailed',
  update: 'DeploymentUpdateFailed',
  scale: 'DeploymentScaleFailed',
  delete: 'DeploymentDeleteFailed',
} as const;

function eventOf(
  action: Exclude<PlannedAction, { action: 'syncOwnedResource' }>,
): { reason: string; message: string } | undefined {
  if (action.action === 'addFinalizer' || action.action === 'removeFinalizer') return undefined;
  return {
    reason: action.action === 'route' ? ROUTING_EVENTS[action.change.action] : EVENTS[action.action],
    message: doneMessage(action),
  };
}

function failureOf(
  deps: ExecutorDependencies,
  context: ExecutionContext,
  action: PlannedAction,
  error: unknown,
): { condition: Condition; requeueAfterMs?: number } {
  const trouble = (what: string): TemporalTrouble | undefined =>
    temporalTrouble(deps, context.key, error, what, connectionOf(context));
  switch (action.action) {
    case 'removeFinalizer':
    case 'addFinalizer': {
      const object = `${action.kind} ${context.key.split('/')[0]}/${action.kind === 'TemporalConnection' ? context.connection?.metadata.name : context.workerDeployment.metadata.name}`;
      // Written meanwhile (its own reconcile, say): no failure, decide again at once on what the cache then holds.
      if (httpStatus(error) === 409)
        return {
          condition: progressing('True', 'Conflict', `${object} changed meanwhile: deciding again`),
          requeueAfterMs: 0,
        };
      return action.action === 'addFinalizer'
        ? {
            condition: progressing(
              'False',
              'FinalizerNotAdded',
              `cannot add the finalizer to ${object}: ${errorMessage(error)}`,
            ),
          }
        : {
            condition: progressing('False', 'FinalizerNotRemoved', `${action.reason}, but: ${errorMessage(error)}`),
          };
    }
    case 'applySecretCopy':
      return {
        condition: progressing(
          'False',
          'SecretCopyFailed',
          `cannot write Secret ${action.secret.metadata?.name ?? ''} (${action.reason}): ${errorMessage(error)}; no Deployment is created or rolled until it is written`,
        ),
      };
    case 'deleteSecretCopy':
      return { condition: notDeleted(action.connection.label, action.secret.namespace, errorMessage(error)) };
    case 'syncOwnedResource':
      return {
        condition: progressing(
          'False',
          'OwnedResourceNotSynced',
          `cannot carry out the copies of TemporalWorkerOwnedResource ${action.facts.twor.metadata.name ?? ''} (${action.reason}): ${errorMessage(error)}; tried again at the next reconcile, while the rollout goes on`,
        ),
      };
    case 'deleteOwnedResource':
      return {
        condition: progressing(
          'False',
          'OwnedResourceDeleteFailed',
          `cannot delete ${action.object.kind} ${action.object.name} (${action.reason}): ${errorMessage(error)}; its build is not scaled to zero until it is gone`,
        ),
      };
    case 'create':
    case 'update':
    case 'delete':
    case 'scale':
      return {
        condition: progressing(
          'False',
          KUBERNETES_FAILURES[action.action],
          `${action.reason}: ${errorMessage(error)}; nothing more is changed until it succeeds`,
        ),
      };
    case 'terminateGate': {
      const what = `cannot terminate a gate run of build ${action.buildId} (${action.reason})`;
      return (
        trouble(what) ?? { condition: progressing('False', 'GateTerminateFailed', `${what}: ${errorMessage(error)}`) }
      );
    }
    case 'startGate': {
      const what = `gate ${action.start.stage} of build ${action.buildId} cannot start`;
      if (error instanceof GateInputError)
        return { condition: stalled('GateInputInvalid', `${what}: ${error.message}`) };
      return trouble(what) ?? { condition: progressing('False', 'GateStartFailed', `${what}: ${errorMessage(error)}`) };
    }
    case 'route':
      return (
        trouble(action.reason) ?? {
          condition: stalled('RoutingChangeFailed', `${action.reason}: ${errorMessage(error)}`),
        }
      );
    case 'deleteTemporalVersion': {
      const what = `cannot delete the record of build ${action.buildId} from Worker Deployment ${context.key} in Temporal (${action.reason})`;
      const advice =
        "the controller tries again at every poll; until it succeeds the record counts against the server's cap of versions";
      return (
        trouble(what) ?? {
          condition: progressing('False', 'VersionRecordDeleteFailed', `${what}: ${errorMessage(error)}; ${advice}`),
        }
      );
    }
    case 'startBatch':
    case 'startMoveBatch': {
      const operation = action.action === 'startBatch' ? action.operation : 'Move';
      const what = `cannot start the ${operation} batch ${action.jobId} (${action.reason})`;
      if (isConcurrentBatchLimit(error))
        return {
          condition: progressing(
            'False',
            'BatchOperationWaiting',
            `${what}: Temporal already runs as many batch operations in the namespace as it allows (frontend.MaxConcurrentBatchOperationPerNamespace); trying again at the next poll`,
          ),
          requeueAfterMs: deps.pollIntervalMs,
        };
      return (
        trouble(what) ?? {
          condition: progressing('False', 'BatchOperationStartFailed', `${what}: ${errorMessage(error)}`),
        }
      );
    }
    case 'startReplayCheck': {
      const what = `cannot start replay check ${action.workflowId} (${action.reason})`;
      return (
        trouble(what) ?? {
          condition: progressing('False', 'ReplayCheckStartFailed', `${what}: ${errorMessage(error)}`),
        }
      );
    }
    case 'stopBatch': {
      const what = `cannot stop batch ${action.jobId} (${action.reason})`;
      return (
        trouble(what) ?? {
          condition: progressing('False', 'BatchOperationStopFailed', `${what}: ${errorMessage(error)}`),
        }
      );
    }
    case 'deleteTemporalDeployment': {
      const what = `cannot delete Worker Deployment ${context.key} from Temporal`;
      return (
        trouble(what) ?? {
          condition: progressing(
            'False',
            'TemporalCleanupFailed',
            `${what}: ${errorMessage(error)}; to delete without that cleanup, remove the finalizer ${FINALIZER}`,
          ),
        }
      );
    }
  }
}
