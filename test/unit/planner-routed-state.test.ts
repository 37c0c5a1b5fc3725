// Temporal's state once a routing change succeeded (routedState), without reading it again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import { routedState } from '../../src/planner/routing.ts';

const changedAt = new Date('2026-11-22T11:00:00Z');
const token = new Uint8Array([1, 2]);
/** v1 current, v2 ramping at 10 %, v3 registered, v0 drained. */
const ramping: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v1',
  rampingBuildId: 'v2',
  rampPercentage: 10,
  rampChangedAt: changedAt,
  conflictToken: token,
  managerIdentity: 'someone',
  lastModifierIdentity: 'someone',
  versions: [
    { buildId: 'v0', status: 'Drained', everActive: true },
    { buildId: 'v1', status: 'Current', everActive: true },
    { buildId: 'v2', status: 'Ramping', everActive: true },
    { buildId: 'v3', status: 'Inactive', everActive: false },
  ],
};

test('no change, or a wait, leaves the state as it is', () => {
  assert.equal(routedState(ramping, { action: 'none', reason: 'x' }, 'me'), ramping);
  assert.equal(routedState(ramping, { action: 'wait', reason: 'x' }, 'me'), ramping);
});

test('a promotion clears the ramp; the builds that stop routing start draining; the token is spent', () => {
  assert.deepEqual(routedState(ramping, { action: 'setCurrent', buildId: 'v3', reason: 'x' }, 'me'), {
    exists: true,
    currentBuildId: 'v3',
    managerIdentity: 'someone',
    lastModifierIdentity: 'me',
    versions: [
      { buildId: 'v0', status: 'Drained', everActive: true },
      { buildId: 'v1', status: 'Draining', everActive: true },
      { buildId: 'v2', status: 'Draining', everActive: true },
      { buildId: 'v3', status: 'Current', everActive: true },
    ],
  });
});

test('a new ramp: its time is left for Temporal to say; the controller becomes manager when nobody is', () => {
  const unmanaged: TemporalDeploymentState = { ...ramping };
  delete unmanaged.managerIdentity;
  assert.deepEqual(routedState(unmanaged, { action: 'setRamp', buildId: 'v3', percentage: 50, reason: 'x' }, 'me'), {
    exists: true,
    currentBuildId: 'v1',
    rampingBuildId: 'v3',
    rampPercentage: 50,
    managerIdentity: 'me',
    lastModifierIdentity: 'me',
    versions: [
      { buildId: 'v0', status: 'Drained', everActive: true },
      { buildId: 'v1', status: 'Current', everActive: true },
      { buildId: 'v2', status: 'Draining', everActive: true },
      { buildId: 'v3', status: 'Ramping', everActive: true },
    ],
  });
});

test('clearing the ramp drains the ramping build and keeps the current one', () => {
  assert.deepEqual(routedState(ramping, { action: 'clearRamp', reason: 'x' }, 'me'), {
    exists: true,
    currentBuildId: 'v1',
    managerIdentity: 'someone',
    lastModifierIdentity: 'me',
    versions: [
      { buildId: 'v0', status: 'Drained', everActive: true },
      { buildId: 'v1', status: 'Current', everActive: true },
      { buildId: 'v2', status: 'Draining', everActive: true },
      { buildId: 'v3', status: 'Inactive', everActive: false },
    ],
  });
});

test('the first promotion of a deployment without a current build', () => {
  const fresh: TemporalDeploymentState = {
    exists: true,
    versions: [{ buildId: 'v1', status: 'Inactive', everActive: false }],
  };
  assert.deepEqual(routedState(fresh, { action: 'setCurrent', buildId: 'v1', reason: 'x' }, 'me'), {
    exists: true,
    currentBuildId: 'v1',
    managerIdentity: 'me',
    lastModifierIdentity: 'me',
    versions: [{ buildId: 'v1', status: 'Current', everActive: true }],
  });
  const ramp = routedState(fresh, { action: 'setRamp', buildId: 'v1', percentage: 10, reason: 'x' }, 'me');
  assert.equal('currentBuildId' in ramp, false);
  assert.equal(ramp.rampingBuildId, 'v1');
});
