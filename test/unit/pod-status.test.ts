import type { V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podStatus, type WorkerState } from '../../dev/node-agent/pod-status.ts';

const now = new Date('2026-01-02T03:04:05Z');
const pod: V1Pod = { spec: { containers: [{ name: 'worker', image: 'sample' }] } };

const cases: { name: string; state: WorkerState; phase: string; ready: string; container: string; restarts: number }[] =
  [
    {
      name: 'a polling worker makes the Pod Running and Ready',
      state: { kind: 'running', ready: true, restarts: 0 },
      phase: 'Running',
      ready: 'True',
      container: 'running',
      restarts: 0,
    },
    {
      name: 'a running container its readiness probe has not passed is Running and not Ready',
      state: { kind: 'running', ready: false, restarts: 0 },
      phase: 'Running',
      ready: 'False',
      container: 'running',
      restarts: 0,
    },
    {
      name: 'a worker that was never configured leaves the Pod Pending',
      state: {
        kind: 'waiting',
        reason: 'CreateContainerConfigError',
        message: 'TEMPORAL_ADDRESS is not set',
        restarts: 0,
      },
      phase: 'Pending',
      ready: 'False',
      container: 'waiting',
      restarts: 0,
    },
    {
      name: 'a crashed worker waiting for its restart keeps the Pod Running but not Ready',
      state: { kind: 'waiting', reason: 'CrashLoopBackOff', message: 'back-off', restarts: 2, lastFailure: 'boom' },
      phase: 'Running',
      ready: 'False',
      container: 'waiting',
      restarts: 2,
    },
    {
      name: 'a worker that may not restart fails the Pod',
      state: { kind: 'failed', message: 'boom', restarts: 0 },
      phase: 'Failed',
      ready: 'False',
      container: 'terminated',
      restarts: 0,
    },
  ];

for (const c of cases) {
  test(c.name, () => {
    const status = podStatus(pod, c.state, now);
    assert.equal(status.phase, c.phase);
    assert.equal(status.conditions?.find((x) => x.type === 'Ready')?.status, c.ready);
    assert.equal(status.conditions?.find((x) => x.type === 'ContainersReady')?.status, c.ready);
    const container = status.containerStatuses?.[0];
    assert.equal(container?.name, 'worker');
    assert.deepEqual(Object.keys(container?.state ?? {}), [c.container]);
    assert.equal(container?.restartCount, c.restarts);
    assert.equal(container?.ready, c.ready === 'True');
  });
}

test('the reason a worker is not running reaches the Ready condition and the last state', () => {
  const status = podStatus(
    pod,
    {
      kind: 'waiting',
      reason: 'CrashLoopBackOff',
      message: 'back-off 4s',
      restarts: 1,
      lastFailure: 'worker stopped: lost',
    },
    now,
  );
  const ready = status.conditions?.find((x) => x.type === 'Ready');
  assert.equal(ready?.message, 'back-off 4s');
  assert.equal(status.containerStatuses?.[0]?.lastState?.terminated?.message, 'worker stopped: lost');
  assert.equal(status.containerStatuses?.[0]?.state?.waiting?.reason, 'CrashLoopBackOff');
});

test('the start time of a Pod is kept across reports', () => {
  const started = new Date('2026-01-01T00:00:00Z');
  const status = podStatus(
    { ...pod, status: { startTime: started } },
    { kind: 'running', ready: true, restarts: 1 },
    now,
  );
  assert.equal(status.startTime, started);
});

test("a Pod with a network of its own reports that address; the node's otherwise", () => {
  assert.equal(podStatus(pod, { kind: 'running', ready: true, restarts: 0 }, now, '10.244.0.7').podIP, '10.244.0.7');
  assert.deepEqual(podStatus(pod, { kind: 'running', ready: true, restarts: 0 }, now).podIPs, [{ ip: '127.0.0.1' }]);
});
