// The demand for backlog figures on a clock moved by hand: a build is wanted from the moment it is
// asked for until `lapseMs` after the last ask, alone or with every build (a scrape); an ask says
// when it starts a build's demand, so that its read can go at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BacklogDemand } from '../../src/controller/backlog-demand.ts';

const LAPSE_MS = 120_000;

function clock() {
  const time = { now: 0 };
  return { time, demand: new BacklogDemand({ lapseMs: LAPSE_MS, now: () => time.now }) };
}

test('a build nobody asked for is not wanted; one asked for is, until the demand lapses after its last ask', () => {
  const { time, demand } = clock();
  assert.equal(demand.wanted('shop/orders/v1'), false, 'nothing asked: nothing read');
  assert.equal(demand.ask(['shop/orders/v1']), true, 'the first ask starts the demand');
  assert.equal(demand.wanted('shop/orders/v1'), true);
  assert.equal(demand.wanted('shop/orders/v2'), false, 'another build is not asked for by it');
  time.now = 60_000;
  assert.equal(demand.ask(['shop/orders/v1']), false, 'asked again while wanted: no new start');
  time.now = 60_000 + LAPSE_MS - 1;
  assert.equal(demand.wanted('shop/orders/v1'), true, 'each ask keeps it wanted for the whole lapse');
  time.now = 60_000 + LAPSE_MS;
  assert.equal(demand.wanted('shop/orders/v1'), false, 'lapsed');
  assert.equal(demand.ask(['shop/orders/v1', 'shop/orders/v2']), true, 'asked again after it lapsed: it starts again');
});

test('an ask of every build (a scrape) wants each, known or not, and lapses as one', () => {
  const { time, demand } = clock();
  demand.ask(['shop/orders/v1']);
  time.now = 100_000;
  assert.equal(demand.askEvery(), true);
  assert.equal(demand.askEvery(), false, 'a second scrape within the lapse starts nothing');
  assert.equal(demand.wanted('shop/refunds/v9'), true, 'a build never asked for alone');
  time.now = 100_000 + LAPSE_MS;
  assert.equal(demand.wanted('shop/refunds/v9'), false);
  assert.equal(demand.wanted('shop/orders/v1'), false, 'its own ask lapsed before');
  assert.equal(demand.ask(['shop/orders/v1']), true);
});
