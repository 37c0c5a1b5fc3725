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
        'The object to render per build. In spec, scaleTargetRef: {} and selector.matchLabels: {} ask to be filled in for the build, and strings may use {{ .DeploymentName }}, {{ .BuildID }} and {{ .TemporalNamespace }}; the controller does not render owned resources yet.',
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
          observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
          versions: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  buildID: Type.String({ description: 'Build the copy belongs to.' }),
                  name: Type.Optional(Type.String({ description: 'Name of the copy.' })),
                  applied: Type.Optional(Type.Boolean({ description: 'The latest apply succeeded.' })),
                  error: Type.Optional(Type.String({ description: 'Why the latest apply failed.' })),
                },
                { description: 'The copy of one build.' },
              ),
              { description: 'One entry per build with a copy.' },
            ),
          ),
          conditions: Type.Optional(conditions),
        },
        { description: 'What the controller observed.' },
      ),
    ),
  },
  { description: 'An object to attach to every live build of a worker deployment (accepted, not yet rendered).' },
);

export type TemporalWorkerOwnedResource = Static<typeof temporalWorkerOwnedResource>;
