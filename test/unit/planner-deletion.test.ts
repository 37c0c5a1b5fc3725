// The deletion planner: what goes at once, what waits for pinned workflows, and what it says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { FORCE_DELETE_ANNOTATION } from '../../src/domain/annotations.ts';
import type { DeletionObservation } from '../../src/domain/observation.ts';
import { NOT_FOUND_GRACE_MS, registeredBuilds } from '../../src/domain/temporal-not-found.ts';
import type { ObservedDeployment, TemporalDeploymentState } from '../../src/domain/snapshot.ts';
import {
  DRAINED_REPORT_GRACE_MS,
  planDeletion,
  planDeletionWithoutConnection,
  workflowsToCount,
} from '../../src/planner/deletion.ts';

const config = {
  identity: 'twc',
  pollIntervalMs: 10_000,
  maxIneligibleVersions: 75,
  maxVersionsInDeployment: 100,
  rollbackWindowMs: 3_600_000,
  pollerHistoryMs: 300_000,
};
const token = new Uint8Array([7]);

function observation(
  temporal: Partial<TemporalDeploymentState>,
  deployments: string[] = [],
  more: {
    annotations?: Record<string, string>;
    progressing?: string;
    running?: Record<string, number | undefined>;
    /** The builds the status lists, each with the status it says Temporal gave it. */
    listed?: Record<string, string>;
    /** Since when Temporal has answered not found, when it does; default: now. */
    notFoundSince?: Date;
  } = {},
): DeletionObservation {
  const workerDeployment = {
    metadata: { name: 'orders', namespace: 'shop', ...(more.annotations ? { annotations: more.annotations } : {}) },
    spec: {},
    status: {
      ...(more.progressing
        ? {
            conditions: [
              { type: 'Progressing', status: 'True', reason: 'X', message: more.progressing, lastTransitionTime: '' },
            ],
          }
        : {}),
      ...(more.listed
        ? { deprecatedVersions: Object.entries(more.listed).map(([buildID, status]) => ({ buildID, status })) }
        : {}),
    },
  } as unknown as TemporalWorkerDeployment;
  const now = new Date('2026-11-23T12:00:00Z');
  const notFound =
    temporal.exists === false
      ? { registered: registeredBuilds(workerDeployment), justDescribed: false, since: more.notFoundSince ?? now }
      : undefined;
  return {
    now,
    workerDeployment,
    temporalName: 'shop/orders',
    ...(notFound ? { notFound } : {}),
    deployments: deployments.map((buildId): ObservedDeployment => ({
      name: `orders-${buildId}`,
      buildId,
      available: true,
    })),
    temporal: { exists: true, versions: [], managerIdentity: 'twc', conflictToken: token, ...temporal },
    runningWorkflows: more.running ?? {},
  };
}

const summary = (plan: ReturnType<typeof planDeletion>) =>
  plan.actions.map((a) =>
    a.action === 'route'
      ? `route ${a.change.action}${'clearingRampOf' in a.change && a.change.clearingRampOf ? ` clearing ${a.change.clearingRampOf}` : ''}`
      : 'buildId' in a
        ? `${a.action} ${a.buildId}${'skipDrainage' in a && a.skipDrainage ? ' skipping drainage' : ''}`
        : 'kind' in a
          ? `${a.action} ${a.kind}`
          : a.action,
  );

test('a build Temporal never listed goes once a count finds no workflow on it, with why', () => {
  assert.deepEqual(workflowsToCount(observation({ exists: false }, ['b1'])), ['b1']);
  assert.deepEqual(summary(planDeletion(observation({ exists: false }, ['b1']), config)), [], 'not counted: kept');
  assert.deepEqual(
    summary(planDeletion(observation({ exists: false }, ['b1'], { running: { b1: 1 } }), config)),
    [],
    'one counted: kept',
  );
  const plan = planDeletion(observation({ exists: false }, ['b1'], { running: { b1: 0 } }), config);
  assert.deepEqual(summary(plan), ['delete b1']);
  assert.equal(
    plan.actions[0]?.reason,
    'the worker deployment is being deleted and build b1 never registered with Temporal',
  );
  assert.deepEqual(plan.conditions, [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'Deleting',
      message: 'the worker deployment is being deleted: Deployment orders-b1',
    },
  ]);
  assert.equal(plan.requeueAfterMs, 10_000);
});

test('nothing left and nothing in Temporal: only the finalizers come off', () => {
  const plan = planDeletion(observation({ exists: false }), config);
  assert.deepEqual(summary(plan), ['removeFinalizer TemporalConnection', 'removeFinalizer TemporalWorkerDeployment']);
  assert.deepEqual(plan.conditions, []);
});

test('nothing left but the Worker Deployment in Temporal: it goes before the finalizers, each with why', () => {
  const plan = planDeletion(observation({}), config);
  assert.deepEqual(
    plan.actions.map((a) => a.reason),
    [
      'deleted Worker Deployment shop/orders from Temporal: it has no version left',
      'the worker deployment no longer needs its connection to reach Temporal',
      'nothing of the worker deployment is left in Kubernetes or Temporal',
    ],
  );
  assert.deepEqual(summary(plan), [
    'deleteTemporalDeployment',
    'removeFinalizer TemporalConnection',
    'removeFinalizer TemporalWorkerDeployment',
  ]);
});

test('records and Deployments still to go: the condition lists them, and the reconcile looks again at once', () => {
  const plan = planDeletion(
    observation(
      {
        versions: [
          { buildId: 'b1', status: 'Drained', everActive: true },
          { buildId: 'b2', status: 'Inactive', everActive: false },
        ],
      },
      ['b1'],
      { running: { b1: 0 } },
    ),
    config,
  );
  assert.deepEqual(plan.conditions, [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'Deleting',
      message:
        'the worker deployment is being deleted: Deployment orders-b1, the record of build b1, the record of build b2',
    },
  ]);
  assert.equal(plan.requeueAfterMs, 0);
});

test('a ramp without a current build is cleared, with the conflict token; the ramping build stays', () => {
  const plan = planDeletion(
    observation({ rampingBuildId: 'b2', versions: [{ buildId: 'b2', status: 'Ramping', everActive: true }] }, ['b2']),
    config,
  );
  assert.deepEqual(summary(plan), ['route clearRamp']);
  assert.equal(
    plan.actions[0]?.reason,
    'the worker deployment is being deleted: new workflows no longer ramp to build b2',
  );
  const route = plan.actions[0];
  assert.ok(route?.action === 'route');
  assert.equal(route.change.conflictToken, token);
  assert.equal(route.change.claimManager, false);
});

test('current and ramping: the ramp is cleared in the same change that sends new workflows to unversioned workers', () => {
  const plan = planDeletion(
    observation(
      {
        currentBuildId: 'b1',
        rampingBuildId: 'b2',
        versions: [
          { buildId: 'b1', status: 'Current', everActive: true },
          { buildId: 'b2', status: 'Ramping', everActive: true },
          { buildId: 'b0', status: 'Drained', everActive: true },
          { buildId: 'b3', status: 'Inactive', everActive: false },
        ],
      },
      ['b0', 'b1', 'b2', 'b3'],
      { running: { b0: 0, b1: 0, b2: 0 } },
    ),
    config,
  );
  assert.deepEqual(summary(plan), [
    'route setUnversioned clearing b2',
    'delete b0',
    'delete b3',
    'deleteTemporalVersion b0',
    'deleteTemporalVersion b3',
  ]);
  assert.equal(
    plan.actions[0]?.reason,
    'the worker deployment is being deleted: new workflows go to unversioned workers instead of build b1',
  );
  assert.deepEqual(
    plan.actions.slice(1).map((a) => a.reason),
    [
      'the worker deployment is being deleted and build b0 is drained',
      'the worker deployment is being deleted and build b3 never took traffic',
      'the worker deployment is being deleted and build b0 is drained',
      'the worker deployment is being deleted and build b3 never took traffic',
    ],
  );
  assert.deepEqual(plan.conditions, [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'DeletionWaitsForDrainage',
      message:
        'deletion waits for Temporal to report builds b1, b2 drained: no running workflow is counted on them, and Temporal confirms that after its visibility grace period; a report is believed once it has stood 30 s',
    },
  ]);
  assert.equal(plan.warning, undefined, 'no workflow counted: nothing for a person to do');
  assert.equal(plan.requeueAfterMs, 10_000);
});

test('workflows counted on a kept build: a Warning names them and the ways on; a count that failed says so', () => {
  const draining = {
    versions: [
      { buildId: 'b1', status: 'Draining' as const, everActive: true },
      { buildId: 'b2', status: 'Draining' as const, everActive: true },
    ],
  };
  assert.deepEqual(workflowsToCount(observation(draining)), ['b1', 'b2']);
  const plan = planDeletion(observation(draining, ['b1', 'b2'], { running: { b1: 0, b2: undefined, b3: 2 } }), config);
  assert.deepEqual(summary(plan), []);
  assert.equal(plan.warning?.reason, 'DeletionWaitsForWorkflows');
  assert.equal(
    plan.warning?.message,
    `deletion waits for the workflows pinned to build b2 (their number could not be read) to finish: the Deployments of build b2 stay until none runs there and Temporal reports it drained. Let the workflows finish, cancel or terminate them (\`temporal workflow terminate --query "(TemporalWorkerDeploymentVersion = 'shop/orders:b2') AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'"\`), or annotate the worker deployment ${FORCE_DELETE_ANNOTATION}=true to delete it now and strand them`,
    'b1, where none is counted, goes by itself: only what needs a person is named',
  );
  const two = planDeletion(
    observation({ versions: [...draining.versions, { buildId: 'b3', status: 'Draining', everActive: true }] }, [], {
      running: { b1: 0, b2: 1, b3: 2 },
    }),
    config,
  );
  assert.match(
    two.warning?.message ?? '',
    /^deletion waits for 1 running workflow on build b2, 2 running workflows on build b3 to finish: the Deployments of builds b2, b3 stay until none runs there and Temporal reports them drained\. .*'shop\/orders:b2' OR TemporalWorkerDeploymentVersion = 'shop\/orders:b3'\)/,
  );

  const again = planDeletion(
    observation(draining, ['b1', 'b2'], { running: { b1: 0, b2: undefined }, progressing: plan.warning?.message }),
    config,
  );
  assert.equal(again.warning, undefined, 'said once, while nothing changes');
  assert.equal(again.conditions[0]?.message, plan.warning?.message);
});

test('a build Temporal calls drained keeps its Deployment and record while a workflow is still counted there, or none could be counted', () => {
  const drained = {
    versions: [
      { buildId: 'b1', status: 'Drained' as const, everActive: true },
      { buildId: 'b2', status: 'Drained' as const, everActive: true },
    ],
  };
  assert.deepEqual(workflowsToCount(observation(drained, ['b1'])), ['b1'], 'only a drained build with a Deployment');
  const plan = planDeletion(observation(drained, ['b1'], { running: { b1: 1 } }), config);
  assert.deepEqual(summary(plan), ['deleteTemporalVersion b2']);
  assert.equal(plan.warning?.reason, 'DeletionWaitsForWorkflows');
  assert.match(plan.warning?.message ?? '', /^deletion waits for 1 running workflow on build b1 to finish/);
  const unread = planDeletion(observation(drained, ['b1'], { running: {} }), config);
  assert.deepEqual(summary(unread), ['deleteTemporalVersion b2'], 'a count that failed keeps it too');
  assert.deepEqual(summary(planDeletion(observation(drained, ['b1'], { running: { b1: 0 } }), config)), [
    'delete b1',
    'deleteTemporalVersion b1',
    'deleteTemporalVersion b2',
  ]);
});

test('the force annotation only with "true": then every build goes, draining records skip drainage', () => {
  const draining = { versions: [{ buildId: 'b1', status: 'Draining' as const, everActive: true }] };
  const notForced = planDeletion(
    observation(draining, ['b1'], { annotations: { [FORCE_DELETE_ANNOTATION]: 'yes' } }),
    config,
  );
  assert.deepEqual(summary(notForced), []);

  const forced = planDeletion(
    observation(draining, ['b1'], { annotations: { [FORCE_DELETE_ANNOTATION]: 'true' }, running: { b1: 4 } }),
    config,
  );
  assert.deepEqual(summary(forced), ['delete b1', 'deleteTemporalVersion b1 skipping drainage']);
  assert.match(forced.actions[0]?.reason ?? '', /build b1 is Draining, but temporal.io\/force-delete is set$/);
  assert.deepEqual(forced.warning, {
    reason: 'ForcedDeletion',
    message: `deleting now, as the annotation ${FORCE_DELETE_ANNOTATION} asks: 4 running workflows on build b1 are left without workers`,
  });
  assert.equal(forced.requeueAfterMs, 0, 'the records are deleted: look again at once to finish');
  assert.deepEqual(forced.conditions, [{ type: 'Progressing', status: 'True', ...forced.warning }]);

  const nothingRuns = planDeletion(
    observation({ versions: [{ buildId: 'b0', status: 'Drained', everActive: true }] }, ['b0'], {
      annotations: { [FORCE_DELETE_ANNOTATION]: 'true' },
      running: { b0: 0 },
    }),
    config,
  );
  assert.equal(nothingRuns.warning, undefined, 'nothing may run there: nothing is stranded, nothing to warn of');
  assert.equal(nothingRuns.conditions[0]?.reason, 'Deleting');
  assert.match(nothingRuns.actions[0]?.reason ?? '', /build b0 is drained$/);
});

test('one build with none counted is named in the singular; a spec without annotations is not forced', () => {
  const plan = planDeletion(
    observation({ versions: [{ buildId: 'b1', status: 'Draining', everActive: true }] }, ['b1'], {
      running: { b1: 0 },
    }),
    config,
  );
  assert.deepEqual(summary(plan), []);
  assert.equal(
    plan.conditions[0]?.message,
    'deletion waits for Temporal to report build b1 drained: no running workflow is counted on it, and Temporal confirms that after its visibility grace period; a report is believed once it has stood 30 s',
  );
});

test('managed elsewhere: routing and the Worker Deployment are left alone, and it says who holds them', () => {
  const plan = planDeletion(
    observation(
      { managerIdentity: 'other', versions: [{ buildId: 'b0', status: 'Drained', everActive: true }] },
      ['b0'],
      { running: { b0: 0 } },
    ),
    config,
  );
  assert.deepEqual(summary(plan), ['delete b0', 'deleteTemporalVersion b0']);
  assert.deepEqual(plan.conditions, [
    {
      type: 'Stalled',
      status: 'True',
      reason: 'ManagedElsewhere',
      message:
        'cannot route new workflows away from its builds nor delete it from Temporal: Worker Deployment shop/orders is managed by "other", so the controller does not change its routing; release it with `temporal worker deployment manager-identity unset --deployment-name shop/orders`',
    },
  ]);
  const empty = planDeletion(observation({ managerIdentity: 'other' }), config);
  assert.deepEqual(summary(empty), [], 'no deletion from Temporal, no finalizer off, while another manager holds it');
});

test('without its connection, the finalizer comes off at once and the Warning names what is left in Temporal and how to remove it', () => {
  const plan = planDeletionWithoutConnection({
    namespace: 'ns',
    connectionName: 'prod',
    temporalName: 'ns/orders',
    temporalNamespace: 'default',
  });
  assert.deepEqual(plan, {
    actions: [
      {
        action: 'removeFinalizer',
        kind: 'TemporalWorkerDeployment',
        reason: 'TemporalConnection ns/prod does not exist: Temporal cannot be reached to clean up',
      },
    ],
    conditions: [],
    warning: {
      reason: 'TemporalCleanupSkipped',
      message:
        'TemporalConnection ns/prod does not exist, so Worker Deployment ns/orders is left in Temporal namespace default; remove it with `temporal worker deployment delete --name ns/orders`',
    },
    requeueAfterMs: 0,
  });
});

test('A7: a build once current or ramping whose drainage Temporal has not reported is counted and kept', () => {
  const temporal = {
    currentBuildId: 'v2',
    versions: [
      { buildId: 'v1', status: 'Inactive' as const, everActive: true },
      { buildId: 'v2', status: 'Current' as const, everActive: true },
    ],
  };
  const seen = observation(temporal, ['v1', 'v2'], { running: { v1: 0, v2: 0 } });
  assert.deepEqual(workflowsToCount(seen), ['v1', 'v2']);
  const plan = planDeletion(seen, config);
  assert.ok(
    !plan.actions.some((a) => a.action === 'delete' || a.action === 'deleteTemporalVersion'),
    summary(plan).join(', '),
  );
  const forced = planDeletion(
    observation(temporal, ['v1', 'v2'], { annotations: { [FORCE_DELETE_ANNOTATION]: 'true' } }),
    config,
  );
  assert.deepEqual(
    summary(forced).filter((line) => line.includes('v1')),
    ['delete v1', 'deleteTemporalVersion v1 skipping drainage'],
  );
  assert.match(
    forced.actions.find((a) => a.action === 'delete' && a.buildId === 'v1')?.reason ?? '',
    /may still hold pinned workflows, but temporal.io\/force-delete is set/,
  );
});

test('a drained report on a build that took traffic is believed once it has stood 30 s: visibility may not show a running workflow yet', () => {
  const drainedAgo = (ms: number) => ({
    versions: [
      {
        buildId: 'b1',
        status: 'Drained' as const,
        everActive: true,
        drainedSince: new Date(new Date('2026-11-23T12:00:00Z').getTime() - ms),
      },
    ],
  });
  const fresh = planDeletion(
    observation(drainedAgo(DRAINED_REPORT_GRACE_MS - 1_000), ['b1'], { running: { b1: 0 } }),
    config,
  );
  assert.deepEqual(summary(fresh), [], 'neither its Deployment nor its record goes');
  assert.equal(fresh.conditions[0]?.reason, 'DeletionWaitsForDrainage');
  assert.match(fresh.conditions[0]?.message ?? '', /a report is believed once it has stood 30 s$/);
  assert.equal(fresh.requeueAfterMs, config.pollIntervalMs);
  const stood = planDeletion(observation(drainedAgo(DRAINED_REPORT_GRACE_MS), ['b1'], { running: { b1: 0 } }), config);
  assert.deepEqual(summary(stood), ['delete b1', 'deleteTemporalVersion b1']);
  const forced = planDeletion(
    observation(drainedAgo(1_000), ['b1'], { running: { b1: 0 }, annotations: { [FORCE_DELETE_ANNOTATION]: 'true' } }),
    config,
  );
  assert.deepEqual(summary(forced), ['delete b1', 'deleteTemporalVersion b1'], 'the force annotation does not wait');
});

test('Temporal answers that its Worker Deployment does not exist while builds it registered keep Deployments: they stay until the answer has stood 30 s, and it says why', () => {
  // Its Worker Deployment's workflow continues as new after every change, and a query meeting the
  // run just closed is answered not found: the CI run of fc88786 lost a draining build's Deployment so.
  const listed = { v1: 'Draining', v2: 'Drained', v3: 'NotRegistered' };
  const since = new Date('2026-11-23T11:59:50Z');
  const plan = planDeletion(
    observation({ exists: false }, ['v1', 'v2', 'v3'], {
      listed,
      running: { v1: 0, v2: 0, v3: 0 },
      notFoundSince: since,
    }),
    config,
  );
  assert.deepEqual(summary(plan), ['delete v3'], 'only the build Temporal never registered goes');
  assert.equal(
    plan.actions[0]?.reason,
    'the worker deployment is being deleted and build v3 never registered with Temporal',
  );
  assert.deepEqual(plan.conditions, [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'DeletionWaitsForTemporal',
      message:
        'deletion waits for Temporal to list builds v1, v2: it has answered since 2026-11-23T11:59:50.000Z that Worker Deployment shop/orders does not exist, though it registered them (see the status), as it does for a moment after each change it makes. The Deployments of builds v1, v2 stay until it lists them again or its answer has stood 30 s',
    },
  ]);
  assert.equal(plan.warning, undefined, 'a moment of Temporal is no Warning');
  assert.equal(plan.requeueAfterMs, config.pollIntervalMs);
  const nearly = planDeletion(
    observation({ exists: false }, ['v1'], {
      listed,
      running: { v1: 0 },
      notFoundSince: new Date(Date.parse('2026-11-23T12:00:00Z') - NOT_FOUND_GRACE_MS + 2_000),
    }),
    config,
  );
  assert.equal(nearly.requeueAfterMs, 2_000, 'looked at again when the answer is believed');

  const counted = planDeletion(observation({ exists: false }, ['v1'], { listed, running: { v1: 2 } }), config);
  assert.equal(counted.conditions[0]?.reason, 'DeletionWaitsForWorkflows', 'workflows counted are said first');

  const stood = planDeletion(
    observation({ exists: false }, ['v1'], {
      listed,
      running: { v1: 0 },
      notFoundSince: new Date(Date.parse('2026-11-23T12:00:00Z') - NOT_FOUND_GRACE_MS),
    }),
    config,
  );
  assert.deepEqual(summary(stood), ['delete v1'], 'an answer that has stood is believed');
  assert.equal(
    stood.actions[0]?.reason,
    'the worker deployment is being deleted and build v1 is no longer listed by Temporal, and no workflow is counted running there',
  );
  const stoodButRunning = planDeletion(
    observation({ exists: false }, ['v1'], { listed, notFoundSince: new Date(0) }),
    config,
  );
  assert.deepEqual(summary(stoodButRunning), [], 'believed, it is still counted: not counted, it stays');

  const forced = planDeletion(
    observation({ exists: false }, ['v1'], { listed, annotations: { [FORCE_DELETE_ANNOTATION]: 'true' } }),
    config,
  );
  assert.deepEqual(summary(forced), ['delete v1']);
  assert.equal(
    forced.actions[0]?.reason,
    'the worker deployment is being deleted and build v1 is not listed by Temporal, and temporal.io/force-delete is set',
  );

  const listedAgain = planDeletion(observation({ versions: [] }, ['v1'], { listed, running: { v1: 0 } }), config);
  assert.deepEqual(summary(listedAgain), ['delete v1'], 'an answer that lists the Worker Deployment is believed');
});

test('nothing left, and Temporal answers not found though it registered builds: its Worker Deployment is deleted all the same, before the finalizers', () => {
  const plan = planDeletion(observation({ exists: false }, [], { listed: { v1: 'Drained' } }), config);
  assert.deepEqual(summary(plan), [
    'deleteTemporalDeployment',
    'removeFinalizer TemporalConnection',
    'removeFinalizer TemporalWorkerDeployment',
  ]);
  assert.equal(
    plan.actions[0]?.reason,
    'deleted Worker Deployment shop/orders from Temporal, which answered that it does not exist but registered builds of this worker deployment: the answer may have come while it changed',
  );
});
