// The Pod template of a worker deployment's builds (spec.template) and its pools (spec.pools): what
// every build's Pods run, where each pool places them, and what a pool runs differently.
import { Type } from '@sinclair/typebox';
import { RESERVED_ENV } from './reserved-env.ts';
import { dnsLabel, freeform, int32, stringMap, withRules, type Rule } from './schema.ts';

// Bounds that let the API server afford the reserved-name rule (it refuses a CRD whose CEL could cost too much).
const MAX_CONTAINERS = 32;
const MAX_ENV = 512;
const MAX_ENV_NAME_LENGTH = 256;

/** A container may not set a variable the controller sets: its value would be replaced without a word. */
function reservedEnvRule(): Rule<{ name: string; env?: { name: string }[] }> {
  const reserved = `[${RESERVED_ENV.map((n) => `'${n}'`).join(', ')}]`;
  const advice =
    ', which only the controller sets (from the TemporalConnection and the build): remove it from the template';
  return {
    cel: `!has(self.env) || self.env.all(e, !(e.name in ${reserved}))`,
    message: `a container may not set ${RESERVED_ENV.join(', ')}: the controller sets them`,
    fieldPath: '.env',
    // The first reserved name only: a list joined in CEL costs more than the API server allows here.
    explanation: {
      cel: `'container ' + self.name + ' sets ' + self.env.filter(e, e.name in ${reserved})[0].name + '${advice}'`,
      text: (self) =>
        `container ${self.name} sets ${self.env?.find((e) => RESERVED_ENV.includes(e.name))?.name}${advice}`,
    },
    check: (self) => !self.env?.some((e) => RESERVED_ENV.includes(e.name)),
  };
}

const containerEnv = Type.Array(
  Type.Object(
    {
      name: Type.String({ description: 'Variable name.', minLength: 1, maxLength: MAX_ENV_NAME_LENGTH }),
    },
    { description: 'A core/v1 EnvVar.', 'x-kubernetes-preserve-unknown-fields': true },
  ),
  { description: `Environment variables; ${RESERVED_ENV.join(', ')} are set by the controller.`, maxItems: MAX_ENV },
);

export const podTemplate = Type.Object(
  {
    metadata: Type.Optional(
      Type.Object(
        {
          labels: Type.Optional(stringMap('Labels of the Pods.')),
          annotations: Type.Optional(stringMap('Annotations of the Pods.')),
        },
        { description: 'Labels and annotations of the Pods.' },
      ),
    ),
    spec: Type.Object(
      {
        containers: Type.Array(
          withRules(
            Type.Object(
              {
                name: dnsLabel('Container name.'),
                image: Type.Optional(Type.String({ description: 'Container image.' })),
                env: Type.Optional(containerEnv),
              },
              {
                description: 'A core/v1 Container; the controller injects the Temporal environment.',
                'x-kubernetes-preserve-unknown-fields': true,
              },
            ),
            reservedEnvRule(),
          ),
          { description: 'Containers of the worker Pod.', minItems: 1, maxItems: MAX_CONTAINERS },
        ),
      },
      { description: 'A core/v1 PodSpec.', 'x-kubernetes-preserve-unknown-fields': true },
    ),
  },
  {
    description:
      'Pod template of the build to run. Changing it makes a new build, unless workerOptions.unsafeCustomBuildID is set.',
  },
);

/** What one pool's Pods run differently from spec.template; part of the build, as the template is. */
const poolTemplate = Type.Object(
  {
    metadata: Type.Optional(
      Type.Object(
        { labels: Type.Optional(stringMap("Labels added to the pool's Pods, over the template's.")) },
        { description: "Labels of the pool's Pods." },
      ),
    ),
    spec: Type.Optional(
      Type.Object(
        {
          serviceAccountName: Type.Optional(
            Type.String({
              description: "The ServiceAccount the pool's Pods run as.",
              minLength: 1,
              maxLength: 253,
              pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
            }),
          ),
          containers: Type.Optional(
            Type.Array(
              withRules(
                Type.Object(
                  {
                    name: dnsLabel('The name of a container of spec.template.'),
                    image: Type.Optional(
                      Type.String({ description: "The container's image in this pool.", minLength: 1 }),
                    ),
                    env: Type.Optional(containerEnv),
                    resources: Type.Optional(
                      freeform("The container's resources in this pool (core/v1 ResourceRequirements)."),
                    ),
                  },
                  {
                    description:
                      "A container of spec.template, by name, as this pool runs it: its image, its variables (each replacing the template's of the same name) and its resources.",
                  },
                ),
                reservedEnvRule(),
              ),
              { description: "The template's containers this pool runs differently.", maxItems: MAX_CONTAINERS },
            ),
          ),
        },
        { description: "The pool's Pod spec, over the template's." },
      ),
    ),
  },
  {
    description:
      "What this pool's Pods run differently from spec.template: Pod labels, the ServiceAccount, and per container its image, variables and resources. Part of the build: a change to one pool's is a new build of every pool (Temporal versions the worker deployment, not a pool).",
  },
);

export const pool = Type.Object(
  {
    name: dnsLabel('Pool name, unique in the worker deployment; labels its Deployments temporal.io/pool.', {
      maxLength: 20,
    }),
    taskQueue: Type.Optional(
      Type.String({
        description: 'Task queue the pool polls, injected as TEMPORAL_TASK_QUEUE.',
        minLength: 1,
        maxLength: 1000,
      }),
    ),
    replicas: Type.Optional(int32('Replicas of each build in this pool; defaults to spec.replicas.')),
    nodeSelector: Type.Optional(stringMap("Node selector of the pool's Pods.")),
    affinity: Type.Optional(freeform("Affinity of the pool's Pods (core/v1 Affinity).")),
    tolerations: Type.Optional(
      Type.Array(freeform('A core/v1 Toleration.'), { description: "Tolerations of the pool's Pods." }),
    ),
    resources: Type.Optional(
      freeform('Resources applied to every container in the pool (core/v1 ResourceRequirements).'),
    ),
    template: Type.Optional(poolTemplate),
  },
  { description: 'A task queue and pod placement of every build.' },
);
