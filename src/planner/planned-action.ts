// The plan's vocabulary: each action the executor can take, and what it did with a plan.
import type { V1Deployment, V1Secret } from '@kubernetes/client-node';
import type { OwnedAutoscaler } from '../domain/observation.ts';
import type { RoutingChange } from '../domain/routing-change.ts';
import type { Condition } from '../status/conditions.ts';
import type { GateStart, RememberedGateRun } from './gates.ts';
import type { OwnedResourceAction } from './owned-resources.ts';
import type { MoveAction } from './pinned-moves.ts';
import type { LadderAction } from './pinned-workflows.ts';
import type { VersionAction } from './versions.ts';

type KubernetesAction<A extends string> = Extract<VersionAction, { action: A }>;

/**
 * One step of the plan; the executor takes them in the order given and stops at the first failure,
 * but for an `independent` one: nothing after it depends on it, so its failure is its own.
 */
export type PlannedAction =
  | { action: 'addFinalizer'; kind: FinalizedKind; reason: string }
  | { action: 'removeFinalizer'; kind: FinalizedKind; reason: string }
  | (KubernetesAction<'create'> & { deployment: V1Deployment })
  | (KubernetesAction<'update'> & { replacement: V1Deployment })
  | KubernetesAction<'delete'>
  | KubernetesAction<'scale'>
  /** An autoscaler copy of a build about to be scaled to zero: it goes first, so nothing scales the build back up. */
  | { action: 'deleteOwnedResource'; object: OwnedAutoscaler; buildId: string; reason: string }
  | {
      action: 'terminateGate';
      buildId: string;
      workflowId: string;
      runId: string;
      /** The target's run as its gate memory held it: remembered again if it could not be ended. */
      remembered?: RememberedGateRun;
      reason: string;
    }
  | { action: 'startGate'; buildId: string; start: GateStart; reason: string }
  | { action: 'route'; change: RoutingChange; reason: string }
  | LadderAction
  | Exclude<MoveAction, { action: 'stopBatch' }>
  /** `skipDrainage`: only when the worker deployment is deleted and its force annotation set. */
  | (KubernetesAction<'deleteTemporalVersion'> & { skipDrainage?: true })
  | { action: 'deleteTemporalDeployment'; reason: string }
  /** A copy of a TemporalClusterConnection's Secret that the worker Pods mount: written before any Deployment. */
  | { action: 'applySecretCopy'; secret: V1Secret; reason: string }
  /** A copy of a cluster connection's Secret in a namespace that may no longer use it. */
  | {
      action: 'deleteSecretCopy';
      secret: { namespace: string; name: string; uid: string };
      /** The connection's name (for the metric), and as named in messages. */
      connection: { name: string; label: string };
      reason: string;
    }
  | OwnedResourceAction;

type FinalizedKind = 'TemporalWorkerDeployment' | 'TemporalConnection';

/** What the executor did with a plan. */
export interface Execution {
  /** The actions carried out, in order. */
  done: PlannedAction[];
  /** The action that failed and the condition that says so: the actions after it were not taken. */
  failed?: { action: PlannedAction; condition: Condition; requeueAfterMs?: number };
  /** The run ID of each gate run started, by workflow ID: the status records it, as only that run counts. */
  startedGateRuns?: Record<string, string>;
}
