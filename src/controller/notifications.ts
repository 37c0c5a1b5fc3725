// spec.notifications carried out: each status write's rollout notices (status/rollout-notices.ts)
// go to the worker deployment's receivers that want them, through the background deliveries
// (runtime/deliveries.ts), so a reconcile never waits for a webhook. Each receiver's destination
// and credential come from its own Secret and must be allowed by --notification-destinations
// (domain/notification-destinations.ts); a receiver refused is said in a Degraded condition
// naming its field, at every reconcile, and each notice it misses is counted.
import type { V1Secret } from '@kubernetes/client-node';
import { NOTICE_KINDS, type NotificationReceiver } from '../api/notifications.ts';
import type { TemporalWorkerDeployment } from '../api/temporal-worker-deployment.ts';
import { destinationOf, type DestinationVerdict } from '../domain/notification-destinations.ts';
import type { Delivery } from '../runtime/deliveries.ts';
import type { Logger } from '../runtime/logger.ts';
import { type Condition, degraded } from '../status/conditions.ts';
import { notificationBody } from '../status/notification-payload.ts';
import type { RolloutNotice } from '../status/rollout-notices.ts';

export const NOTIFICATIONS_REFUSED = 'NotificationsRefused';

export interface NotifierOptions {
  /** The administrator's allowed URL prefixes (--notification-destinations); none: notifications are off. */
  allowed: readonly string[];
  secret(namespace: string, name: string): Promise<V1Secret | undefined>;
  deliveries: { enqueue(receiver: string, delivery: Delivery): void };
  /** A notice not queued because its receiver is refused (twc_notifications_total{result="refused"}). */
  countRefused(): void;
  log: Logger;
  now(): Date;
}

/** The Secrets a worker deployment's receivers name. */
export function notificationSecrets(twd: Pick<TemporalWorkerDeployment, 'spec'>): string[] {
  return (twd.spec.notifications ?? []).map((r) => r.secretRef.name);
}

/** Whether a receiver wants a kind of notice: all of them when it names none. */
export function wants(receiver: NotificationReceiver, kind: RolloutNotice['kind']): boolean {
  return (receiver.events ?? NOTICE_KINDS).includes(kind);
}

export class Notifier {
  private readonly options: NotifierOptions;

  constructor(options: NotifierOptions) {
    this.options = options;
  }

  /** Queues the notices for the receivers that want them; returns at once, and never throws. */
  notify(twd: TemporalWorkerDeployment, notices: readonly RolloutNotice[]): void {
    if (notices.length === 0 || !twd.spec.notifications?.length) return;
    const at = this.options.now();
    this.send(twd, notices, at).catch((error: unknown) =>
      this.options.log.warn({ error: String(error) }, 'notifications could not be queued'),
    );
  }

  /** A Degraded condition naming each receiver refused; none when all may be sent to. */
  async conditions(twd: TemporalWorkerDeployment): Promise<Condition[]> {
    const refused = (await this.verdicts(twd)).flatMap(({ verdict }) =>
      'refused' in verdict ? [verdict.refused] : [],
    );
    return refused.length === 0
      ? []
      : [degraded(NOTIFICATIONS_REFUSED, `no rollout event is sent to ${refused.join('; ')}`)];
  }

  private async send(twd: TemporalWorkerDeployment, notices: readonly RolloutNotice[], at: Date): Promise<void> {
    const { namespace = '', name = '' } = twd.metadata;
    for (const { receiver, verdict } of await this.verdicts(twd)) {
      const wanted = notices.filter((n) => wants(receiver, n.kind));
      if ('refused' in verdict) {
        wanted.forEach(() => this.options.countRefused());
        continue;
      }
      const { url, authorization } = verdict.destination;
      const headers = {
        'content-type': 'application/json',
        ...(authorization ? { authorization } : {}),
      };
      // One queue per receiver's Secret: the same Secret named twice is one destination.
      const key = `${namespace}/${receiver.secretRef.name}`;
      for (const notice of wanted) {
        const body = notificationBody(receiver.format ?? 'Generic', notice, { namespace, workerDeployment: name, at });
        this.options.deliveries.enqueue(key, { url, headers, body });
      }
    }
  }

  private async verdicts(
    twd: TemporalWorkerDeployment,
  ): Promise<{ receiver: NotificationReceiver; verdict: DestinationVerdict }[]> {
    const namespace = twd.metadata.namespace ?? '';
    return Promise.all(
      (twd.spec.notifications ?? []).map(async (receiver, i) => {
        const secretName = receiver.secretRef.name;
        const field = `spec.notifications[${i}].secretRef`;
        // Not read at all while the administrator allows nothing: the refusal says so.
        const secret = this.options.allowed.length === 0 ? undefined : await this.options.secret(namespace, secretName);
        const data = secret ? (secret.data ?? {}) : undefined;
        return { receiver, verdict: destinationOf(field, { name: secretName, data }, this.options.allowed) };
      }),
    );
  }
}
