// Workflow code of the sample worker. It is bundled once and shared by every worker the node
// agent hosts; anything build-specific reaches it through activities, which run in the worker.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  defineSignal,
  makeContinueAsNewFunc,
  metricMeter,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
  sleep,
} from '@temporalio/workflow';
import { listenForContinueAsNewRequest } from '../../packages/worker/src/workflow.ts';
import type { SampleActivities, WorkerIdentity } from './activities.ts';

/** The worker library's gate (replays the current build's recent workflows on this build's code) and its replay check (replays the runs it is given). */
export { replayCheck, replayGate } from '../../packages/worker/src/workflow.ts';

const { describeWorker, work } = proxyActivities<SampleActivities>({ startToCloseTimeout: '30 seconds' });

export const finishSignal = defineSignal('finish');

export interface RunReport {
  startedOn: WorkerIdentity;
  finishedOn: WorkerIdentity;
}

/** How a pinned workflow answers what the pinned-workflow ladder asks of it. */
export interface PinnedOptions {
  /** Ignore ContinueAsNewRequested instead of continuing as new onto the current build. */
  ignoreContinueAsNewRequest?: boolean;
  /** Keep running when cancelled. */
  ignoreCancellation?: boolean;
}

async function runUntilSignalled(options: PinnedOptions = {}): Promise<RunReport | undefined> {
  let finished = false;
  setHandler(finishSignal, () => void (finished = true));
  const asked = listenForContinueAsNewRequest();
  const continueAsNewAsked = () => asked() && !options.ignoreContinueAsNewRequest;
  const startedOn = await describeWorker();
  const wait = () => condition(() => finished || continueAsNewAsked());
  await (options.ignoreCancellation ? CancellationScope.nonCancellable(wait) : wait());
  if (!finished) return undefined;
  return { startedOn, finishedOn: await describeWorker() };
}

/** Continuing as new, the next run starts on the build new workflows go to, not on this run's pinned build. */
const continueOntoCurrentBuild = makeContinueAsNewFunc<typeof pinnedUntilSignalled>({
  initialVersioningBehavior: 'AUTO_UPGRADE',
});

/**
 * Stays on the build it started on until signalled `finish`: what keeps an old build draining.
 * Asked to continue as new (ContinueAsNewRequested), it does so onto the current build, unless
 * told to ignore the request.
 */
export async function pinnedUntilSignalled(options: PinnedOptions = {}): Promise<RunReport> {
  return (await runUntilSignalled(options)) ?? continueOntoCurrentBuild(options);
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, pinnedUntilSignalled);

/** Moves to the current build on its next task: `finishedOn` shows where it ended up. */
export async function autoUpgradeUntilSignalled(): Promise<RunReport> {
  return (await runUntilSignalled({ ignoreContinueAsNewRequest: true })) as RunReport;
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

/** An activity of `ms` milliseconds, then the worker that ran the workflow. */
export async function slowOrder(ms: number): Promise<WorkerIdentity> {
  await work(ms);
  return describeWorker();
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, slowOrder);

/** Fails order `number` on a build started with `SAMPLE_BEHAVIOUR=fail-<percent>` when `number % 100 < percent`. */
const FAILING_SHARE = /^fail-(\d{1,3})$/;

/**
 * A short piece of work that completes, or fails on a build whose behaviour says so for a share
 * of orders: the failure rate a canary analysis (spec.rollout.analysis) judges.
 */
export async function order(number: number): Promise<WorkerIdentity> {
  const worker = await describeWorker();
  const percent = Number(FAILING_SHARE.exec(worker.behaviour)?.[1] ?? 0);
  const failed = number % 100 < percent;
  // Through the SDK's own metrics, tagged with the build: what a metric analysis queries.
  metricMeter
    .createCounter('sample_orders', 'orders', 'Orders closed, by build and outcome')
    .add(1, { deployment: worker.deploymentName, build_id: worker.buildId, outcome: failed ? 'failed' : 'completed' });
  if (failed)
    throw ApplicationFailure.nonRetryable(
      `order ${number} failed on build ${worker.buildId} (SAMPLE_BEHAVIOUR=${worker.behaviour})`,
      'OrderFailed',
    );
  return worker;
}
setWorkflowOptions({ versioningBehavior: 'PINNED' }, order);
