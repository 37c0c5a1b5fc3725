// TemporalWorkerOwnedResource (twor): any namespaced object, rendered once per live build of a
// worker deployment (an HPA, a PodDisruptionBudget, a KEDA ScaledObject...).
import { type Static, Type } from '@sinclair/typebox';
import { dnsLabel, freeform, stringMap, withRules, objectMeta } from './schema.ts';
import { conditions } from './status.ts';

const object = withRules(
  Type.Object(
    {
      apiVersion: Type.String({ description: 'API version of the object, e.g. autoscaling/v2.', minLength: 1 }),
      kind: Type.String({ description: 'Kind of the object, e.g. HorizontalPodAutoscaler.', minLength: 1 }),
      metadata: Type.Optional(
        Type.Object(
          {
            name: Type.Optional(Type.String()),
            namespace: Type.Optional(Type.String()),
            labels: Type.Optional(stringMap('Labels of every copy.')),
            annotations: Type.Optional(stringMap('Annotations of every copy.')),
          },
          { description: 'Labels and annotations; the controller names each copy.' },
        ),
      ),
    },
    {
      description:
        "The object to render per build. scaleTargetRef: {} and matchLabels: {} anywhere in it are filled in for the build, and strings may use {{ .DeploymentName }} (the build's Kubernetes Deployment), {{ .WorkerDeploymentName }} (Temporal's <namespace>/<name>), {{ .BuildID }}, {{ .State }}, {{ .TemporalNamespace }} and, with pools, {{ .TaskQueue }}.",
      'x-kubernetes-preserve-unknown-fields': true,
    },
  ),
  {
    cel: '!has(self.metadata) || (!has(self.metadata.name) && !has(self.metadata.namespace))',
    message: 'object.metadata.name and object.metadata.namespace are set by the controller: remove them',
    fieldPath: '.metadata',
    check: (self) => self.metadata?.name === undefined && self.metadata?.namespace === undefined,
  },
);

/** A build's state as the worker deployment's status says it: which copies a twor makes, and how. */
export const BUILD_STATES = ['NotRegistered', 'Inactive', 'Ramping', 'Current', 'Draining', 'Drained'] as const;
export type BuildState = (typeof BUILD_STATES)[number];

const buildState = Type.Union(
  BUILD_STATES.map((s) => Type.Literal(s)),
  { description: 'NotRegistered, Inactive, Ramping, Current, Draining or Drained.' },
);

const spec = Type.Object(
  {
    workerRef: withRules(
      Type.Object(
        { name: dnsLabel('Name of the TemporalWorkerDeployment in the same namespace.') },
        { description: 'The worker deployment whose builds get a copy.' },
      ),
      {
        cel: 'self.name == oldSelf.name',
        message: 'workerRef.name is immutable: create a new TemporalWorkerOwnedResource instead',
        fieldPath: '.name',
        check: (self, old) => old === undefined || self.name === old.name,
        transition: true,
      },
    ),
    object,
    buildStates: Type.Optional(
      Type.Array(buildState, {
        description:
          "The states of the builds that get a copy, as the worker deployment's status says them; a build leaving them loses its copy. Default: every build with a Deployment.",
        minItems: 1,
        maxItems: BUILD_STATES.length,
        'x-kubernetes-list-type': 'set',
      }),
    ),
    stateOverrides: Type.Optional(
      Type.Object(
        Object.fromEntries(
          BUILD_STATES.map((s) => [
            s,
            Type.Optional(freeform(`A JSON merge patch (RFC 7386) over object for the copies of ${s} builds.`)),
          ]),
        ) as Record<BuildState, ReturnType<typeof freeform>>,
        {
          description:
            'Per build state, what its copies change of object (a JSON merge patch: a value replaces, null removes, an object merges): a warm floor for the current build, a lower one for draining builds. A build that changes state has its copy changed with it.',
        },
      ),
    ),
    serviceAccountName: Type.Optional(
      dnsLabel(
        "The ServiceAccount of this namespace whose rights every copy is applied, listed and deleted with: the controller impersonates it, never using its own rights. Default: the controller's --owned-resources-service-account (chart value controller.ownedResourcesServiceAccount). The namespace grants it create, patch, list and delete on the kind.",
        { maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' },
      ),
    ),
  },
  { description: 'What to attach to each build.' },
);

export const temporalWorkerOwnedResource = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: objectMeta(),
    spec,
    status: Type.Optional(
      Type.Object(
        {
          observedGeneration: Type.Optional(
            Type.Integer({ format: 'int64', description: 'The generation this status describes.' }),
          ),
          appliedKind: Type.Optional(
            Type.Object(
              {
                apiVersion: Type.String({ description: 'Their API version.' }),
                kind: Type.String({ description: 'Their kind.' }),
              },
              { description: 'The kind the copies were made of: when the spec changes it, those copies are deleted.' },
            ),
          ),
          versions: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  buildID: Type.String({ description: 'Build the copy belongs to.' }),
                  pool: Type.Optional(Type.String({ description: 'Pool of the Deployment the copy belongs to.' })),
                  resourceName: Type.String({ description: 'Name of the copy.' }),
                  applied: Type.Boolean({ description: 'The copy as the spec renders it now is applied.' }),
                  message: Type.Optional(Type.String({ description: 'Why it is not.' })),
                  forbiddenTo: Type.Optional(
                    Type.String({
                      description:
                        'namespace/name of the ServiceAccount the API server refused to write the copy as (403): the namespace has not granted it the kind.',
                    }),
                  ),
                  appliedGeneration: Type.Optional(
                    Type.Integer({ format: 'int64', description: 'The generation of this object last applied.' }),
                  ),
                  appliedHash: Type.Optional(Type.String({ description: 'A hash of the copy last applied.' })),
                },
                { description: 'The copy of one Kubernetes Deployment of a build.' },
              ),
              { description: 'One entry per copy: per build, and per pool where pools exist.' },
            ),
          ),
          conditions: Type.Optional(conditions),
        },
        { description: 'What the controller observed.' },
      ),
    ),
  },
  { description: 'An object to attach to every live build of a worker deployment, one copy per build.' },
);

export type TemporalWorkerOwnedResource = Static<typeof temporalWorkerOwnedResource>;
