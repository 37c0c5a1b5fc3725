import { msToTs } from '@temporalio/common/lib/time.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDeployment } from '../../src/temporal/deployment-state.ts';
import {
  DrainageRechecks,
  FIRST_RECHECK_MS,
  MAX_RECHECK_INTERVAL_MS,
  recheckDue,
} from '../../src/temporal/drainage-rechecks.ts';
import { enums, type WorkflowService } from '../../src/temporal/protocol.ts';
import { FakeTimers } from '../support/fake-timers.ts';

const { VersionDrainageStatus } = enums;
const { VERSION_DRAINAGE_STATUS_DRAINING: DRAINING, VERSION_DRAINAGE_STATUS_DRAINED: DRAINED } = VersionDrainageStatus;
const MINUTE = 60_000;

test('a build listed as draining is read from its record from 30 s on, then every quarter of its draining time, at least every 10 minutes', () => {
  assert.equal(FIRST_RECHECK_MS, 30_000);
  assert.equal(MAX_RECHECK_INTERVAL_MS, 10 * MINUTE);
  const cases: [since: number, lastRead: number | undefined, now: number, due: boolean][] = [
    [0, undefined, 29_999, false],
    [0, undefined, 30_000, true],
    [0, 30_000, 59_999, false],
    [0, 30_000, 60_000, true],
    // Draining 20 minutes: every 5.
    [0, 15 * MINUTE, 20 * MINUTE - 1, false],
    [0, 15 * MINUTE, 20 * MINUTE, true],
    // Draining a week: every 10 minutes, not every 42 hours.
    [0, 7 * 24 * 60 * MINUTE - 10 * MINUTE, 7 * 24 * 60 * MINUTE, true],
  ];
  for (const [since, lastRead, now, due] of cases)
    assert.equal(recheckDue(since, lastRead, now), due, JSON.stringify({ since, lastRead, now }));
});

/**
 * A server whose deployment list says `listed` for each build, changed at `listedAt` (default
 * 100 s), and each build's record says `own`. Change them and the server answers the change.
 */
function server(
  listed: Record<string, number | 'current'>,
  own: Record<string, number>,
  listedAt: Record<string, number> = {},
) {
  const calls: string[] = [];
  const service = {
    describeWorkerDeployment: () => {
      calls.push('describeWorkerDeployment');
      const summaries = Object.entries(listed).map(([buildId, drainage]) => ({
        deploymentVersion: { deploymentName: 'ns/orders', buildId },
        ...(drainage === 'current'
          ? {}
          : { drainageInfo: { status: drainage, lastChangedTime: msToTs(listedAt[buildId] ?? 100_000) } }),
      }));
      const current = Object.keys(listed).find((b) => listed[b] === 'current');
      return Promise.resolve({
        workerDeploymentInfo: {
          versionSummaries: summaries,
          routingConfig: current ? { currentDeploymentVersion: { deploymentName: 'ns/orders', buildId: current } } : {},
        },
      });
    },
    describeWorkerDeploymentVersion: (request: { deploymentVersion: { buildId: string } }) => {
      const { buildId } = request.deploymentVersion;
      calls.push(`describeWorkerDeploymentVersion ${buildId}`);
      return Promise.resolve({
        workerDeploymentVersionInfo: {
          drainageInfo: { status: own[buildId], lastChangedTime: msToTs(200_000) },
        },
      });
    },
  } as unknown as WorkflowService;
  return { service, calls };
}

test("a build the list keeps at Draining while its record says Drained is Drained, from the record's time, after one read", async () => {
  const timers = new FakeTimers();
  const corrected: string[] = [];
  const rechecks = new DrainageRechecks((deployment, build) => corrected.push(`${deployment} ${build}`), timers);
  const { service, calls } = server({ stuck: DRAINING, done: DRAINED, live: 'current' }, { stuck: DRAINED });
  const describe = () => describeDeployment(rechecks.checking(service, 'temporal:7233'), 'default', 'ns/orders');

  const first = await describe();
  assert.equal(first.versions.find((v) => v.buildId === 'stuck')?.status, 'Draining', 'not read before 30 s');
  await timers.advance(FIRST_RECHECK_MS);
  const second = await describe();
  assert.partialDeepStrictEqual(
    second.versions.find((v) => v.buildId === 'stuck'),
    {
      status: 'Drained',
      drainedSince: new Date(200_000),
    },
  );
  await timers.advance(FIRST_RECHECK_MS - 1);
  assert.equal((await describe()).versions.find((v) => v.buildId === 'stuck')?.status, 'Drained', 'kept');
  await timers.advance(1);
  assert.equal((await describe()).versions.find((v) => v.buildId === 'stuck')?.status, 'Drained', 'read, and kept');
  assert.deepEqual(calls, [
    'describeWorkerDeployment',
    'describeWorkerDeployment',
    // Only the build listed as draining, and only when due: its record's Drained is kept meanwhile.
    'describeWorkerDeploymentVersion stuck',
    'describeWorkerDeployment',
    'describeWorkerDeployment',
    'describeWorkerDeploymentVersion stuck',
  ]);
  assert.deepEqual(corrected, ['ns/orders stuck'], 'said once');
});

test('a build whose record says Draining too stays Draining, and is read again only when due; another server is another memory', async () => {
  const timers = new FakeTimers();
  const rechecks = new DrainageRechecks(() => assert.fail('nothing to correct'), timers);
  const { service, calls } = server({ slow: DRAINING }, { slow: DRAINING });
  const describe = (address: string) => describeDeployment(rechecks.checking(service, address), 'default', 'ns/orders');
  await describe('temporal:7233');
  await timers.advance(FIRST_RECHECK_MS);
  assert.equal((await describe('temporal:7233')).versions[0]?.status, 'Draining');
  await timers.advance(FIRST_RECHECK_MS - 1);
  await describe('temporal:7233');
  await describe('elsewhere:7233');
  await timers.advance(1);
  await describe('temporal:7233');
  assert.deepEqual(
    calls.filter((c) => c !== 'describeWorkerDeployment'),
    ['describeWorkerDeploymentVersion slow', 'describeWorkerDeploymentVersion slow'],
    'at 30 s and 60 s; none for a server that has seen it draining for no time',
  );
});

test('a build whose record said Drained and drains again (an override pinned workflows to it) is Draining again by its next read, at most 10 minutes on', async () => {
  const timers = new FakeTimers();
  const rechecks = new DrainageRechecks(() => {}, timers);
  const own = { again: DRAINED };
  const { service, calls } = server({ again: DRAINING }, own);
  const describe = async () =>
    (await describeDeployment(rechecks.checking(service, 'temporal:7233'), 'default', 'ns/orders')).versions[0]?.status;
  await describe();
  await timers.advance(FIRST_RECHECK_MS);
  assert.equal(await describe(), 'Drained');
  own.again = DRAINING;
  // Draining for a day as this process saw it: its record is read every 10 minutes.
  await timers.advance(24 * 60 * MINUTE);
  assert.equal(await describe(), 'Draining', "the record's own word, read again");
  await timers.advance(MAX_RECHECK_INTERVAL_MS - 1);
  assert.equal(await describe(), 'Draining');
  assert.equal(calls.filter((c) => c !== 'describeWorkerDeployment').length, 2, 'read when due only');
});

test("a change of the list's line for a build its record called Drained has the record read at once", async () => {
  const timers = new FakeTimers();
  const rechecks = new DrainageRechecks(() => {}, timers);
  const own = { again: DRAINED };
  const listedAt = { again: 100_000 };
  const { service, calls } = server({ again: DRAINING }, own, listedAt);
  const describe = async () =>
    (await describeDeployment(rechecks.checking(service, 'temporal:7233'), 'default', 'ns/orders')).versions[0]?.status;
  await describe();
  await timers.advance(FIRST_RECHECK_MS);
  assert.equal(await describe(), 'Drained');
  assert.equal(await describe(), 'Drained', 'not read again: nothing changed');
  own.again = DRAINING;
  listedAt.again = 300_000;
  assert.equal(await describe(), 'Draining');
  assert.equal(calls.filter((c) => c !== 'describeWorkerDeployment').length, 2);
});

test('a deployment forgotten (deleted) keeps nothing: described again, it starts over', async () => {
  const timers = new FakeTimers();
  const rechecks = new DrainageRechecks(() => {}, timers);
  const { service } = server({ stuck: DRAINING }, { stuck: DRAINED });
  const describe = async () =>
    (await describeDeployment(rechecks.checking(service, 'temporal:7233'), 'default', 'ns/orders')).versions[0]?.status;
  await describe();
  await timers.advance(FIRST_RECHECK_MS);
  assert.equal(await describe(), 'Drained');
  rechecks.forget('ns/other');
  assert.equal(await describe(), 'Drained', "another deployment's forgetting leaves it");
  rechecks.forget('ns/orders');
  assert.equal(await describe(), 'Draining', 'seen draining for no time: not read, nothing remembered');
});

test("a change's describe reads no record: one read before still counts, one whose list line changed since is not believed, and the next routine look reads what is due", async () => {
  const timers = new FakeTimers();
  const rechecks = new DrainageRechecks(() => {}, timers);
  const own = { again: DRAINED };
  const listedAt = { again: 100_000 };
  const { service, calls } = server({ again: DRAINING }, own, listedAt);
  const describe = async (reads: boolean) =>
    (await describeDeployment(rechecks.checking(service, 'temporal:7233', reads), 'default', 'ns/orders')).versions[0]
      ?.status;
  const records = () => calls.filter((c) => c !== 'describeWorkerDeployment').length;
  await describe(true);
  await timers.advance(FIRST_RECHECK_MS);
  assert.equal(await describe(false), 'Draining', 'due, but a change does not read it');
  assert.equal(records(), 0);
  assert.equal(await describe(true), 'Drained', 'the routine look reads it');
  assert.equal(await describe(false), 'Drained', 'read before: it counts');
  own.again = DRAINING;
  listedAt.again = 300_000;
  assert.equal(await describe(false), 'Draining', 'the list line changed: not believed, not read');
  assert.equal(records(), 1);
  assert.equal(await describe(true), 'Draining', 'read at once by the next routine look');
  assert.equal(records(), 2);
});
