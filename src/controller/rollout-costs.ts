// What each rollout cost, added up over its reconciles: from the first reconcile that leaves a new
// target in the status to the one that leaves it current (and asks for no look at once), its
// Temporal calls by method, its reconciles, and how long they waited in the work queue, for read
// tokens, for call slots and on Temporal's answers. A rollout the spec moves on from before it
// ends (another target) is dropped, not counted.
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import type { ReconcileCost, RolloutCost } from '../domain/rollout-cost.ts';

interface Open extends RolloutCost {
  target: string;
  calls: Map<string, number>;
}

export class RolloutCosts {
  private readonly completed: (cost: RolloutCost) => void;
  /** Per worker deployment (`namespace/name`), its rollout under way. */
  private readonly open = new Map<string, Open>();

  constructor(completed: (cost: RolloutCost) => void) {
    this.completed = completed;
  }

  /**
   * A reconcile of `key` ended, leaving `status` (the newest the controller knows); `again`: it
   * failed or asked to run again at once, so its work is not done.
   */
  reconciled(
    key: string,
    status: TemporalWorkerDeployment['status'] | undefined,
    cost: ReconcileCost,
    again: boolean,
  ): void {
    const target = status?.targetVersion?.buildID;
    const current = status?.currentVersion?.buildID;
    let open = this.open.get(key);
    if (open && open.target !== target) {
      this.open.delete(key);
      open = undefined;
    }
    if (!open && target !== undefined && target !== current) {
      open = { target, calls: new Map(), queueMs: 0, tokenWaitMs: 0, slotWaitMs: 0, callMs: 0, reconciles: 0 };
      this.open.set(key, open);
    }
    if (!open) return;
    open.reconciles++;
    for (const [method, n] of cost.calls) open.calls.set(method, (open.calls.get(method) ?? 0) + n);
    open.queueMs += cost.queueMs;
    open.tokenWaitMs += cost.tokenWaitMs;
    open.slotWaitMs += cost.slotWaitMs;
    open.callMs += cost.callMs;
    if (target !== current || again) return;
    this.open.delete(key);
    const { calls, queueMs, tokenWaitMs, slotWaitMs, callMs, reconciles } = open;
    this.completed({ calls, queueMs, tokenWaitMs, slotWaitMs, callMs, reconciles });
  }

  /** A worker deployment gone: its rollout with it. */
  forget(key: string): void {
    this.open.delete(key);
  }
}
