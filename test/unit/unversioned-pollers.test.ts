// When Temporal is asked about unversioned pollers, and which pollers count as unversioned.
import proto from '@temporalio/proto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Rollout } from '../../src/api/temporal-worker-deployment.ts';
import type { VersionStatus } from '../../src/domain/snapshot.ts';
import {
  decideRouting,
  type PollersMatterInput,
  type RoutingDecision,
  unversionedPollersMatter,
} from '../../src/planner/routing.ts';
import { isUnversionedPoller } from '../../src/temporal/task-queues.ts';

const { WorkerVersioningMode } = proto.temporal.api.enums.v1;
const now = new Date('2026-11-22T12:00:00Z');
const progressive: Rollout = { strategy: 'Progressive', steps: [{ rampPercentage: 10, pauseDuration: '5m' }] };
const rollouts: Rollout[] = [{ strategy: 'Manual' }, { strategy: 'AllAtOnce' }, progressive];
const statuses: VersionStatus[] = ['NotRegistered', 'Inactive', 'Ramping', 'Current', 'Draining', 'Drained'];

const cases: [string, PollersMatterInput, boolean][] = [
  [
    'Progressive, no current, registered and available target',
    { strategy: 'Progressive', target: { status: 'Inactive', healthy: true } },
    true,
  ],
  [
    'Progressive, no current, target already ramping (it may go on ramping or be promoted)',
    { strategy: 'Progressive', target: { status: 'Ramping', healthy: true } },
    true,
  ],
  [
    'a current build exists',
    { strategy: 'Progressive', currentBuildId: 'v1', target: { status: 'Inactive', healthy: true } },
    false,
  ],
  ['AllAtOnce promotes either way', { strategy: 'AllAtOnce', target: { status: 'Inactive', healthy: true } }, false],
  ['Manual never routes', { strategy: 'Manual', target: { status: 'Inactive', healthy: true } }, false],
  [
    'the target has not registered: it waits either way',
    { strategy: 'Progressive', target: { status: 'NotRegistered', healthy: true } },
    false,
  ],
  [
    'the target is not available: it waits either way',
    { strategy: 'Progressive', target: { status: 'Inactive', healthy: false } },
    false,
  ],
  ['no target known at all', { strategy: 'Progressive' }, false],
];

for (const [name, input, expected] of cases) {
  test(`unversioned pollers matter: ${name} -> ${expected}`, () =>
    assert.equal(unversionedPollersMatter(input), expected));
}

test('whenever unversioned pollers are said not to matter, the routing change does not depend on them', () => {
  for (const rollout of rollouts) {
    for (const status of statuses) {
      for (const healthy of [true, false]) {
        for (const currentBuildId of [undefined, 'v1']) {
          const matters = unversionedPollersMatter({
            strategy: rollout.strategy,
            currentBuildId,
            target: { status, healthy },
          });
          const decide = (unversionedPollersConfirmed: boolean) => {
            const decision: Partial<RoutingDecision> = decideRouting({
              now,
              rollout,
              target: { buildId: 'v2', status, healthy, gate: 'passed' },
              routing: { ...(currentBuildId ? { currentBuildId } : {}), unversionedPollersConfirmed },
              rollbackWindowMs: 3_600_000,
            });
            delete decision.reason;
            return decision;
          };
          if (!matters)
            assert.deepEqual(
              decide(true),
              decide(false),
              `${rollout.strategy} ${status} healthy=${healthy} current=${currentBuildId}`,
            );
        }
      }
    }
  }
});

const pollers: [string, proto.temporal.api.taskqueue.v1.IPollerInfo, boolean][] = [
  ['no deployment options: an unversioned worker', { identity: 'w' }, true],
  [
    'deployment options with versioning off',
    {
      deploymentOptions: {
        deploymentName: 'd',
        buildId: 'b',
        workerVersioningMode: WorkerVersioningMode.WORKER_VERSIONING_MODE_UNVERSIONED,
      },
    },
    true,
  ],
  [
    'a versioned worker',
    {
      deploymentOptions: {
        deploymentName: 'd',
        buildId: 'b',
        workerVersioningMode: WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED,
      },
    },
    false,
  ],
];

for (const [name, poller, expected] of pollers) {
  test(`poller: ${name} -> unversioned=${expected}`, () => assert.equal(isUnversionedPoller(poller), expected));
}
