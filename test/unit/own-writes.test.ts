// A reconcile right after the controller's own status write decides on that write until the
// informer shows it, and on the cache again once it shows that write or a later change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OwnWrites } from '../../src/runtime/own-writes.ts';

interface Stored {
  metadata: { namespace: string; name: string; resourceVersion: string };
  status?: { gateFailure?: string };
}

const at = (resourceVersion: string, status?: Stored['status']): Stored => ({
  metadata: { namespace: 'shop', name: 'orders', resourceVersion },
  ...(status ? { status } : {}),
});

test('the written object stands in for the copy it replaced, until the cache holds another version', () => {
  const writes = new OwnWrites<Stored>();
  const before = at('10');
  assert.equal(writes.newest(before), before, 'nothing written: the cache');
  const written = at('11', { gateFailure: 'step-2' });
  writes.wrote('10', written);
  assert.equal(writes.newest(before), written, 'the cache still holds the replaced version');
  assert.equal(writes.newest(at('10')), written, 'whichever copy of it');
  const caughtUp = at('11', { gateFailure: 'step-2' });
  assert.equal(writes.newest(caughtUp), caughtUp, 'the cache shows the write');
  assert.equal(writes.newest(before), before, 'and the write is forgotten');

  writes.wrote('11', at('12'));
  const specChanged = at('13');
  assert.equal(writes.newest(specChanged), specChanged, 'a later change in the cache wins');
  assert.equal(writes.newest(undefined), undefined, 'deleted');

  writes.wrote('13', at('14'));
  writes.forget('shop', 'orders');
  assert.equal(writes.newest(specChanged), specChanged, 'forgotten on deletion');
  writes.wrote(undefined, at('15'));
  assert.equal(writes.newest(specChanged), specChanged, 'a write without a version it replaced is not kept');
});

test('writes that follow one another faster than the informer: the last stands in for every version the chain replaced', () => {
  const writes = new OwnWrites<Stored>();
  const stale = at('10');
  const first = at('11', { gateFailure: 'step-2' });
  writes.wrote('10', first);
  // The next reconcile decided on the first write and wrote again; the cache still holds 10.
  const second = at('12', { gateFailure: 'step-2' });
  writes.wrote('11', second);
  assert.equal(writes.newest(stale), second, 'the cache two writes behind');
  assert.equal(writes.newest(at('11')), second, 'the cache one write behind');
  const caughtUp = at('12');
  assert.equal(writes.newest(caughtUp), caughtUp, 'caught up');
  assert.equal(writes.newest(stale), stale, 'forgotten once caught up');

  writes.wrote('20', at('21'));
  writes.wrote('30', at('31'));
  const older = at('20');
  assert.equal(writes.newest(older), older, 'a write over another version starts a new chain');
});

test('the informer showing a later version lets the writes go without a reconcile asking', () => {
  const writes = new OwnWrites<Stored>();
  const written = at('11', { gateFailure: 'step-2' });
  writes.wrote('10', written);
  writes.seen(at('10'));
  assert.equal(writes.newest(at('10')), written, 'a version the write replaced: kept');
  writes.seen(at('11'));
  const stale = at('10');
  assert.equal(writes.newest(stale), stale, 'shown the write: let go');
});
