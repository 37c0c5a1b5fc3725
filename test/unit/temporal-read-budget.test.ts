import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowService } from '../../src/temporal/protocol.ts';
import { TemporalReadBudget } from '../../src/temporal/read-budget.ts';
import { FakeTimers, settle } from '../support/fake-timers.ts';

/** A service that records when each call reached it: only the calls matter here, not Temporal. */
function recordingService(timers: FakeTimers) {
  const calls: string[] = [];
  const record = (method: string) => (request: { namespace?: string }) =>
    Promise.resolve(void calls.push(`${timers.now()} ${method} ${request.namespace ?? ''}`));
  const service = {
    describeWorkerDeployment: record('describeWorkerDeployment'),
    describeTaskQueue: record('describeTaskQueue'),
    setWorkerDeploymentCurrentVersion: record('setWorkerDeploymentCurrentVersion'),
  } as unknown as WorkflowService;
  return { service, calls };
}

test('reads of one namespace at one address share one budget; writes and other namespaces do not take from it', async () => {
  const timers = new FakeTimers();
  const budget = new TemporalReadBudget({ perSecond: 2, timers });
  const { service, calls } = recordingService(timers);
  const a = budget.paced(service, 'temporal:7233');
  const b = budget.paced(service, 'temporal:7233');
  const pending = [
    a.describeWorkerDeployment({ namespace: 'orders' }),
    b.describeTaskQueue({ namespace: 'orders' }),
    a.describeWorkerDeployment({ namespace: 'orders' }),
    b.describeWorkerDeployment({ namespace: 'orders' }),
    a.setWorkerDeploymentCurrentVersion({ namespace: 'orders' }),
    a.describeWorkerDeployment({ namespace: 'billing' }),
    budget.paced(service, 'elsewhere:7233').describeWorkerDeployment({ namespace: 'orders' }),
  ];
  await settle();
  assert.deepEqual(
    calls.toSorted(),
    [
      '0 describeTaskQueue orders',
      '0 describeWorkerDeployment billing',
      '0 describeWorkerDeployment orders',
      '0 describeWorkerDeployment orders',
      '0 setWorkerDeploymentCurrentVersion orders',
    ],
    'the burst of 2 for orders at temporal:7233, the write, and the other namespace and address at once',
  );
  await timers.advance(1000);
  await Promise.all(pending);
  assert.deepEqual(
    calls.slice(5),
    ['500 describeWorkerDeployment orders', '1000 describeWorkerDeployment orders'],
    'past the burst of 2, one read every 500 ms',
  );
});

test('a poll waits while no token is free, spread by a random part of the spread; it never borrows', async () => {
  const timers = new FakeTimers();
  const draws = [0.5, 0];
  const budget = new TemporalReadBudget({ perSecond: 1, timers, random: () => draws.shift() ?? 0 });
  const { service } = recordingService(timers);
  assert.equal(budget.pollDelay('t:7233', 'orders', 10_000), 0, 'a token is there');
  const read = budget.paced(service, 't:7233').describeWorkerDeployment({ namespace: 'orders' });
  assert.equal(
    budget.pollDelay('t:7233', 'orders', 10_000),
    1000 + 5000,
    'the next token in 1 s, plus half the spread',
  );
  assert.equal(budget.pollDelay('t:7233', 'orders', 10_000), 1000, 'asking took nothing');
  await read;
  await timers.advance(1000);
  assert.equal(budget.pollDelay('t:7233', 'orders', 10_000), 0);
});

test('a routine look takes its free token when it goes: looks side by side do not all see the same token and borrow ahead of the changes; its first read spends it', async () => {
  const timers = new FakeTimers();
  const budget = new TemporalReadBudget({ perSecond: 2, timers, random: () => 0 });
  const { service, calls } = recordingService(timers);
  const first = budget.pollTurn('t:7233', 'orders', 10_000);
  const second = budget.pollTurn('t:7233', 'orders', 10_000);
  assert.deepEqual([first, second], [{ tokens: 1 }, { tokens: 1 }], 'the burst of 2');
  assert.equal(budget.pollTurn('t:7233', 'orders', 10_000), 500, 'none left: the third waits for the next');
  const credit = first as { tokens: number };
  const waits: number[] = [];
  const look = budget.paced(service, 't:7233', (ms) => waits.push(ms), credit);
  await look.describeWorkerDeployment({ namespace: 'orders' });
  assert.deepEqual(
    [credit.tokens, waits, calls],
    [0, [0], ['0 describeWorkerDeployment orders']],
    'spent, not taken again',
  );
  // A change's read meanwhile: the two tokens the looks took are gone, so it waits for the next.
  const change = budget.paced(service, 't:7233').describeWorkerDeployment({ namespace: 'orders' });
  await timers.advance(500);
  await change;
  assert.deepEqual(calls.at(-1), '500 describeWorkerDeployment orders');
});

test('the backlog reads get at most half the budget, and still take their turn of the whole', async () => {
  const timers = new FakeTimers();
  const budget = new TemporalReadBudget({ perSecond: 4, timers });
  const allowed = () => Array.from({ length: 10 }, () => budget.mayReadBacklog('t:7233', 'orders')).filter(Boolean);
  assert.equal(allowed().length, 2, 'a burst of half the budget');
  assert.equal(budget.mayReadBacklog('t:7233', 'other'), true, 'each namespace its own share');
  await timers.advance(1000);
  assert.equal(allowed().length, 2, 'then half the budget a second');
  assert.equal(budget.pollDelay('t:7233', 'orders', 0), 0, 'the share took nothing of the whole budget');
});
