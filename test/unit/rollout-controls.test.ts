// twc pause, resume, promote and abort: the spec change each makes, and every refusal with its reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { rolloutControl } from '../../src/cli/rollout-controls.ts';

function twd(rollout: object | undefined, status: object = {}, more: { cutover?: boolean; observed?: number } = {}) {
  return {
    metadata: { name: 'orders', namespace: 'shop', generation: 3, resourceVersion: '42' },
    spec: rollout === undefined ? {} : { [more.cutover ? 'cutover' : 'rollout']: rollout },
    status: {
      observedGeneration: more.observed ?? 3,
      targetVersion: { buildID: 'v2', status: 'Ramping' },
      currentVersion: { buildID: 'v1', status: 'Current' },
      ...status,
    },
  } as unknown as TemporalWorkerDeployment;
}

const progressive = { strategy: 'Progressive', steps: [{ rampPercentage: 10, pauseDuration: '1m' }] };

test('pause and resume set and remove spec.rollout.paused, on the object as read', () => {
  assert.deepEqual(rolloutControl('pause', twd(progressive)), {
    patch: { metadata: { resourceVersion: '42' }, spec: { rollout: { paused: true } } },
    says: 'shop/orders: paused: no change moves new workflows toward the target until `twc resume`',
  });
  assert.deepEqual(rolloutControl('resume', twd({ ...progressive, paused: true })), {
    patch: { metadata: { resourceVersion: '42' }, spec: { rollout: { paused: null } } },
    says: 'shop/orders: resumed',
  });
  assert.deepEqual(
    rolloutControl('pause', twd(progressive, {}, { cutover: true })),
    {
      patch: { metadata: { resourceVersion: '42' }, spec: { cutover: { paused: true } } },
      says: 'shop/orders: paused: no change moves new workflows toward the target until `twc resume`',
    },
    'an object written with the deprecated name is changed under that name',
  );
  assert.deepEqual(
    rolloutControl('pause', twd(undefined)),
    {
      patch: { metadata: { resourceVersion: '42' }, spec: { rollout: { strategy: 'AllAtOnce', paused: true } } },
      says: 'shop/orders: paused: no change moves new workflows toward the target until `twc resume`',
    },
    'without spec.rollout, its default is written with it',
  );
});

test('promote and abort name the target the controller observed', () => {
  assert.deepEqual(rolloutControl('promote', twd(progressive)), {
    patch: { metadata: { resourceVersion: '42' }, spec: { rollout: { promote: 'v2' } } },
    says: 'shop/orders: build v2 is promoted: the remaining steps go without their pauses, each gate still runs',
  });
  assert.deepEqual(rolloutControl('promote', twd({ strategy: 'Manual' }), { build: 'v2' }), {
    patch: { metadata: { resourceVersion: '42' }, spec: { rollout: { promote: 'v2' } } },
    says: 'shop/orders: build v2 is promoted: it becomes current once available and past its gate',
  });
  assert.deepEqual(rolloutControl('abort', twd({ strategy: 'AllAtOnce' })), {
    patch: { metadata: { resourceVersion: '42' }, spec: { rollout: { abort: 'v2' } } },
    says: 'shop/orders: the rollout of build v2 is aborted: its ramp is cleared',
  });
});

test('each refusal says why', () => {
  const refusal = (decision: ReturnType<typeof rolloutControl>) => ('refusal' in decision ? decision.refusal : '');
  const cases: [ReturnType<typeof rolloutControl>, string][] = [
    [rolloutControl('resume', twd(progressive)), 'shop/orders: is not paused'],
    [
      rolloutControl('pause', twd({ strategy: 'Manual' })),
      'shop/orders: uses the Manual strategy, which moves no traffic: there is nothing to pause',
    ],
    [
      rolloutControl('abort', twd({ strategy: 'Manual' })),
      'shop/orders: uses the Manual strategy, which moves no traffic: there is nothing to abort',
    ],
    [rolloutControl('pause', twd({ ...progressive, paused: true })), 'shop/orders: is already paused'],
    [
      rolloutControl('promote', twd(progressive, {}, { observed: 2 })),
      'shop/orders: the controller has not observed generation 3 yet: its target is not known; try again in a moment',
    ],
    [rolloutControl('promote', twd(progressive, { targetVersion: undefined })), 'shop/orders: has no target build yet'],
    [
      rolloutControl('promote', twd(progressive), { build: 'v9' }),
      'shop/orders: build v9 is not the target: the target is build v2',
    ],
    [
      rolloutControl('promote', twd(progressive, { currentVersion: { buildID: 'v2', status: 'Current' } })),
      'shop/orders: build v2 is already current',
    ],
    [
      rolloutControl('abort', twd(progressive, { currentVersion: { buildID: 'v2', status: 'Current' } })),
      'shop/orders: build v2 is already current: to go back, set the template of the build to run',
    ],
    [
      rolloutControl('promote', twd({ strategy: 'AllAtOnce' })),
      'shop/orders: uses AllAtOnce, which promotes build v2 as soon as it is available and past its gate',
    ],
    [rolloutControl('promote', twd({ ...progressive, paused: true })), 'shop/orders: is paused: `twc resume` it first'],
    [
      rolloutControl('promote', twd({ ...progressive, abort: 'v2' })),
      'shop/orders: the rollout of build v2 is aborted: change the template to go on',
    ],
    [
      rolloutControl('promote', twd({ ...progressive, promote: 'v2' })),
      'shop/orders: build v2 is already being promoted',
    ],
    [
      rolloutControl('abort', twd({ ...progressive, abort: 'v2' })),
      'shop/orders: the rollout of build v2 is already aborted',
    ],
  ];
  for (const [decision, expected] of cases) assert.equal(refusal(decision), expected);
});
