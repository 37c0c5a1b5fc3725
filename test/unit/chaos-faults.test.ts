// The chaos run's faults come from its seed alone: the same seed, the same run; one fault at a time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planFaults } from '../chaos/faults.ts';

test('the same seed plans the same faults; another seed others; none overlaps the next', () => {
  const plan = planFaults({ seed: 42, duration: 600, every: 12 });
  assert.deepEqual(planFaults({ seed: 42, duration: 600, every: 12 }), plan);
  assert.notDeepEqual(planFaults({ seed: 43, duration: 600, every: 12 }), plan);
  assert.ok(plan.length > 20, `${plan.length} faults in ten minutes`);
  assert.ok(plan.every((f) => f.at < 600));
  for (let i = 1; i < plan.length; i++) {
    const [before, fault] = [plan[i - 1]!, plan[i]!];
    assert.ok(fault.at >= before.at + before.lasts, `fault ${i} starts after fault ${i - 1} ended`);
  }
  const kinds = new Set(plan.map((f) => f.kind));
  assert.deepEqual([...kinds].sort(), [
    'kill-controller',
    'restart-etcd',
    'restart-kube-apiserver',
    'restart-temporal',
    'slow-responses',
    'temporal-unreachable',
  ]);
  for (const slow of plan.filter((f) => f.kind === 'slow-responses'))
    assert.ok(slow.delayMs !== undefined && slow.delayMs >= 200 && slow.delayMs <= 2000, `${slow.delayMs} ms`);
  assert.ok(plan.filter((f) => f.kind !== 'slow-responses').every((f) => f.delayMs === undefined));
  for (const seed of [7, 9, 42]) {
    const full = planFaults({ seed, duration: 1800, every: 12, kills: 50 });
    const kills = full.filter((f) => f.kind === 'kill-controller');
    assert.ok(kills.length >= 50, `the full run kills the controller at least 50 times: ${kills.length}`);
    assert.ok(full.length < 150, `and does not go on much longer: ${full.length} faults`);
  }
});
