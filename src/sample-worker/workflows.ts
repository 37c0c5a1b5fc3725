// Workflow code of the sample worker. It is bundled once and shared by every worker the node
// agent hosts; anything build-specific reaches it through activities, which run in the worker.
import {
  ApplicationFailure,
  condition,
  defineSignal,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
  sleep,
} from '@temporalio/workflow';
import type { SampleActivities, WorkerIdentity } from './activities.ts';

const { describeWorker } = proxyActivities<SampleActivities>({ startToCloseTimeout: '30 seconds' });

export const finishSignal = defineSignal('finish');

export interface RunReport {
  startedOn: WorkerIdentity;
  finishedOn: WorkerIdentity;
}

async function runUntilSignalled(): Promise<RunReport> {
  let finished = false;
  setHandler(finishSignal, () => void (finished = true));
  const startedOn = await describeWorker();
  await condition(() => finished);
  return { startedOn, finishedOn: await describeWorker() };
}

/** Stays on the build it started on until signalled `finish`: what keeps an old build draining. */
export async function pinnedUntilSignalled(): Promise<RunReport> {
  return runUntilSignalled();
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, pinnedUntilSignalled);

/** Moves to the current build on its next task: `finishedOn` shows where it ended up. */
export async function autoUpgradeUntilSignalled(): Promise<RunReport> {
  return runUntilSignalled();
}
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, autoUpgradeUntilSignalled);

export interface GateInput {
  /** `false` makes the gate fail. */
  pass?: boolean;
  message?: string;
  /** Wait this long before deciding, to keep a gate running for a while. */
  delayMs?: number;
}

/**
 * A rollout gate: passes unless its input says `pass: false` or the build it runs on was
 * started with `SAMPLE_BEHAVIOUR=fail-gate`.
 */
export async function gate(input: GateInput = {}): Promise<WorkerIdentity> {
  const worker = await describeWorker();
  if (input.delayMs) await sleep(input.delayMs);
  if (input.pass === false || worker.behaviour === 'fail-gate') {
    const why =
      input.pass === false
        ? (input.message ?? 'the gate input asked to fail')
        : `build ${worker.buildId} runs with SAMPLE_BEHAVIOUR=fail-gate`;
    throw ApplicationFailure.nonRetryable(why, 'GateFailed');
  }
  return worker;
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, gate);

/** A gate that calls no activity, for builds whose workers register none: passes unless its input says `pass: false`. */
export async function workflowOnlyGate(input: GateInput = {}): Promise<void> {
  if (input.delayMs) await sleep(input.delayMs);
  if (input.pass === false)
    throw ApplicationFailure.nonRetryable(input.message ?? 'the gate input asked to fail', 'GateFailed');
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, workflowOnlyGate);

/** The gate of examples/gate-input-from-secret.yaml, so that the example runs on `npm start`'s environment. */
export async function LedgerSmokeTest(input: GateInput = {}): Promise<WorkerIdentity> {
  return gate(input);
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, LedgerSmokeTest);
