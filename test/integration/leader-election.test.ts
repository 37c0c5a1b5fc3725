import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CoordinationV1Api } from '@kubernetes/client-node';
import {
  LeaderElector,
  type LeaderElectionOptions,
  type LeaseApi,
  leaseApi,
} from '../../src/runtime/leader-election.ts';
import { eventually, kubeConfig, kubernetesApi, testNamespace, uniqueName } from '../support/environment.ts';

interface Candidate {
  elector: LeaderElector;
  identity: string;
  startedAt?: number;
  stopped?: { at: number; reason: string };
}

/** An elector on the test's Lease, stopped (and so releasing) when the test ends. */
function candidate(
  t: TestContext,
  namespace: string,
  name: string,
  timings: Partial<LeaderElectionOptions>,
  api: LeaseApi = leaseApi(kubernetesApi(t)),
): Candidate {
  const identity = uniqueName('candidate');
  const result: Candidate = {
    identity,
    elector: new LeaderElector({
      api,
      namespace,
      name,
      identity,
      ...timings,
      onStartedLeading: () => (result.startedAt = Date.now()),
      onStoppedLeading: (reason) => (result.stopped = { at: Date.now(), reason }),
    }),
  };
  t.after(() => result.elector.stop());
  result.elector.start();
  return result;
}

/** Waits for a condition on local state. */
function until<T>(what: string, check: () => T | undefined, timeoutMs: number): Promise<T> {
  return eventually(what, () => Promise.resolve(check()), timeoutMs);
}

async function lease(namespace: string, name: string) {
  return kubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace, name });
}

test('two candidates on one Lease: one leads, and when it releases the Lease the other leads without waiting for expiry', async (t) => {
  const namespace = await testNamespace(t, 'lease');
  const name = uniqueName('lease');
  // A long lease: taking over on release must not wait for it.
  const timings = { leaseDurationMs: 30_000, renewDeadlineMs: 20_000, renewPeriodMs: 250, retryPeriodMs: 250 };
  const a = candidate(t, namespace, name, timings);
  const b = candidate(t, namespace, name, timings);
  const [leader, other] = await until(
    'a leader',
    () => (a.elector.isLeader ? [a, b] : b.elector.isLeader ? [b, a] : undefined),
    10_000,
  );
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(other.elector.isLeader, false, 'never two leaders');
  }
  assert.equal((await lease(namespace, name)).spec?.holderIdentity, leader.identity);

  await leader.elector.stop();
  await until('the other to lead', () => other.elector.isLeader || undefined, 10_000);
  const after = await lease(namespace, name);
  assert.equal(after.spec?.holderIdentity, other.identity);
  assert.equal(after.spec?.leaseTransitions, 1);
  assert.equal(leader.stopped, undefined, 'a stop on request is not a loss');
});

test('when the leader stops renewing, it stops leading at its renew deadline, and the other leads after the lease duration', async (t) => {
  const namespace = await testNamespace(t, 'lease');
  const name = uniqueName('lease');
  const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, renewPeriodMs: 250, retryPeriodMs: 250 };
  const real = leaseApi(kubernetesApi(t));
  let cutOff = false;
  // The first candidate's API calls fail once cut off, as in a crash or a partition.
  const failing = (): Promise<never> => Promise.reject(new Error('cut off'));
  const cuttable: LeaseApi = {
    read: (...request) => (cutOff ? failing() : real.read(...request)),
    create: (...request) => (cutOff ? failing() : real.create(...request)),
    replace: (...request) => (cutOff ? failing() : real.replace(...request)),
  };
  const a = candidate(t, namespace, name, timings, cuttable);
  await until('the first to lead', () => a.elector.isLeader || undefined, 10_000);
  const b = candidate(t, namespace, name, timings);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  assert.equal(b.elector.isLeader, false, 'the lease is renewed: the second waits');

  const cutAt = Date.now();
  cutOff = true;
  await until('the second to lead', () => b.startedAt, 15_000);
  assert.match(a.stopped?.reason ?? '', /not renewed within 2s/);
  assert.ok(
    a.stopped && b.startedAt && a.stopped.at < b.startedAt,
    'the old leader stopped before the new one started',
  );
  // The second saw the last renewal at most one retry period after it was made, before the cut.
  assert.ok(
    (b.startedAt ?? 0) - cutAt >= 3_000 - 250,
    `the second waited out the lease duration (took over ${(b.startedAt ?? 0) - cutAt}ms after the cut)`,
  );
  assert.equal((await lease(namespace, name)).spec?.holderIdentity, b.identity);
});

test('a leader whose Lease another holder wrote itself into stops leading at its next renewal', async (t) => {
  const namespace = await testNamespace(t, 'lease');
  const name = uniqueName('lease');
  const a = candidate(t, namespace, name, {
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    renewPeriodMs: 250,
    retryPeriodMs: 250,
  });
  await until('the candidate to lead', () => a.elector.isLeader || undefined, 10_000);
  const api = kubeConfig().makeApiClient(CoordinationV1Api);
  // Written the way another controller would: on the resourceVersion just read, retried on conflict.
  await eventually('the intruder to write the lease', async () => {
    const current = await api.readNamespacedLease({ namespace, name });
    await api.replaceNamespacedLease({
      namespace,
      name,
      body: { ...current, spec: { ...current.spec, holderIdentity: 'intruder' } },
    });
    return true;
  });
  await until('the leader to notice', () => a.stopped, 5_000);
  assert.equal(a.elector.isLeader, false);
  assert.match(a.stopped?.reason ?? '', /held by intruder/);
  await a.elector.stop();
  assert.equal((await lease(namespace, name)).spec?.holderIdentity, 'intruder', 'a lost lease is not released');
});
