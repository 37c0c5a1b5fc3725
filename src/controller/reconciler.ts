// One reconcile of one TemporalWorkerDeployment, in three stages and one write: observe what
// Kubernetes and Temporal say (observe.ts), decide everything in one pure plan (planner/plan.ts),
// carry the plan out in order, stopping at the first failure (execute.ts), and write the status
// once, guarded by the resourceVersion it was decided on (status-writer.ts). A worker deployment
// being deleted goes through deletion.ts instead.
import { finalizers, planReconcile } from '../planner/plan.ts';
import type { ReconcileResult } from '../runtime/work-queue.ts';
import { reportOutcome } from '../status/report.ts';
import { isBeingDeleted } from '../domain/finalizer.ts';
import { finalizeWorkerDeployment } from './deletion.ts';
import type { ReconcilerDependencies } from './dependencies.ts';
import { executePlan, type ExecutionResult } from './execute.ts';
import { observe } from './observe.ts';
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

  const observed = await observe(deps, cached);
  if (observed.failed) {
    // What the status last said of the builds stays while the controller cannot look again.
    const { failed } = observed;
    const execution: ExecutionResult = failed.connection
      ? await executePlan(
          deps,
          { key, workerDeployment: failed.workerDeployment, connection: failed.connection },
          finalizers(failed),
        )
      : { stored: failed.workerDeployment, done: [] };
    const conditions = [...(execution.failed ? [execution.failed.condition] : []), failed.condition];
    return writeStatus(deps, execution.stored, lastKnownVersions(execution.stored), conditions, failed.requeueAfterMs);
  }

  const { observation, temporal } = observed;
  const plan = planReconcile(observation, deps);
  const execution = await executePlan(
    { ...deps, log: deps.log.child({ build: observation.buildId }) },
    { key, workerDeployment: observation.workerDeployment, connection: observation.connection, temporal },
    plan.actions,
    plan.notes,
  );
  const report = reportOutcome(observation, plan, execution);
  if (execution.failed?.requeueAfterMs === undefined) deps.temporalBackoff.reset(key);
  return writeStatus(deps, execution.stored, report.versions, report.conditions, report.requeueAfterMs);
}
