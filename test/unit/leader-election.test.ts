import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LeaderElector, type Lease, type LeaseApi } from '../../src/runtime/leader-election.ts';
import { FakeTimers } from '../support/fake-timers.ts';

/** One Lease with the API server's optimistic concurrency; `failure` makes every call fail or hang. */
class FakeLeaseApi implements LeaseApi {
  lease: Lease | undefined;
  reads = 0;
  writes = 0;
  failure: 'error' | 'hang' | undefined;
  private version = 0;

  read = (): Promise<Lease> =>
    this.call(() => {
      this.reads++;
      if (!this.lease) throw apiError(404);
      return structuredClone(this.lease);
    });

  create = (_namespace: string, body: Lease): Promise<Lease> =>
    this.call(() => {
      if (this.lease) throw apiError(409);
      return this.store(body);
    });

  replace = (_namespace: string, _name: string, body: Lease): Promise<Lease> =>
    this.call(() => {
      if (body.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) throw apiError(409);
      return this.store(body);
    });

  /** Another process writes itself in as holder. */
  holdAs(holder: string): void {
    this.store({
      metadata: { name: 'lease' },
      spec: { ...this.lease?.spec, holderIdentity: holder, leaseDurationSeconds: 15 },
    });
  }

  private store(body: Lease): Lease {
    this.writes++;
    // The JSON round trip is what the API server stores: dates become strings.
    this.lease = JSON.parse(
      JSON.stringify({ ...body, metadata: { ...body.metadata, resourceVersion: String(++this.version) } }),
    ) as Lease;
    return structuredClone(this.lease);
  }

  private async call<T>(run: () => T): Promise<T> {
    if (this.failure === 'hang') await new Promise(() => {});
    if (this.failure === 'error') throw apiError(500);
    return run();
  }
}

function apiError(code: number): Error {
  return Object.assign(new Error(`HTTP ${code}`), { code });
}

interface Candidate {
  elector: LeaderElector;
  events: string[];
}

/** The defaults: lease 15s, renew deadline 10s, renew every 5s, retry every 2s. */
function candidate(api: FakeLeaseApi, timers: FakeTimers, identity: string): Candidate {
  const events: string[] = [];
  const elector = new LeaderElector({
    api,
    namespace: 'ns',
    name: 'lease',
    identity,
    timers,
    onStartedLeading: () => events.push(`started at ${timers.now()}`),
    onStoppedLeading: (reason) => events.push(`stopped at ${timers.now()}: ${reason}`),
  });
  return { elector, events };
}

test('a candidate takes a Lease that does not exist, and renews it every renew period', async () => {
  const [api, timers] = [new FakeLeaseApi(), new FakeTimers()];
  const a = candidate(api, timers, 'a');
  a.elector.start();
  await timers.advance(0);
  assert.deepEqual(a.events, ['started at 0']);
  assert.equal(a.elector.isLeader, true);
  assert.equal(api.lease?.spec?.holderIdentity, 'a');
  assert.equal(api.lease?.spec?.leaseDurationSeconds, 15);
  assert.equal(api.lease?.spec?.leaseTransitions, 0);
  const acquired = api.lease?.spec?.acquireTime;
  await timers.advance(15_000);
  assert.equal(api.writes, 4, 'created, then renewed at 5s, 10s and 15s');
  assert.equal(
    String(api.lease?.spec?.renewTime),
    new Date(15_000).toISOString().replace('Z', '000Z'),
    'renewTime in microseconds',
  );
  assert.equal(api.lease?.spec?.acquireTime, acquired, 'a renewal keeps the acquire time');
  assert.equal(api.reads, 1, 'a renewal writes what the leader last wrote, without reading first (client-go)');
  await a.elector.stop();
});

test('of two candidates only one leads; when it releases the Lease the other leads at its next try', async () => {
  const [api, timers] = [new FakeLeaseApi(), new FakeTimers()];
  const a = candidate(api, timers, 'a');
  const b = candidate(api, timers, 'b');
  a.elector.start();
  b.elector.start();
  await timers.advance(20_000);
  assert.deepEqual([a.elector.isLeader, b.elector.isLeader], [true, false]);
  assert.deepEqual(b.events, [], 'a renews, so its lease never expires for b');
  await timers.advance(500);
  await a.elector.stop();
  assert.equal(api.lease?.spec?.holderIdentity, undefined, 'released');
  await timers.advance(2_000);
  assert.deepEqual(b.events, ['started at 22000']);
  assert.equal(api.lease?.spec?.leaseTransitions, 1);
  assert.deepEqual(a.events, ['started at 0'], 'a stopped on request: not a loss');
  await b.elector.stop();
});

test('a Lease whose holder stopped renewing is taken one lease duration after the candidate first saw it', async () => {
  const [api, timers] = [new FakeLeaseApi(), new FakeTimers()];
  await timers.advance(100_000); // the holder's renewTime is long past: only the candidate's own clock counts
  api.holdAs('gone');
  const b = candidate(api, timers, 'b');
  b.elector.start();
  await timers.advance(14_999);
  assert.deepEqual(b.events, []);
  await timers.advance(1_001);
  assert.deepEqual(b.events, ['started at 116000'], 'the first try at or after 15s');
  assert.equal(api.lease?.spec?.leaseTransitions, 1);
  await b.elector.stop();
});

test('a leader that finds another holder in the Lease at its next renewal stops leading at once', async () => {
  const [api, timers] = [new FakeLeaseApi(), new FakeTimers()];
  const a = candidate(api, timers, 'a');
  a.elector.start();
  await timers.advance(1_000);
  api.holdAs('usurper');
  await timers.advance(4_000);
  assert.deepEqual(a.events, ['started at 0', 'stopped at 5000: the lease is now held by usurper']);
  assert.equal(a.elector.isLeader, false);
  const writes = api.writes;
  await timers.advance(60_000);
  await a.elector.stop();
  assert.equal(api.writes, writes, 'it neither tries again nor releases what it no longer holds');
  assert.equal(api.lease?.spec?.holderIdentity, 'usurper');
});

for (const failure of ['error', 'hang'] as const) {
  test(`a leader whose renewals ${failure === 'error' ? 'fail' : 'hang'} stops leading at the renew deadline, before the lease expires for others`, async () => {
    const [api, timers] = [new FakeLeaseApi(), new FakeTimers()];
    const a = candidate(api, timers, 'a');
    a.elector.start();
    await timers.advance(5_000); // last renewal at 5s
    api.failure = failure;
    await timers.advance(9_999);
    assert.deepEqual(a.events, ['started at 0']);
    await timers.advance(1);
    assert.deepEqual(a.events, ['started at 0', 'stopped at 15000: the lease was not renewed within 10s']);
  });
}

test('failed renewals are retried: leadership survives them while the renew deadline allows', async () => {
  const [api, timers] = [new FakeLeaseApi(), new FakeTimers()];
  const a = candidate(api, timers, 'a');
  a.elector.start();
  await timers.advance(0);
  api.failure = 'error'; // the renewal at 5s fails, and so does its retry at 7s
  await timers.advance(8_000);
  assert.equal(api.writes, 1);
  api.failure = undefined; // the retry at 9s succeeds, 1s before the deadline
  await timers.advance(1_000);
  assert.equal(api.writes, 2, 'retried after the retry period, not the renew period');
  assert.equal(a.elector.isLeader, true);
  assert.deepEqual(a.events, ['started at 0']);
  await timers.advance(4_999);
  assert.equal(api.writes, 2);
  await timers.advance(1);
  assert.equal(api.writes, 3, 'renewed again a renew period after the success');
  await timers.advance(30_000);
  assert.deepEqual(a.events, ['started at 0'], 'the deadline counts from the last renewal');
  await a.elector.stop();
});

test('a renew period not shorter than the renew deadline is refused', () => {
  const options = { api: new FakeLeaseApi(), namespace: 'ns', name: 'lease', identity: 'a' };
  const callbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };
  assert.throws(
    () => new LeaderElector({ ...options, ...callbacks, renewPeriodMs: 10_000 }),
    /the renew period must be shorter than the renew deadline/,
  );
});
