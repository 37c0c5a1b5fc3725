// One reconcile of one TemporalWorkerDeployment, in three stages and one write: observe what
// Kubernetes and Temporal say (observe.ts), decide everything in one pure plan (planner/plan.ts),
// except the new build's Deployments, which are created as soon as Kubernetes alone shows them
// missing and safe to create (planner/new-build.ts), and the copies of its owned resources,
// which depend on Kubernetes alone (owned-resources.ts), before Temporal's slower reads,
// carry the plan out in order, stopping at the first failure (execute.ts), and write the status
// once, guarded by the resourceVersion it was decided on (status-writer.ts). A worker deployment
// being deleted goes through deletion.ts instead.
import type { FailedObservation } from '../domain/observation.ts';
import { planNewBuild } from '../planner/new-build.ts';
import { finalizers, planReconcile } from '../planner/plan.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import { readFailureCondition } from '../status/read-failures.ts';
import { reportOutcome } from '../status/report.ts';
import { refusedClusterConnection } from '../domain/cluster-connection-use.ts';
import { isBeingDeleted } from '../domain/finalizer.ts';
import { finalizeWorkerDeployment } from './deletion.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import { executePlan, type ExecutionResult } from './execute.ts';
import { syncOwnedResources } from './owned-resources.ts';
import { revokeSecretCopies } from './secret-copy-revocation.ts';
import { type KubernetesFacts, type Observed, observeKubernetes, observeTemporal, withDeployments } from './observe.ts';
import { lastKnownVersions, writeStatus } from './status-writer.ts';

export async function reconcile(
  deps: ReconcilerDependencies,
  namespace: string,
  name: string,
): Promise<ReconcileResult> {
  const cached = deps.workerDeployment(namespace, name);
  if (!cached) return undefined;
  if (isBeingDeleted(cached)) return finalizeWorkerDeployment(deps, cached);
  const key = `${namespace}/${name}`;

  const seen = await observeKubernetes(deps, cached);
  if (seen.failed) return cutShort(deps, key, seen.failed);
  let { facts } = seen;
  const newBuild = planNewBuild(facts, deps);
  if (newBuild.length > 0) {
    const context = { key, workerDeployment: facts.workerDeployment, connection: facts.connection };
    const created = await executePlan(buildLog(deps, facts.buildId), context, newBuild);
    // As when the full plan's create fails: said in the status, tried again at the next poll.
    if (created.failed) {
      const { condition, requeueAfterMs } = created.failed;
      const versions = lastKnownVersions(created.stored);
      return writeStatus(deps, created.stored, versions, [condition], requeueAfterMs ?? deps.pollIntervalMs);
    }
    facts = withDeployments(facts, [
      ...facts.live,
      ...newBuild.flatMap((a) => (a.action === 'create' ? [a.deployment] : [])),
    ]);
  }
  await syncOwnedResources(deps, facts.workerDeployment, facts.live);
  const observed = await observeUnlessSpecChanges(deps, namespace, name, facts);
  if (observed === 'superseded') return { requeueAfterMs: 0 };
  if (observed.failed) return cutShort(deps, key, observed.failed);
  // The spec changed while Temporal was read (which can take seconds): a plan for the old spec is
  // dropped before it does anything, and the change, waiting for this reconcile, runs at once.
  const superseded = () => deps.workerDeployment(namespace, name)?.metadata.generation !== cached.metadata.generation;
  if (superseded()) return { requeueAfterMs: 0 };

  const { observation, temporal } = observed;
  const plan = planReconcile(observation, deps);
  const execution = await executePlan(
    buildLog(deps, observation.buildId),
    { key, workerDeployment: observation.workerDeployment, connection: observation.connection, temporal, superseded },
    plan.actions,
    plan.notes,
  );
  const report = reportOutcome(observation, plan, execution);
  deps.setPinnedWorkflows(namespace, name, runningCounts(plan));
  if (plan.analysisReached) deps.countAnalysisVerdict(namespace, name, plan.analysisReached);
  if (execution.failed?.requeueAfterMs === undefined) deps.temporalBackoff.reset(key);
  const written = await writeStatus(
    deps,
    execution.stored,
    report.versions,
    report.conditions,
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
  const { workerDeployment, connection, failure } = failed;
  const execution: ExecutionResult = connection
    ? await executePlan(deps, { key, workerDeployment, connection }, finalizers(failed))
    : { stored: workerDeployment, done: [] };
  const revoked =
    failure.kind === 'ConnectionCredentials' && refusedClusterConnection(failure.reason)
      ? await revokeSecretCopies(deps, workerDeployment, failure.connection, failure.reason)
      : undefined;
  const conditions = [
    ...(execution.failed ? [execution.failed.condition] : []),
    readFailureCondition(failure),
    ...(revoked ? [revoked] : []),
  ];
  return writeStatus(deps, execution.stored, lastKnownVersions(execution.stored), conditions, failed.requeueAfterMs);
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
