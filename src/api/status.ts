// Status parts shared by the kinds: kstatus-compatible conditions.
import { Type } from '@sinclair/typebox';

export const condition = Type.Object(
  {
    type: Type.String({
      description: 'Ready, Progressing, Stalled; on a TemporalWorkerDeployment also Degraded, while it holds.',
      minLength: 1,
      maxLength: 316,
    }),
    status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')], {
      description: 'True, False or Unknown.',
    }),
    observedGeneration: Type.Optional(
      Type.Integer({ format: 'int64', minimum: 0, description: 'The generation the condition was set for.' }),
    ),
    lastTransitionTime: Type.String({ format: 'date-time', description: 'When the status last changed.' }),
    reason: Type.String({ description: 'CamelCase reason.', minLength: 1, maxLength: 1024 }),
    message: Type.String({ description: 'Human-readable detail.', maxLength: 32768 }),
  },
  { description: 'A condition of the object.' },
);

export const conditions = Type.Array(condition, {
  description: 'Conditions of the object.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});
