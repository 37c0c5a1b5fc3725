// When an old build stopped being current or ramping, which the ladder's delays count from: the
// server's word first, then the status's, then now for a build last seen active; never for a
// build that never took traffic.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import type { TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import { deactivationTimes } from '../../src/status/pinned-workflows.ts';

const now = new Date('2026-11-25T12:00:00Z');
const earlier = new Date('2026-11-25T11:00:00Z');
const temporal: TemporalDeploymentState = {
  exists: true,
  currentBuildId: 'v4',
  rampingBuildId: 'v5',
  versions: [
    { buildId: 'v0', status: 'Inactive', everActive: false },
    { buildId: 'v1', status: 'Draining', everActive: true, deactivatedAt: earlier },
    { buildId: 'v2', status: 'Draining', everActive: true },
    { buildId: 'v3', status: 'Inactive', everActive: false },
    { buildId: 'v4', status: 'Current', everActive: true },
    { buildId: 'v5', status: 'Ramping', everActive: true },
    { buildId: 'v6', status: 'Draining', everActive: true },
  ],
};

test('deactivation times: the server’s, the status’s, now for a build last seen active, none for one never active', () => {
  const previous: TemporalWorkerDeployment['status'] = {
    currentVersion: { buildID: 'v3', status: 'Current' },
    targetVersion: { buildID: 'v5', status: 'Ramping', rampPercentage: 10 },
    deprecatedVersions: [
      { buildID: 'v1', status: 'Draining', deactivatedAt: '2026-11-25T10:00:00Z' },
      { buildID: 'v2', status: 'Draining', deactivatedAt: '2026-11-25T10:30:00Z' },
    ],
  };
  assert.deepEqual(deactivationTimes(previous, temporal, now), {
    v1: earlier,
    v2: new Date('2026-11-25T10:30:00Z'),
    v3: now,
    v6: now,
  });
  assert.deepEqual(deactivationTimes(undefined, temporal, now), { v1: earlier, v2: now, v6: now });
});
