import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TemporalCallSlots } from '../../src/temporal/call-slots.ts';
import { CallTally } from '../../src/temporal/call-tally.ts';
import type { WorkflowService } from '../../src/temporal/protocol.ts';
import { TemporalReadBudget } from '../../src/temporal/read-budget.ts';
import { FakeTimers, settle } from '../support/fake-timers.ts';

/** A service whose calls answer only when the test says: which calls reached it, and a way to answer each. */
function heldService() {
  const reached: string[] = [];
  const answers = new Map<string, () => void>();
  const held = (method: string) => (request: { namespace?: string; deploymentName?: string }) => {
    const line = `${method} ${request.namespace ?? ''} ${request.deploymentName ?? ''}`;
    reached.push(line);
    return new Promise<void>((resolve) => answers.set(line, resolve));
  };
  const service = {
    describeWorkerDeployment: held('describeWorkerDeployment'),
    setWorkerDeploymentCurrentVersion: held('setWorkerDeploymentCurrentVersion'),
  } as unknown as WorkflowService;
  return { service, reached, answer: (line: string) => answers.get(line)?.() };
}

test('calls of one namespace at one address go side by side up to the limit, the rest wait their turn in order; other namespaces and addresses have slots of their own', async () => {
  const timers = new FakeTimers();
  const waits: string[] = [];
  const inFlight: string[] = [];
  const slots = new TemporalCallSlots({
    perNamespace: 2,
    now: timers.now,
    waited: (namespace, ms) => waits.push(`${namespace} ${ms}`),
    inFlight: (namespace, n) => inFlight.push(`${namespace} ${n}`),
  });
  const { service, reached, answer } = heldService();
  const a = slots.limited(service, 'temporal:7233', { priority: 'change' });
  const b = slots.limited(service, 'temporal:7233', { priority: 'change' });
  const calls = [
    a.setWorkerDeploymentCurrentVersion({ namespace: 'orders', deploymentName: 'one' }),
    b.setWorkerDeploymentCurrentVersion({ namespace: 'orders', deploymentName: 'two' }),
    a.describeWorkerDeployment({ namespace: 'orders', deploymentName: 'three' }),
    b.setWorkerDeploymentCurrentVersion({ namespace: 'orders', deploymentName: 'four' }),
    a.describeWorkerDeployment({ namespace: 'billing', deploymentName: 'five' }),
    slots
      .limited(service, 'elsewhere:7233', { priority: 'change' })
      .describeWorkerDeployment({ namespace: 'orders', deploymentName: 'six' }),
  ];
  await settle();
  assert.deepEqual(reached, [
    'setWorkerDeploymentCurrentVersion orders one',
    'setWorkerDeploymentCurrentVersion orders two',
    'describeWorkerDeployment billing five',
    'describeWorkerDeployment orders six',
  ]);
  await timers.advance(1500);
  answer('setWorkerDeploymentCurrentVersion orders two');
  await settle();
  assert.equal(reached.at(-1), 'describeWorkerDeployment orders three', 'the first waiting takes the slot freed');
  assert.equal(reached.length, 5);
  await timers.advance(500);
  answer('setWorkerDeploymentCurrentVersion orders one');
  await settle();
  assert.equal(reached.at(-1), 'setWorkerDeploymentCurrentVersion orders four');
  for (const line of reached) answer(line);
  await Promise.all(calls);
  assert.deepEqual(waits.toSorted(), ['billing 0', 'orders 0', 'orders 0', 'orders 0', 'orders 1500', 'orders 2000']);
  assert.ok(
    inFlight.every((line) => Number(line.split(' ')[1]) <= 2),
    'never more than the limit in flight',
  );
  assert.deepEqual(inFlight.filter((l) => l.startsWith('orders')).at(-1), 'orders 0');
});

test("routine calls take at most half the slots, and a freed slot goes to a waiting change's call first", async () => {
  const slots = new TemporalCallSlots({ perNamespace: 4 });
  const { service, reached, answer } = heldService();
  const routine = slots.limited(service, 'temporal:7233');
  const change = slots.limited(service, 'temporal:7233', { priority: 'change' });
  const call = (via: WorkflowService, name: string) =>
    via.describeWorkerDeployment({ namespace: 'orders', deploymentName: name });
  const calls = [call(routine, 'look-1'), call(routine, 'look-2'), call(routine, 'look-3'), call(change, 'change-1')];
  await settle();
  assert.deepEqual(
    reached.map((r) => r.split(' ')[2]),
    ['look-1', 'look-2', 'change-1'],
    'two routine ones (half of four), the change beside them; the third routine one waits',
  );
  calls.push(call(change, 'change-2'), call(change, 'change-3'));
  await settle();
  assert.equal(reached.at(-1)?.split(' ')[2], 'change-2', 'the fourth slot, for a change');
  answer('describeWorkerDeployment orders look-1');
  await settle();
  assert.equal(reached.at(-1)?.split(' ')[2], 'change-3', 'the freed slot goes to the change waiting, not the look');
  answer('describeWorkerDeployment orders change-1');
  await settle();
  assert.equal(reached.at(-1)?.split(' ')[2], 'look-3', 'no change waits: the look, within its half');
  for (const line of reached) answer(line);
  await Promise.all(calls);
});

test("a reconcile's deadline ends its call's wait for a slot, and the slot queue goes on without it", async () => {
  const slots = new TemporalCallSlots({ perNamespace: 1 });
  const { service, reached, answer } = heldService();
  const first = slots.limited(service, 'temporal:7233').describeWorkerDeployment({ namespace: 'orders' });
  const deadline = new AbortController();
  const cut = slots.limited(service, 'temporal:7233', { signal: deadline.signal }).describeWorkerDeployment({
    namespace: 'orders',
    deploymentName: 'cut',
  });
  const next = slots.limited(service, 'temporal:7233').describeWorkerDeployment({
    namespace: 'orders',
    deploymentName: 'next',
  });
  await settle();
  deadline.abort(new Error('past its deadline'));
  await assert.rejects(cut, /past its deadline/);
  answer('describeWorkerDeployment orders ');
  await first;
  await settle();
  assert.deepEqual(reached, ['describeWorkerDeployment orders ', 'describeWorkerDeployment orders next']);
  answer('describeWorkerDeployment orders next');
  await next;
});

test("a reconcile's tally counts each call by method and its waits: for a read token first, then for a slot, then for Temporal's answer", async () => {
  const timers = new FakeTimers();
  const budget = new TemporalReadBudget({ perSecond: 1, timers });
  const slots = new TemporalCallSlots({ perNamespace: 1, now: timers.now });
  const tally = new CallTally(timers.now);
  const { service, answer } = heldService();
  // A call of someone else holds the one slot.
  const other = slots.limited(service, 'temporal:7233').setWorkerDeploymentCurrentVersion({ namespace: 'orders' });
  const paced = budget.paced(
    slots.limited(tally.counting(service), 'temporal:7233', { waited: tally.slotWaited }),
    'temporal:7233',
    tally.tokenWaited,
  );
  const reads = [
    paced.describeWorkerDeployment({ namespace: 'orders', deploymentName: 'a' }),
    paced.describeWorkerDeployment({ namespace: 'orders', deploymentName: 'b' }),
  ];
  await settle();
  await timers.advance(1000);
  answer('setWorkerDeploymentCurrentVersion orders ');
  await other;
  await settle();
  await timers.advance(250);
  answer('describeWorkerDeployment orders a');
  await settle();
  await timers.advance(300);
  answer('describeWorkerDeployment orders b');
  await Promise.all(reads);
  assert.deepEqual([...tally.calls], [['describeWorkerDeployment', 2]]);
  assert.equal(tally.tokenWaitMs, 1000, "the second read's token, a second later");
  assert.equal(tally.slotWaitMs, 1000 + 250, 'the first behind the other call, the second behind the first');
  assert.equal(tally.callMs, 250 + 300);
});
