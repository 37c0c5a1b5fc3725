// Runs the gate that stands before the next routing change of the target build: starts its
// workflows, reads them back, and remembers in the status what it learned, so that a completed
// gate is not read again and a failed one holds the rollout until the spec changes.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { httpStatus } from '../k8s/api-errors.ts';
import { type GateRun, type GateStage, judgeGate } from '../planner/gates.ts';
import { type Condition, stalled } from '../status/conditions.ts';
import {
  gateWorkflowId,
  readGate,
  startGate,
  type GateTarget,
  workflowTaskQueues,
} from '../temporal/gate-workflows.ts';
import type { EventTarget, RecordEvent } from './events.ts';

type TargetStatus = NonNullable<NonNullable<TemporalWorkerDeployment['status']>['targetVersion']>;
export type GateStatus = Pick<TargetStatus, 'gates' | 'gateFailure'>;
type GateFailure = NonNullable<TargetStatus['gateFailure']>;

export interface GateContext {
  core: CoreV1Api;
  recordEvent: RecordEvent;
  about: EventTarget;
  /** The Kubernetes namespace: where inputFrom's ConfigMap or Secret lives. */
  namespace: string;
  target: GateTarget;
  stage: GateStage | undefined;
  generation: number;
  /** What the status said of this same target build, if anything. */
  previous: TargetStatus | undefined;
}

export interface GateOutcome {
  gate: 'passed' | 'pending' | 'failed';
  status: GateStatus;
  condition?: Condition;
}

export class GateInputError extends Error {
  override name = 'GateInputError';
}

export async function runGates(context: GateContext): Promise<GateOutcome> {
  const { stage, previous, generation, target } = context;
  const failure = previous?.gateFailure;
  if (failure && failure.generation === generation) return failed(context, failure, previous?.gates);
  if (!stage) return { gate: 'passed', status: {} };
  const known = (previous?.gates ?? []).filter((g) => g.stage === stage.name);
  if (!failure && known.length > 0 && known.every((g) => g.status === 'Completed'))
    return { gate: 'passed', status: { gates: known } };

  const taskQueues = await workflowTaskQueues(target);
  const idOf = (taskQueue: string) => gateWorkflowId(target.deploymentName, target.buildId, stage.name, taskQueue);
  const runs: Record<string, GateRun | undefined> = {};
  for (const taskQueue of taskQueues) runs[taskQueue] = await readGate(target, idOf(taskQueue));
  const verdict = judgeGate({ stage: stage.name, taskQueues, runs, retry: failure !== undefined });

  if (verdict.state === 'pending' && verdict.start.length > 0) {
    let input;
    try {
      input = await gateInput(context.core, context.namespace, stage.gate);
    } catch (error) {
      if (!(error instanceof GateInputError)) throw error;
      return {
        gate: 'pending',
        status: {},
        condition: stalled(
          'GateInputInvalid',
          `gate ${stage.name} of build ${target.buildId} cannot start: ${error.message}`,
        ),
      };
    }
    for (const taskQueue of verdict.start) {
      await startGate(target, {
        workflowId: idOf(taskQueue),
        workflowType: stage.gate.workflowType,
        taskQueue,
        ...(input === undefined ? {} : { input }),
      });
      runs[taskQueue] = { workflowId: idOf(taskQueue), status: 'Running' };
      await context.recordEvent(context.about, {
        type: 'Normal',
        reason: 'GateStarted',
        message: `started gate ${stage.name} (${stage.gate.workflowType}) of build ${target.buildId} on task queue ${taskQueue}, pinned to the build`,
      });
    }
  }
  const gates = taskQueues.map((taskQueue) => ({
    stage: stage.name,
    taskQueue,
    workflowID: idOf(taskQueue),
    status: runs[taskQueue]?.status ?? 'Running',
  }));
  if (verdict.state === 'failed')
    return failed(
      context,
      { generation, stage: stage.name, workflowID: verdict.run.workflowId, message: verdict.reason },
      gates,
    );
  if (verdict.state === 'passed')
    await context.recordEvent(context.about, {
      type: 'Normal',
      reason: 'GatePassed',
      message: `${verdict.reason} for build ${target.buildId}`,
    });
  return { gate: verdict.state, status: { gates } };
}

function failed(context: GateContext, failure: GateFailure, gates: GateStatus['gates']): GateOutcome {
  const aborted = failure.stage !== 'rollout';
  const text = `${failure.message}; the rollout of build ${context.target.buildId} stops${aborted ? ' and its ramp is removed' : ''}, its Pods stay for the workflows already on it; change the spec to run the gate again`;
  return {
    gate: 'failed',
    status: { ...(gates ? { gates } : {}), gateFailure: failure },
    condition: stalled(aborted ? 'RolloutAborted' : 'GateFailed', text),
  };
}

type Gate = GateStage['gate'];

/** The gate's first argument: inline, or JSON from a ConfigMap or Secret key. Errors name the object and key, never the value. */
async function gateInput(core: CoreV1Api, namespace: string, gate: Gate): Promise<unknown> {
  if (gate.input !== undefined) return gate.input;
  const ref = gate.inputFrom?.configMapKeyRef ?? gate.inputFrom?.secretKeyRef;
  if (!ref) return undefined;
  const isSecret = gate.inputFrom?.secretKeyRef !== undefined;
  const what = `${isSecret ? 'Secret' : 'ConfigMap'} ${namespace}/${ref.name}`;
  let text: string | undefined;
  try {
    if (isSecret) {
      const data = (await core.readNamespacedSecret({ namespace, name: ref.name })).data?.[ref.key];
      text = data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
    } else {
      const configMap = await core.readNamespacedConfigMap({ namespace, name: ref.name });
      const binary = configMap.binaryData?.[ref.key];
      text =
        configMap.data?.[ref.key] ??
        (binary === undefined ? undefined : Buffer.from(binary, 'base64').toString('utf8'));
    }
  } catch (error) {
    if (httpStatus(error) === 404) throw new GateInputError(`${what} does not exist`);
    throw error;
  }
  if (text === undefined) throw new GateInputError(`${what} has no key ${ref.key}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new GateInputError(`key ${ref.key} of ${what} is not JSON`);
  }
}
