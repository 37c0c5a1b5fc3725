// TemporalWorkerDeployment (twd): one Temporal Worker Deployment, run as one Kubernetes
// Deployment per build (per build and pool, with pools).
import { type Static, Type } from '@sinclair/typebox';
import { DEPLOYMENT_DEFAULTS, SUNSET_DEFAULTS } from './defaults.ts';
import { podTemplate, pool } from './pod-template.ts';
import { notifications } from './notifications.ts';
import { buildIdRef, MAX_ANALYSIS_METRICS, rollout, rolloutSchema } from './rollout.ts';
import { certificates, conditions } from './status.ts';
import {
  DNS_LABEL,
  dnsLabel,
  duration,
  durationSeconds,
  int32,
  intOrPercent,
  LABEL_VALUE,
  stringMap,
  withRules,
  objectMeta,
  type Rule,
} from './schema.ts';

/** The default signal of the first step of the pinned-workflow ladder. */
export const CONTINUE_AS_NEW_SIGNAL = 'ContinueAsNewRequested';

/** The ladder's steps in the order they must come: each one later than every one before it. */
export const LADDER_STEPS = ['signalAfter', 'cancelAfter', 'terminateAfter'] as const;
type LadderStep = (typeof LADDER_STEPS)[number];

function ladderOrder(earlier: LadderStep, later: LadderStep): Rule<Partial<Record<LadderStep, string>>> {
  return {
    cel: `!has(self.${earlier}) || !has(self.${later}) || duration(self.${later}) > duration(self.${earlier})`,
    message: `${later} must be longer than ${earlier}: the ladder goes signal, cancel, terminate`,
    fieldPath: `.${later}`,
    check: (self) =>
      self[earlier] === undefined ||
      self[later] === undefined ||
      durationSeconds(self[later]) > durationSeconds(self[earlier]),
  };
}

const pinnedWorkflows = withRules(
  Type.Object(
    {
      signalAfter: Type.Optional(
        duration(
          'After this long, the workflows still running on the build are sent signalName: they are expected to continue as new onto the current build.',
        ),
      ),
      signalName: Type.Optional(
        Type.String({
          description: 'The signal the signalAfter step sends.',
          minLength: 1,
          maxLength: 255,
          default: CONTINUE_AS_NEW_SIGNAL,
        }),
      ),
      cancelAfter: Type.Optional(duration('After this long, the workflows still running on the build are cancelled.')),
      terminateAfter: Type.Optional(
        duration('After this long, the workflows still running on the build are terminated.'),
      ),
      reason: Type.Optional(
        Type.String({
          description: "Recorded in Temporal with every cancellation and termination (and in the batch's reason).",
          minLength: 1,
          maxLength: 1000,
        }),
      ),
      moveFrom: Type.Optional(
        buildIdRef(
          "Moves the pinned workflows of this build that the current build's code replays onto the current build, as moveToCurrent does, whether moveToCurrent is set or not (twc move): for a build no longer current nor ramping, or the target of an aborted rollout.",
        ),
      ),
      moveToCurrent: Type.Optional(
        Type.Boolean({
          description:
            "Moves the workflows running on the build onto the current build where the current build's code replays their histories: once a rollout has ended (nothing ramping, no analysis window open), the worker library's replayCheck workflow, pinned to the current build, replays each on its task queue, and those that replay get a pinned versioning override onto the current build, as one batch operation. The others stay and are named in the build's status (pinnedWorkflows.move); the steps above wait while a move runs. The build then drains and retires on its usual delays.",
        }),
      ),
    },
    {
      description:
        'What is done to workflows still running on a build that is no longer current nor ramping (nor the target), counted from when it stopped being either; each step is optional, and without any (nor moveToCurrent) the workflows run on undisturbed.',
    },
  ),
  ladderOrder('signalAfter', 'cancelAfter'),
  ladderOrder('signalAfter', 'terminateAfter'),
  ladderOrder('cancelAfter', 'terminateAfter'),
);

/** Label and annotation keys the controller sets on the Deployments it makes: a spec may not set them. */
const RESERVED_KEY_PREFIX = 'temporal.io/';

function settingsMap(description: string) {
  return withRules(stringMap(description), {
    cel: `self.all(k, !k.startsWith('${RESERVED_KEY_PREFIX}'))`,
    message: `keys starting ${RESERVED_KEY_PREFIX} are the controller's`,
    check: (self) => Object.keys(self).every((k) => !k.startsWith(RESERVED_KEY_PREFIX)),
  });
}

const deploymentSettings = Type.Object(
  {
    strategy: Type.Optional(
      Type.Object(
        {
          type: Type.Optional(
            Type.Union([Type.Literal('RollingUpdate'), Type.Literal('Recreate')], {
              description: 'How Pods are replaced when a Deployment is rolled in place.',
            }),
          ),
          rollingUpdate: Type.Optional(
            Type.Object(
              {
                maxSurge: Type.Optional(intOrPercent('Pods made above the wanted count during a roll.')),
                maxUnavailable: Type.Optional(intOrPercent('Pods that may be unavailable during a roll.')),
              },
              { description: 'The pace of a RollingUpdate.' },
            ),
          ),
        },
        {
          description:
            "The strategy of every build's Deployments (apps/v1 DeploymentStrategy): how an in-place roll (a changed connection or credentials, a custom build ID's template) replaces Pods. Kubernetes' default (RollingUpdate, 25% and 25%) when unset.",
        },
      ),
    ),
    labels: Type.Optional(settingsMap("Labels of every build's Deployments (not their Pods: see spec.template).")),
    annotations: Type.Optional(
      settingsMap("Annotations of every build's Deployments (not their Pods: see spec.template)."),
    ),
    revisionHistoryLimit: Type.Optional(
      int32("ReplicaSets each Deployment keeps for a rollback; Kubernetes' default (10) when unset."),
    ),
  },
  {
    description:
      'Settings of the Kubernetes Deployments of every build, old ones included: a change applies to them in place and makes no new build.',
  },
);

const spec = withRules(
  Type.Object(
    {
      replicas: Type.Optional(
        int32('Replicas of each active build. Leave unset when an autoscaler owns replica counts.'),
      ),
      template: podTemplate,
      minReadySeconds: Type.Optional(
        int32('Seconds a new Pod must be ready before it counts as available.', {
          default: DEPLOYMENT_DEFAULTS.minReadySeconds,
        }),
      ),
      progressDeadlineSeconds: Type.Optional(
        int32('Seconds a build may take to become available before it is reported stalled.', {
          minimum: 1,
          default: DEPLOYMENT_DEFAULTS.progressDeadlineSeconds,
        }),
      ),
      deployment: Type.Optional(deploymentSettings),
      workerOptions: withRules(
        Type.Object(
          {
            connectionRef: Type.Object(
              {
                kind: Type.Optional(
                  Type.Union([Type.Literal('TemporalConnection'), Type.Literal('TemporalClusterConnection')], {
                    description:
                      'TemporalConnection (default): one in the same namespace; TemporalClusterConnection: one of the cluster.',
                    default: 'TemporalConnection',
                  }),
                ),
                name: dnsLabel('Name of the connection.'),
              },
              { description: 'How to reach Temporal.' },
            ),
            temporalNamespace: Type.String({
              description: 'Temporal namespace of the workers.',
              minLength: 1,
              maxLength: 255,
            }),
            unsafeCustomBuildID: Type.Optional(
              Type.String({
                description:
                  'A build ID of your choosing instead of one computed from the template. A template change under the same ID rolls the existing Pods in place: unsafe if workflow code changed.',
                minLength: 1,
                maxLength: 63,
                pattern: LABEL_VALUE,
              }),
            ),
            onConfigChange: Type.Optional(
              Type.Union([Type.Literal('RollInPlace'), Type.Literal('NewBuild')], {
                description:
                  "What a change of a ConfigMap or Secret the Pod template reads (env valueFrom, envFrom, volumes, a projected volume's sources) does. RollInPlace (default): every running build whose template reads it is rolled in place, under the same build ID. NewBuild: the configuration is part of the build ID, so a change is a new build, rolled out like new code, and running builds keep their Pods.",
                default: 'RollInPlace',
              }),
            ),
          },
          { description: 'Where the workers run in Temporal.' },
        ),
        {
          cel: "!has(self.unsafeCustomBuildID) || !has(self.onConfigChange) || self.onConfigChange != 'NewBuild'",
          message:
            'onConfigChange: NewBuild puts the configuration into a computed build ID, which unsafeCustomBuildID replaces: set one of them',
          fieldPath: '.onConfigChange',
          check: (self) => self.unsafeCustomBuildID === undefined || self.onConfigChange !== 'NewBuild',
        },
      ),
      rollout: Type.Optional(rollout),
      cutover: Type.Optional(rolloutSchema('Deprecated name of rollout.')),
      sunset: Type.Optional(
        Type.Object(
          {
            scaledownDelay: Type.Optional(
              duration('How long a build stays scaled up after it is drained.', {
                default: SUNSET_DEFAULTS.scaledownDelay,
              }),
            ),
            deleteDelay: Type.Optional(
              duration("How long a scaled-down build's Deployment is kept before deletion.", {
                default: SUNSET_DEFAULTS.deleteDelay,
              }),
            ),
            unusedBuildDeleteDelay: Type.Optional(
              duration(
                'How long a build that never took traffic (no longer the target, and never current nor ramping in Temporal) is kept, scaled to 0: then its Deployments and its Temporal record are deleted, once visibility counts no workflow pinned to it.',
                { default: SUNSET_DEFAULTS.unusedBuildDeleteDelay },
              ),
            ),
            pinnedWorkflows: Type.Optional(pinnedWorkflows),
          },
          { description: 'When drained builds are scaled down and deleted.', default: {} },
        ),
      ),
      pools: Type.Optional(
        withRules(
          Type.Array(pool, {
            description:
              'Task queues and placements that every build spans, one Deployment per build and pool. Without pools, one Deployment per build.',
            maxItems: 20,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
          }),
          {
            cel: 'self.all(p, self.exists_one(q, q.name == p.name))',
            message: 'pool names must be unique',
            check: (self) => new Set(self.map((p) => p.name)).size === self.length,
          },
        ),
      ),
      notifications: Type.Optional(notifications),
    },
    { description: 'The desired worker deployment.' },
  ),
  {
    cel: '!has(self.pools) || self.pools.all(p, !has(p.template) || !has(p.template.spec) || !has(p.template.spec.containers) || p.template.spec.containers.all(c, self.template.spec.containers.exists(t, t.name == c.name)))',
    message: 'spec.pools[].template.spec.containers[].name must name a container of spec.template',
    fieldPath: '.pools',
    check: (self) =>
      (self.pools ?? []).every((p) =>
        (p.template?.spec?.containers ?? []).every((c) => self.template.spec.containers.some((t) => t.name === c.name)),
      ),
  },
  {
    cel: '!(has(self.rollout) && has(self.cutover))',
    message: 'set rollout (cutover is its deprecated name), not both',
    check: (self) => !(self.rollout !== undefined && self.cutover !== undefined),
  },
);

const batchOperation = Type.Object(
  {
    jobID: Type.String({ description: "The batch operation's job ID in Temporal." }),
    operation: Type.String({ description: 'Signal, Cancel, Terminate or Move.' }),
    state: Type.String({ description: 'Running, Completed or Failed, as Temporal last reported it.' }),
    startTime: Type.Optional(Type.String({ format: 'date-time', description: 'When Temporal started it.' })),
    closeTime: Type.Optional(Type.String({ format: 'date-time', description: 'When it ended.' })),
    total: Type.Optional(Type.Integer({ description: 'Workflows it acts on.', minimum: 0 })),
    completed: Type.Optional(Type.Integer({ description: 'Workflows it has acted on.', minimum: 0 })),
    failed: Type.Optional(Type.Integer({ description: 'Workflows it failed to act on.', minimum: 0 })),
  },
  { description: 'The batch operation of the step reached.' },
);

const pinnedWorkflowsMove = Type.Object(
  {
    to: Type.String({ description: 'The build the workflows are moved onto: the current build when the round began.' }),
    round: Type.Integer({ description: 'The round of checks and moves onto that build, from 1.', minimum: 1 }),
    phase: Type.String({
      description:
        'Checking (the replay checks run), Moving (the batch operation moves those that replay), Done, or Failed (see message; tried again 10 minutes after it ended).',
    }),
    startedAt: Type.String({ format: 'date-time', description: 'When the round began.' }),
    endedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the round ended.' })),
    checks: Type.Array(
      Type.Object(
        {
          taskQueue: Type.String({ description: 'The task queue the check ran on: that of the workflows it checked.' }),
          workflowID: Type.String({ description: "The check workflow's ID." }),
        },
        { description: 'One replay check, pinned to the build moved onto.' },
      ),
      { description: "The round's replay checks, one per task queue of the workflows checked." },
    ),
    checked: Type.Integer({ description: 'Workflows the round checked.', minimum: 0 }),
    batch: Type.Optional(batchOperation),
    notMoved: Type.Optional(
      Type.Integer({
        description:
          'Workflows of the round left where they are: their history does not replay on the build moved onto, the check skipped them (gone, too large), or no worker of that build polls their task queue.',
        minimum: 0,
      }),
    ),
    notMovedWorkflows: Type.Optional(
      Type.Array(
        Type.Object(
          {
            workflowID: Type.String({ description: 'Workflow ID.' }),
            runID: Type.String({ description: 'Run ID.' }),
            reason: Type.String({ description: 'Why it was not moved.' }),
          },
          { description: 'A workflow left where it is.' },
        ),
        { description: 'The first of them (at most 10), each with why.' },
      ),
    ),
    message: Type.Optional(Type.String({ description: 'Why the round failed or stopped.' })),
  },
  {
    description:
      'The last round of spec.sunset.pinnedWorkflows.moveToCurrent on the build: its replay checks, the batch that moved the workflows that replay, and those left.',
  },
);

const pinnedWorkflowsStatus = Type.Object(
  {
    running: Type.Optional(
      Type.Integer({ description: 'Workflows still running on the build, as last counted.', minimum: 0 }),
    ),
    countedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When they were counted.' })),
    step: Type.String({
      description: 'The step of spec.sunset.pinnedWorkflows reached: Waiting (none yet), Signal, Cancel or Terminate.',
    }),
    nextStepAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the next step is reached.' })),
    batch: Type.Optional(batchOperation),
    move: Type.Optional(pinnedWorkflowsMove),
  },
  { description: 'The workflows still running on the build and what spec.sunset.pinnedWorkflows did to them.' },
);

const versionStatus = {
  buildID: Type.String({ description: 'Build ID.' }),
  status: Type.String({ description: 'NotRegistered, Inactive, Ramping, Current, Draining or Drained.' }),
  healthySince: Type.Optional(
    Type.String({ description: 'Since when every Deployment of the build is available.', format: 'date-time' }),
  ),
  deployments: Type.Optional(Type.Array(Type.String(), { description: "Names of the build's Deployments." })),
  pollers: Type.Optional(
    Type.Integer({
      description:
        "Workers of the build that Temporal remembers polling its workflow task queues (for the server's matching.PollerHistoryTTL, five minutes by default), as the leader last read them; absent when it does not read them (--no-backlog-metrics).",
      minimum: 0,
    }),
  ),
  taskQueues: Type.Optional(
    Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'Task queue name.' }),
          type: Type.Union([Type.Literal('workflow'), Type.Literal('activity'), Type.Literal('nexus')], {
            description: 'Which tasks of the queue the workers poll: workflow, activity or nexus.',
          }),
        },
        { description: 'One task queue of the build.' },
      ),
      {
        description:
          "The task queues Temporal lists for the build (those its workers have polled), as the leader last read them (while the build has replicas: once Temporal lists it, once more to confirm them, then every 30 minutes, and with each read of its backlog) or a reconcile read the target's, and remembered here between reads; absent until read. A current or ramping build on one of whose workflow or activity queues Temporal remembers no poller of its Ready Pods says Degraded=True, reason NoPollers.",
      },
    ),
  ),
  lastCurrentTime: Type.Optional(
    Type.String({
      description:
        'When the build stopped being current, as the controller saw it: within the rollback window, making it the target again promotes it at once (unless it failed a gate or an analysis: see failedBuilds).',
      format: 'date-time',
    }),
  ),
  pinnedWorkflows: Type.Optional(pinnedWorkflowsStatus),
};

const status = Type.Object(
  {
    observedGeneration: Type.Optional(
      Type.Integer({ description: 'The generation this status describes.', format: 'int64' }),
    ),
    targetVersion: Type.Optional(
      Type.Object(
        {
          ...versionStatus,
          rampPercentage: Type.Optional(
            Type.Number({
              description: 'Share of new workflows routed to the target while it ramps.',
              minimum: 0,
              maximum: 100,
            }),
          ),
          rampLastModifiedAt: Type.Optional(
            Type.String({ format: 'date-time', description: 'When Temporal last changed the ramp.' }),
          ),
          rampHistory: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  percentage: Type.Number({ minimum: 0, maximum: 100, description: 'Share of new workflows.' }),
                  at: Type.String({ format: 'date-time', description: 'From when.' }),
                },
                { description: 'One share of new workflows the target took.' },
              ),
              {
                description:
                  'The ramp of the target as it went, oldest first (the last 20 changes; 0 where a ramp was cleared): the timeline of twc dashboard.',
                maxItems: 20,
              },
            ),
          ),
          madeRoomAt: Type.Optional(
            Type.String({
              format: 'date-time',
              description:
                "When the controller last deleted an older build's record in Temporal so that this build could register at the server's cap of versions.",
            }),
          ),
          gates: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  stage: Type.String({ description: 'rollout for rollout.gate, step-N for the gate of step N.' }),
                  taskQueue: Type.String({ description: 'Workflow task queue the gate ran on.' }),
                  workflowID: Type.String({
                    description:
                      "Workflow ID of the gate run, which ends with a hash of the gate's own spec (workflow type, input): a run of another spec of the gate does not count, and one still running is terminated.",
                  }),
                  runID: Type.Optional(
                    Type.String({
                      description:
                        'The run the controller started under that workflow ID: no other run found under it counts (anyone who may start workflows in the Temporal namespace can start one), and a running one is terminated.',
                    }),
                  ),
                  status: Type.String({
                    description:
                      'Running, Completed or Failed; Waiting while its first run waits for the partitions of its task queue to know the build (see gateQueuesListed).',
                  }),
                  generation: Type.Optional(
                    Type.Integer({ description: 'The generation the run was started for.', format: 'int64' }),
                  ),
                },
                { description: 'One gate workflow of the target build.' },
              ),
              { description: 'Gate workflows of the current stage of the rollout.' },
            ),
          ),
          gateFailure: Type.Optional(
            Type.Object(
              {
                generation: Type.Integer({ description: 'The generation the failure was seen at.', format: 'int64' }),
                specHash: Type.Optional(
                  Type.String({
                    description: "A hash of the failed gate's own spec: a change of that gate runs it again.",
                  }),
                ),
                stage: Type.String({ description: 'Which gate failed.' }),
                workflowID: Type.String({ description: 'The failed gate run.' }),
                message: Type.String({ description: 'How it failed.' }),
              },
              {
                description:
                  'A failed gate: the rollout of this build waits for a change of the spec or of the retry annotation.',
              },
            ),
          ),
          analysis: Type.Optional(
            Type.Object(
              {
                generation: Type.Integer({ description: 'The generation judged.', format: 'int64' }),
                step: Type.Integer({ description: 'The step judged, from 1.' }),
                verdict: Type.String({ description: 'Pending, Passed or Failed.' }),
                windowStart: Type.String({
                  format: 'date-time',
                  description: "When the window began: the step's ramp.",
                }),
                closed: Type.Optional(
                  Type.Integer({
                    description:
                      'Workflows the ramping build closed in the window (counted with maxFailureRate or maxFailureRateIncrease).',
                    format: 'int64',
                  }),
                ),
                failed: Type.Optional(
                  Type.Integer({
                    description: 'Of those, the ones that failed, timed out or were terminated.',
                    format: 'int64',
                  }),
                ),
                currentClosed: Type.Optional(
                  Type.Integer({ description: 'Workflows the current build closed in the window.', format: 'int64' }),
                ),
                currentFailed: Type.Optional(
                  Type.Integer({ description: 'Of those, the ones that failed.', format: 'int64' }),
                ),
                metrics: Type.Optional(
                  Type.Array(
                    Type.Object({
                      name: Type.String({ description: 'The metric of spec.rollout.analysis.metrics.' }),
                      value: Type.Optional(
                        Type.Number({ description: 'Its answer; absent when it had no sample or was infinite.' }),
                      ),
                    }),
                    { description: "The metrics' answers at the last look.", maxItems: MAX_ANALYSIS_METRICS },
                  ),
                ),
                message: Type.String({ description: 'The verdict in words, with the rates and the answers.' }),
                checkedAt: Type.String({ format: 'date-time', description: 'When the counts and metrics were read.' }),
                specHash: Type.Optional(
                  Type.String({
                    description:
                      'A hash of spec.rollout.analysis as it was judged by: a Failed verdict holds until the analysis itself changes, spec.rollout.promote names the build or a new template comes.',
                  }),
                ),
              },
              { description: "spec.rollout.analysis of the target's step: the counts and the verdict." },
            ),
          ),
          gateRetry: Type.Optional(
            Type.String({
              description:
                'The value of the temporal.io/retry-gate annotation last acted on: a new value runs a failed or stuck gate again.',
            }),
          ),
          gatePoolQueues: Type.Optional(
            Type.Array(Type.String(), {
              description:
                "The task queues of spec.pools when the gates' runs were last read (none without pools): a pass holds only for that layout, so a pool added or removed since has the gates read again, and run on the queues that have no run.",
            }),
          ),
          gateQueuesListed: Type.Optional(
            Type.Object(
              {
                taskQueues: Type.Array(Type.String(), { description: 'The queues, sorted.' }),
                since: Type.String({ format: 'date-time', description: 'When the last of them was first listed.' }),
              },
              {
                description:
                  "The task queues Temporal listed for the target's gates (its workers poll them for workflows and activities), and since when: a gate starts on a queue only some seconds after, since Temporal lists a build's queue before every partition of the queue knows the build, and meanwhile sends the activities of a workflow pinned to the build to the queue's current build.",
              },
            ),
          ),
        },
        { description: 'The build the spec asks for.' },
      ),
    ),
    currentVersion: Type.Optional(
      Type.Object(
        {
          ...versionStatus,
          currentSince: Type.Optional(
            Type.String({ format: 'date-time', description: 'When Temporal made it current.' }),
          ),
        },
        { description: 'The build new workflows go to.' },
      ),
    ),
    deprecatedVersions: Type.Optional(
      Type.Array(
        Type.Object(
          {
            ...versionStatus,
            drainedSince: Type.Optional(
              Type.String({ format: 'date-time', description: 'Since when no pinned workflow runs on the build.' }),
            ),
            eligibleForDeletion: Type.Optional(Type.Boolean({ description: 'Drained and scaled to zero.' })),
            deactivatedAt: Type.Optional(
              Type.String({
                format: 'date-time',
                description:
                  'When the build stopped being current or ramping, as Temporal reports it or else as the controller first saw it: the delays of spec.sunset.pinnedWorkflows count from here.',
              }),
            ),
            supersededAt: Type.Optional(
              Type.String({
                format: 'date-time',
                description:
                  'When a build that never took traffic stopped being the target, as the controller first saw it: spec.sunset.unusedBuildDeleteDelay counts from here.',
              }),
            ),
          },
          { description: 'An older build still running or kept.' },
        ),
        { description: 'Older builds.' },
      ),
    ),
    failedBuilds: Type.Optional(
      Type.Array(
        Type.Object(
          {
            buildID: Type.String({ description: 'Build ID.' }),
            reason: Type.String({ description: 'GateFailed or AnalysisFailed.' }),
            message: Type.String({ description: 'What failed, in words.' }),
            at: Type.String({ format: 'date-time', description: 'When the failure was seen.' }),
          },
          {
            description:
              'A build that failed a gate or an analysis: it is never promoted by the rollback shortcut, and while it is the target it takes no new workflows until spec.rollout.promote names it (an analysis) or the gate is changed or retried (a gate).',
          },
        ),
        { description: 'Builds that failed a gate or an analysis, newest last.', maxItems: 20 },
      ),
    ),
    versionCount: Type.Optional(
      Type.Integer({ description: 'Versions Temporal holds for the deployment.', minimum: 0 }),
    ),
    managerIdentity: Type.Optional(Type.String({ description: 'Identity allowed to change routing in Temporal.' })),
    certificates: Type.Optional(certificates),
    conditions: Type.Optional(conditions),
  },
  { description: 'What the controller observed.' },
);

export const temporalWorkerDeployment = withRules(
  Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: objectMeta(),
      spec,
      status: Type.Optional(status),
    },
    { description: 'A Temporal Worker Deployment run on Kubernetes: one Deployment per build, routed in Temporal.' },
  ),
  {
    cel: `size(self.metadata.name) <= 63 && self.metadata.name.matches('${DNS_LABEL}')`,
    message:
      'metadata.name must be a DNS label of at most 63 characters: it is used as a label value and in the Temporal deployment name, where "." is reserved',
    check: (self) => (self.metadata.name ?? '').length <= 63 && new RegExp(DNS_LABEL).test(self.metadata.name ?? ''),
  },
);

export type TemporalWorkerDeployment = Static<typeof temporalWorkerDeployment>;
export type TemporalWorkerDeploymentSpec = TemporalWorkerDeployment['spec'];
export type { Rollout } from './rollout.ts';
export type PinnedWorkflowsLadder = Static<typeof pinnedWorkflows>;
export type Pool = NonNullable<TemporalWorkerDeploymentSpec['pools']>[number];
export type DeploymentSettings = NonNullable<TemporalWorkerDeploymentSpec['deployment']>;
