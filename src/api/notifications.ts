// spec.notifications of a TemporalWorkerDeployment: where its rollout events are sent. A receiver
// names a Secret of the worker deployment's namespace and nothing else: the destination URL and
// any credential come from that one Secret, so a Secret's content only ever goes where the Secret
// itself says (docs/notifications.md, docs/security.md).
import { type Static, Type } from '@sinclair/typebox';

/** What a receiver may be told, in the order a rollout meets them. */
export const NOTICE_KINDS = [
  'Started',
  'StepPassed',
  'Promoted',
  'Aborted',
  'Stalled',
  'OldBuildRetired',
  'BatchOperationFinished',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export const NOTIFICATION_FORMATS = ['Generic', 'Slack'] as const;
export type NotificationFormat = (typeof NOTIFICATION_FORMATS)[number];

/** The keys of a receiver's Secret. */
export const NOTIFICATION_SECRET_KEYS = { url: 'url', authorization: 'authorization' } as const;

export const MAX_RECEIVERS = 8;

const receiver = Type.Object(
  {
    secretRef: Type.Object(
      {
        name: Type.String({
          description: 'Name of the Secret.',
          minLength: 1,
          maxLength: 253,
          pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
        }),
      },
      {
        description: `A Secret in the worker deployment's namespace: key \`${NOTIFICATION_SECRET_KEYS.url}\` is the webhook's URL, optional key \`${NOTIFICATION_SECRET_KEYS.authorization}\` the Authorization header sent with it. The URL must be allowed by the controller's --notification-destinations.`,
      },
    ),
    format: Type.Optional(
      Type.Union(
        NOTIFICATION_FORMATS.map((f) => Type.Literal(f)),
        {
          description:
            'Generic (default): a JSON object with kind, namespace, workerDeployment, buildID, message and time. Slack: {"text", "blocks"}, as a Slack incoming webhook takes it.',
          default: 'Generic',
        },
      ),
    ),
    events: Type.Optional(
      Type.Array(Type.Union(NOTICE_KINDS.map((k) => Type.Literal(k))), {
        description: `Which rollout events are sent: ${NOTICE_KINDS.join(', ')}. Unset: all of them.`,
        minItems: 1,
        maxItems: NOTICE_KINDS.length,
        'x-kubernetes-list-type': 'set',
      }),
    ),
  },
  { description: 'A webhook told of rollout events.' },
);

export const notifications = Type.Array(receiver, {
  description:
    "Webhooks told of this worker deployment's rollout events, sent by the controller's leader in the background, retried with backoff; a reconcile never waits for them.",
  maxItems: MAX_RECEIVERS,
  'x-kubernetes-list-type': 'atomic',
});

export type NotificationReceiver = Static<typeof receiver>;
