// twc move: the spec change it makes (spec.sunset.pinnedWorkflows.moveFrom), and every refusal with its reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { moveControl } from '../../src/cli/move-control.ts';

function twd(spec: object = {}, status: object = {}): TemporalWorkerDeployment {
  return {
    metadata: { name: 'orders', namespace: 'shop', generation: 3, resourceVersion: '42' },
    spec: { rollout: { strategy: 'Progressive' }, ...spec },
    status: {
      targetVersion: { buildID: 'v3', status: 'Inactive' },
      currentVersion: { buildID: 'v2', status: 'Current' },
      deprecatedVersions: [{ buildID: 'v1', status: 'Draining' }],
      ...status,
    },
  } as unknown as TemporalWorkerDeployment;
}

test("move asks for an old build's, or an aborted target's, pinned workflows to move onto the current build", () => {
  const asked = {
    patch: { metadata: { resourceVersion: '42' }, spec: { sunset: { pinnedWorkflows: { moveFrom: 'v1' } } } },
    says: "shop/orders: the pinned workflows of build v1 that build v2's code replays are moved onto it, in rounds; the status of build v1 (pinnedWorkflows.move) says what moved and what stays",
  };
  assert.deepEqual(moveControl(twd(), { from: 'v1' }), asked);
  assert.deepEqual(moveControl(twd(), { from: 'v1', to: 'v2' }), asked, '--to naming the current build');
  const aborted = moveControl(twd({ rollout: { strategy: 'Progressive', abort: 'v3' } }), { from: 'v3' });
  assert.ok('patch' in aborted);
  const failed = moveControl(
    twd({}, { failedBuilds: [{ buildID: 'v3', reason: 'GateFailed', message: 'x', at: '' }] }),
    {
      from: 'v3',
    },
  );
  assert.ok('patch' in failed, 'a target that failed its gate');
});

test('move refuses where it means nothing, saying why', () => {
  const refusals: [TemporalWorkerDeployment, { from: string; to?: string }, string][] = [
    [twd({}, { currentVersion: undefined }), { from: 'v1' }, 'has no current build'],
    [twd(), { from: 'v1', to: 'v3' }, 'workflows move onto the current build only, build v2'],
    [twd(), { from: 'v2' }, 'build v2 is current'],
    [twd(), { from: 'v0' }, 'build v0 has no workers here: its builds with workers are v3, v1'],
    [twd(), { from: 'v3' }, 'build v3 is the target of a rollout under way: abort it first (twc abort orders)'],
    [
      twd({ sunset: { pinnedWorkflows: { moveFrom: 'v1' } } }),
      { from: 'v1' },
      'the pinned workflows of build v1 are already being moved',
    ],
  ];
  for (const [object, options, why] of refusals) {
    const decision = moveControl(object, options);
    assert.ok('refusal' in decision, why);
    assert.ok(decision.refusal.startsWith(`shop/orders: ${why}`), decision.refusal);
  }
});
