// What GitOps tools make of a worker deployment in each state of docs/operations.md's table: the
// status comes from the controller's own status mapper (nextStatus), Argo CD's health from our
// Lua check run by the interpreter Argo CD embeds (tools/argocd-lua), Flux's and helm's from
// kstatus (tools/k8s-testbin). No cluster: only the binaries the suite builds.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { binaryPaths } from '../../dev/localenv/binaries.ts';
import {
  type Condition,
  degraded,
  MANUAL_PROMOTION,
  NO_POLLERS,
  nextStatus,
  PAUSED,
  progressing,
  stalled,
} from '../../src/status/conditions.ts';
import { kstatus } from '../support/kstatus.ts';

const HEALTH_CHECK = path.join(import.meta.dirname, '../../examples/argocd/temporalworkerdeployment-health.lua');

function ready(status: 'True' | 'False', reason: string, message: string): Condition {
  return { type: 'Ready', status, reason, message };
}

interface State {
  name: string;
  said: Condition[];
  deleting?: true;
  /** The spec changed since the status was written. */
  unobserved?: true;
  argo: string;
  kstatus: string;
}

const STATES: State[] = [
  {
    name: 'rolling out',
    said: [progressing('True', 'RollingOut', 'waiting for build v2 to register')],
    argo: 'Progressing',
    kstatus: 'InProgress',
  },
  {
    name: "the target's Pods cannot run yet",
    said: [ready('False', 'PodsFailing', 'Pod a: ImagePullBackOff'), progressing('True', 'PodsFailing', 'Pod a')],
    argo: 'Progressing',
    kstatus: 'InProgress',
  },
  {
    name: 'the target is current',
    said: [ready('True', 'TargetCurrent', 'build v2 is current'), progressing('False', 'Done', 'build v2 is current')],
    argo: 'Healthy',
    kstatus: 'Current',
  },
  {
    name: 'current, but a build without pollers',
    said: [
      ready('True', 'TargetCurrent', 'build v2 is current'),
      progressing('False', 'Done', 'build v2 is current'),
      degraded(NO_POLLERS, 'build v2 has Ready Pods and no poller on queue q'),
    ],
    argo: 'Degraded',
    kstatus: 'Current',
  },
  {
    name: 'Manual: waiting for a promotion',
    said: [
      ready('False', MANUAL_PROMOTION, 'run twc promote'),
      progressing('False', MANUAL_PROMOTION, 'run twc promote'),
    ],
    argo: 'Suspended',
    kstatus: 'InProgress',
  },
  {
    name: 'paused',
    said: [ready('False', PAUSED, 'spec.rollout.paused'), progressing('False', PAUSED, 'spec.rollout.paused')],
    argo: 'Suspended',
    kstatus: 'InProgress',
  },
  {
    name: 'a failure that passes with time',
    said: [progressing('False', 'TemporalUnreachable', 'connection refused')],
    argo: 'Progressing',
    kstatus: 'InProgress',
  },
  {
    name: 'a human must act',
    said: [stalled('GateFailed', 'gate smoke failed on build v2')],
    argo: 'Degraded',
    kstatus: 'Failed',
  },
  {
    name: 'being deleted',
    said: [progressing('True', 'DeletionWaitsForDrainage', 'build v1 drains')],
    deleting: true,
    argo: 'Progressing',
    kstatus: 'Terminating',
  },
  {
    name: 'a spec the controller has not seen yet',
    said: [ready('True', 'TargetCurrent', 'build v2 is current'), progressing('False', 'Done', 'build v2 is current')],
    unobserved: true,
    argo: 'Progressing',
    kstatus: 'InProgress',
  },
];

function workerDeployment(state: State): object {
  const metadata = {
    name: 'orders',
    namespace: 'team-a',
    generation: 3,
    ...(state.deleting ? { deletionTimestamp: '2026-11-27T06:00:00Z', finalizers: ['temporal.io/delete'] } : {}),
  };
  const status = nextStatus({ metadata }, state.said, new Date('2026-11-27T06:00:00Z'), {});
  return {
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerDeployment',
    metadata: state.unobserved ? { ...metadata, generation: 4 } : metadata,
    spec: {},
    status,
  };
}

function argoHealth(objects: object[]): Promise<{ status: string; message: string }[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(binaryPaths().argocdLua, [HEALTH_CHECK], (error, stdout, stderr) => {
      if (error) reject(new Error(`argocd-lua: ${stderr}`, { cause: error }));
      else
        resolve(
          stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { status: string; message: string }),
        );
    });
    child.stdin?.end(JSON.stringify(objects));
  });
}

test("Argo CD's health check and kstatus read each state of a worker deployment as docs/gitops.md says", async () => {
  const objects = STATES.map(workerDeployment);
  const [argo, flux] = await Promise.all([argoHealth(objects), kstatus(objects)]);
  assert.deepEqual(
    STATES.map((state, i) => ({ state: state.name, argo: argo[i]?.status, kstatus: flux[i]?.status })),
    STATES.map((state) => ({ state: state.name, argo: state.argo, kstatus: state.kstatus })),
  );
  // Argo CD shows the message beside the health: it names the reason and what it says.
  assert.equal(argo[7]?.message, 'GateFailed: gate smoke failed on build v2');
  assert.equal(argo[0]?.message, 'RollingOut: waiting for build v2 to register');
});

test('an object the controller has not written a status for yet is Progressing, not Healthy', async () => {
  const [health] = await argoHealth([
    { apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalWorkerDeployment', metadata: { name: 'new' }, spec: {} },
  ]);
  assert.equal(health?.status, 'Progressing');
});
