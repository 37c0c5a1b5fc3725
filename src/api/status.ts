// Status parts shared by the kinds: kstatus-compatible conditions, and the certificates of a
// connection's Secrets with the state each was last said to be in.
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

/** A status remembers this many certificates at most, the first to expire first. */
export const MAX_REMEMBERED_CERTIFICATES = 32;

export const certificates = Type.Array(
  Type.Object(
    {
      secret: Type.String({ description: 'The Secret, namespace/name.' }),
      key: Type.String({ description: 'Its key.' }),
      subject: Type.String({ description: 'The subject, as CN=…, O=….' }),
      serialNumber: Type.String({ description: 'The serial number, hexadecimal.' }),
      notAfter: Type.String({ format: 'date-time', description: 'When it expires.' }),
      state: Type.Union([Type.Literal('Valid'), Type.Literal('Expiring'), Type.Literal('Expired')], {
        description:
          'Valid; Expiring within --certificate-expiry-warning of notAfter; Expired. A Warning event says each change.',
      }),
    },
    { description: 'A certificate read from a Secret of the connection.' },
  ),
  {
    description:
      "The certificates the controller and the workers read from the connection's Secrets (client certificates and CAs, each of a bundle), the first to expire first, and the state each was last said to be in.",
    maxItems: MAX_REMEMBERED_CERTIFICATES,
  },
);
