import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { RolloutCosts } from '../../src/controller/rollout-costs.ts';
import type { ReconcileCost, RolloutCost } from '../../src/domain/rollout-cost.ts';
import { Metrics } from '../../src/runtime/metrics.ts';

type Status = TemporalWorkerDeployment['status'];
const status = (target: string, current?: string): Status =>
  ({
    targetVersion: { buildID: target },
    ...(current ? { currentVersion: { buildID: current } } : {}),
  }) as Status;
const cost = (reads: number, queueMs = 100, writes = 0): ReconcileCost => ({
  calls: new Map([
    ['describeWorkerDeployment', reads],
    ...(writes ? [['setWorkerDeploymentCurrentVersion', writes] as [string, number]] : []),
  ]),
  queueMs,
  tokenWaitMs: 10,
  slotWaitMs: 5,
  callMs: 300,
});

test("a rollout's reconciles add up, from the first that says a new target to the one that leaves it current", () => {
  const done: RolloutCost[] = [];
  const costs = new RolloutCosts((c) => done.push(c));
  costs.reconciled('shop/orders', status('v1', 'v1'), cost(1), false);
  assert.deepEqual(done, [], 'settled: no rollout');
  costs.reconciled('shop/orders', status('v2', 'v1'), cost(1, 2000), false);
  costs.reconciled('shop/billing', status('b2', 'b1'), cost(1), false);
  costs.reconciled('shop/orders', status('v2', 'v1'), cost(1, 500), false);
  costs.reconciled('shop/orders', status('v2', 'v2'), cost(1, 50, 1), true);
  assert.deepEqual(done, [], 'asked to run again at once: not done yet');
  costs.reconciled('shop/orders', status('v2', 'v2'), cost(1, 0), false);
  costs.reconciled('shop/orders', status('v2', 'v2'), cost(1), false);
  assert.deepEqual(done, [
    {
      calls: new Map([
        ['describeWorkerDeployment', 4],
        ['setWorkerDeploymentCurrentVersion', 1],
      ]),
      queueMs: 2550,
      tokenWaitMs: 40,
      slotWaitMs: 20,
      callMs: 1200,
      reconciles: 4,
    },
  ]);
});

test('a rollout the spec moves on from is dropped; the new target starts its own; a worker deployment gone takes its rollout along', () => {
  const done: RolloutCost[] = [];
  const costs = new RolloutCosts((c) => done.push(c));
  costs.reconciled('shop/orders', status('v2', 'v1'), cost(5), false);
  costs.reconciled('shop/orders', status('v3', 'v1'), cost(1), false);
  costs.reconciled('shop/orders', status('v3', 'v3'), cost(1, 100, 1), false);
  assert.deepEqual(
    done.map((c) => [c.reconciles, c.calls.get('describeWorkerDeployment')]),
    [[2, 2]],
  );
  costs.reconciled('shop/orders', status('v4', 'v3'), cost(1), false);
  costs.forget('shop/orders');
  costs.reconciled('shop/orders', status('v4', 'v4'), cost(1), false);
  assert.equal(done.length, 1, 'forgotten: its end is no rollout of its own');
  const first = new RolloutCosts((c) => done.push(c));
  first.reconciled('shop/new', status('v1'), cost(2), false);
  first.reconciled('shop/new', status('v1', 'v1'), cost(1, 100, 1), false);
  assert.equal(done.at(-1)?.reconciles, 2, 'the first build of a worker deployment is a rollout too');
});

test('the metrics count each completed rollout: its calls by method, its reconciles and its waits', async () => {
  const metrics = new Metrics();
  metrics.countRollout({ ...cost(2, 1500, 1), reconciles: 2 });
  const text = await metrics.registry.metrics();
  assert.match(text, /^twc_rollouts_total 1$/m);
  assert.match(text, /^twc_rollout_reconciles_total 2$/m);
  assert.match(text, /^twc_rollout_temporal_calls_total\{method="DescribeWorkerDeployment"\} 2$/m);
  assert.match(text, /^twc_rollout_temporal_calls_total\{method="SetWorkerDeploymentCurrentVersion"\} 1$/m);
  assert.match(text, /^twc_rollout_wait_seconds_sum\{on="queue"\} 1.5$/m);
  assert.match(text, /^twc_rollout_wait_seconds_sum\{on="temporal"\} 0.3$/m);
});
