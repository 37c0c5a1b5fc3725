// What reconciles and rollouts spend on Temporal and in waiting, as plain data: what
// controller/rollout-costs.ts adds up and the metrics count.

/** What one reconcile spent. */
export interface ReconcileCost {
  /** Temporal calls by method, as the service names it (`describeWorkerDeployment`). */
  calls: ReadonlyMap<string, number>;
  /** In the work queue before it ran. */
  queueMs: number;
  tokenWaitMs: number;
  slotWaitMs: number;
  /** On Temporal's answers. */
  callMs: number;
}

/** What one completed rollout spent: its reconciles' costs added up. */
export interface RolloutCost extends ReconcileCost {
  reconciles: number;
}
