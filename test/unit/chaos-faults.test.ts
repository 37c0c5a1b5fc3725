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
    'temporal-unreachable',
  ]);
  const kills = planFaults({ seed: 7, duration: 1800, every: 12 }).filter((f) => f.kind === 'kill-controller');
  assert.ok(kills.length >= 50, `the full run kills the controller at least 50 times: ${kills.length}`);
});
