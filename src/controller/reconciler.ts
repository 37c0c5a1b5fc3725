// One reconcile of one TemporalWorkerDeployment, in stages and one write: observe what Kubernetes
// says (observe-kubernetes.ts) and carry out the plan's first phase, which needs nothing else: the new build's
// Deployments and the owned resources' copies (planner/kubernetes-phase.ts), before Temporal's
// slower reads; then observe Temporal, decide the rest in one pure plan (planner/plan.ts), carry
// it out in order, stopping at the first failure (execute.ts, the one executor of both phases),
// and write the status once, guarded by the resourceVersion it was decided on (status-writer.ts).
// A worker deployment being deleted goes through deletion.ts instead.
import type { FailedObservation, Observation } from '../domain/observation.ts';
import { LABELS } from '../k8s/names.ts';
import type { WorkerDeploymentClient } from '../temporal/worker-deployment-client.ts';
import type { CertificateVerdict } from '../status/certificates.ts';
import { workerDeploymentCertificates } from '../planner/certificates.ts';
import { planKubernetesPhase } from '../planner/kubernetes-phase.ts';
import { type Plan, planReconcile, readsNeeded, readsNothingMore } from '../planner/plan.ts';
import { planCutShort } from '../planner/revocation.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import { reportOutcome, stateAfter } from '../planner/report.ts';
import { isBeingDeleted } from '../domain/finalizer.ts';
import { finalizeWorkerDeployment } from './deletion.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import { executePlan } from './execute.ts';
import { observeRevocation } from './secret-copy-revocation.ts';
import { type KubernetesFacts, observeKubernetes, withDeployments } from './observe-kubernetes.ts';
import { addressOf, type Observed, observationOn, observeTemporal } from './observe-temporal.ts';
import { lastKnownVersions, type VersionsStatus, writeStatus } from './status-writer.ts';

export async function reconcile(
  deps: ReconcilerDependencies,
  namespace: string,
  name: string,
): Promise<ReconcileResult> {
  const cached = deps.workerDeployment(namespace, name);
  if (!cached) return undefined;
  const key = `${namespace}/${name}`;
  if (isBeingDeleted(cached)) {
    deps.lastDescribed.forget(key);
    return finalizeWorkerDeployment(deps, cached);
  }

  const seen = await observeKubernetes(deps, cached);
  if (seen.failed) return cutShort(deps, key, seen.failed);
  let { facts } = seen;
  const context = { key, workerDeployment: facts.workerDeployment, connection: facts.connection };
  const firstPhase = planKubernetesPhase(facts, deps);
  const kubernetesDone = await executePlan(buildLog(deps, facts.buildId), context, firstPhase);
  // As when the full plan's create fails: said in the status, tried again at the next poll.
  if (kubernetesDone.failed) {
    const { condition, requeueAfterMs } = kubernetesDone.failed;
    const certificates = facts.certificates
      ? workerDeploymentCertificates(
          facts.workerDeployment,
          facts.connection,
          facts.certificates,
          deps.now(),
          deps.certificateExpiryWarningMs,
        )
      : undefined;
    return writeStatus(
      deps,
      kubernetesDone.stored,
      withCertificates(lastKnownVersions(kubernetesDone.stored), certificates),
      [condition, ...(certificates?.conditions ?? [])],
      requeueAfterMs ?? deps.pollIntervalMs,
      certificates?.events,
    );
  }
  const created = kubernetesDone.done.flatMap((a) => (a.action === 'create' ? [a.deployment] : []));
  if (created.length > 0) facts = withDeployments(facts, [...facts.live, ...created]);
  // The spec changed while Temporal was read (which can take seconds): a plan for the old spec is
  // dropped before it does anything, and the change, waiting for this reconcile, runs at once.
  const superseded = () => deps.workerDeployment(namespace, name)?.metadata.generation !== cached.metadata.generation;
  const newTarget = created.some((d) => d.metadata?.labels?.[LABELS.buildId] === facts.buildId);
  let decided = newTarget ? onLastDescribed(deps, key, facts) : undefined;
  let temporal: WorkerDeploymentClient | undefined;
  if (!decided) {
    const observed = await observeUnlessSpecChanges(deps, namespace, name, facts);
    if (observed === 'superseded') return { requeueAfterMs: 0 };
    if (observed.failed) {
      deps.lastDescribed.forget(key);
      const { failure } = observed.failed;
      if (failure.kind === 'TemporalDeploymentNotFound' && failure.justDescribed)
        return notFoundAfterChange(deps, facts.temporalName);
      return cutShort(deps, key, observed.failed);
    }
    if (superseded()) return { requeueAfterMs: 0 };
    temporal = observed.temporal;
    decided = { observation: observed.observation, plan: planReconcile(observed.observation, deps) };
  }

  const { observation, plan } = decided;
  const execution = await executePlan(
    buildLog(deps, observation.buildId),
    { key, workerDeployment: observation.workerDeployment, connection: observation.connection, temporal, superseded },
    plan.actions,
    plan.notes,
  );
  if (execution.failed) deps.lastDescribed.forget(key);
  else deps.lastDescribed.remember(key, addressOf(deps, facts), stateAfter(observation, plan, execution));
  const report = reportOutcome(observation, plan, execution);
  deps.setPinnedWorkflows(namespace, name, runningCounts(plan));
  deps.setMissingConfiguration?.(namespace, name, observation.missingConfiguration?.length ?? 0);
  deps.setBuildsWithoutPollers(namespace, name, plan.buildsWithoutPollers);
  if (plan.analysisReached) deps.countAnalysisVerdict(namespace, name, plan.analysisReached);
  if (plan.moveOutcomes) deps.countPinnedWorkflowMoves?.(namespace, name, plan.moveOutcomes);
  if (execution.failed?.requeueAfterMs === undefined) deps.temporalBackoff.reset(key);
  const written = await writeStatus(
    deps,
    execution.stored,
    report.versions,
    [...report.conditions, ...((await deps.notifier?.conditions(observation.workerDeployment)) ?? [])],
    report.requeueAfterMs,
    report.warnings,
  );
  // Something falling due then (a pause's end, a sunset delay) goes ahead of routine looks.
  return written?.requeueAfterMs && report.requeueFallsDue ? { ...written, priority: 'high' } : written;
}

/**
 * An observation that stopped: the finalizers still go on, a namespace refused its cluster
 * connection loses the copies of its Secrets, and the status keeps what it last said of the builds.
 */
async function cutShort(
  deps: ReconcilerDependencies,
  key: string,
  failed: FailedObservation,
): Promise<ReconcileResult> {
  const { workerDeployment, connection } = failed;
  // Not judged on an observation cut short: its Degraded condition goes too.
  deps.setBuildsWithoutPollers(
    workerDeployment.metadata.namespace ?? '',
    workerDeployment.metadata.name ?? '',
    undefined,
  );
  const plan = planCutShort(failed, await observeRevocation(deps, failed), deps.now(), deps.certificateExpiryWarningMs);
  const execution = await executePlan(
    deps,
    { key, workerDeployment, ...(connection ? { connection } : {}) },
    plan.actions,
  );
  // The read failure first: a copy left behind is said as what also went wrong, then the certificates.
  const conditions = [
    ...plan.conditions,
    ...(execution.failed ? [execution.failed.condition] : []),
    ...(plan.certificates?.conditions ?? []),
  ];
  return writeStatus(
    deps,
    execution.stored,
    withCertificates(lastKnownVersions(execution.stored), plan.certificates),
    conditions,
    failed.requeueAfterMs,
    plan.certificates?.events,
  );
}

/** How soon a Worker Deployment that answered not found right after it was described is asked again. */
export const NOT_FOUND_RECHECK_MS = 1000;

/**
 * Temporal's Worker Deployment answers not found for a moment after each change it makes (see
 * domain/temporal-not-found.ts). Right after a description that found it, that moment is waited
 * out without a word: nothing is written, and it is asked again in a second. Answered so again,
 * the status says it until the answer is believed. The second ask falls due as a ramp's pause
 * does (the high lane, top after a rollout's progress): a routine look would wait for a free read
 * token, and among 1,000 worker deployments one such rollout waited 5 minutes for it.
 */
function notFoundAfterChange(deps: ReconcilerDependencies, temporalName: string): ReconcileResult {
  deps.log.info(
    { recheckMs: NOT_FOUND_RECHECK_MS },
    `Temporal answered that Worker Deployment ${temporalName} does not exist, right after it described it: asked again before that is believed`,
  );
  return { requeueAfterMs: NOT_FOUND_RECHECK_MS, priority: 'high' };
}

/**
 * The plan on what Temporal last said, when the reconcile has just created the target build's
 * Deployments: nothing Temporal does for that build can wait on this reconcile, as its Pods must
 * run first, and their Deployments becoming available brings the reconcile that reads. Only where
 * that plan does nothing and asks nothing more of Temporal: nothing is done on a description read
 * before, and what was due on it was done then. What Temporal changed since is seen at that next
 * reconcile, as it would be at the next routine look.
 */
function onLastDescribed(
  deps: ReconcilerDependencies,
  key: string,
  facts: KubernetesFacts,
): { observation: Observation; plan: Plan } | undefined {
  const state = deps.lastDescribed.recall(key, addressOf(deps, facts));
  if (!state) return undefined;
  const observation = observationOn(deps, facts, state);
  if (!readsNothingMore(readsNeeded(observation, deps))) return undefined;
  const plan = planReconcile(observation, deps);
  if (plan.actions.length > 0) return undefined;
  deps.log.debug(
    { build: facts.buildId },
    "planned on Temporal's last description: the build's Deployments were just created",
  );
  return { observation, plan };
}

/** The status's certificates as a verdict leaves them; as they were without one (the Secrets not read). */
function withCertificates(versions: VersionsStatus, verdict: CertificateVerdict | undefined): VersionsStatus {
  if (!verdict) return versions;
  const rest = { ...versions };
  delete rest.certificates;
  return verdict.records.length > 0 ? { ...rest, certificates: verdict.records } : rest;
}

function runningCounts(plan: ReturnType<typeof planReconcile>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(plan.ladder).flatMap(([build, l]) => (l.running === undefined ? [] : [[build, l.running]])),
  );
}

function buildLog(deps: ReconcilerDependencies, buildId: string): ReconcilerDependencies {
  return { ...deps, log: deps.log.child({ build: buildId }) };
}

/**
 * Temporal's reads, given up when the spec changes meanwhile: the change's own reconcile waits for
 * this one, and DescribeWorkerDeployment can take seconds while the Worker Deployment workflow is
 * busy. The reads only read, so they may finish unheard.
 */
async function observeUnlessSpecChanges(
  deps: ReconcilerDependencies,
  namespace: string,
  name: string,
  facts: KubernetesFacts,
): Promise<Observed | 'superseded'> {
  const change = deps.specChange(namespace, name);
  try {
    const observing = observeTemporal(deps, facts);
    const first = await Promise.race([observing, change.changed.then(() => 'superseded' as const)]);
    if (first === 'superseded') observing.catch(() => {});
    return first;
  } finally {
    change.stop();
  }
}
