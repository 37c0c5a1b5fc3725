// TemporalWorkerOwnedResource (twor): any namespaced object, rendered once per live build of a
// worker deployment (an HPA, a PodDisruptionBudget, a KEDA ScaledObject...).
import { type Static, Type } from '@sinclair/typebox';
import { dnsLabel, stringMap, withRules, objectMeta } from './schema.ts';
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
        'The object to render per build. scaleTargetRef: {} and matchLabels: {} anywhere in it are filled in for the build, and strings may use {{ .DeploymentName }}, {{ .BuildID }}, {{ .TemporalNamespace }} and, with pools, {{ .TaskQueue }}.',
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
