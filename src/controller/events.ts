// Kubernetes Events for what the controller did and what failed, on the object they concern.
// A reconcile repeats itself every poll while something waits; the same event for the same
// object is therefore written once per window and counted after that, not created each time.
import type { CoreV1Event } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import type { KubernetesApi } from '../runtime/kube/api-client.ts';

export const REPORTING_COMPONENT = 'temporal-worker-controller';

export interface EventTarget {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; uid?: string };
}

export interface ControllerEvent {
  type: 'Normal' | 'Warning';
  /** UpperCamelCase, as Kubernetes reasons are. */
  reason: string;
  message: string;
}

export type RecordEvent = (about: EventTarget, event: ControllerEvent) => Promise<void>;

interface Written {
  name: string;
  count: number;
  writtenAt: number;
}

/** Kubernetes caps an event message at 1 KiB. */
const MAX_MESSAGE = 1024;
const MAX_REMEMBERED = 2000;

export class EventRecorder {
  private readonly written = new Map<string, Written>();
  private readonly api: KubernetesApi;
  private readonly instance: string;
  private readonly repeatWindowMs: number;
  private readonly now: () => Date;

  constructor(options: { api: KubernetesApi; instance: string; repeatWindowMs?: number; now?: () => Date }) {
    this.api = options.api;
    this.instance = options.instance;
    this.repeatWindowMs = options.repeatWindowMs ?? 10 * 60_000;
    this.now = options.now ?? (() => new Date());
  }

  /** Never throws: an event that cannot be written must not fail the reconcile that reports it. */
  readonly record: RecordEvent = async (about, event) => {
    const namespace = about.metadata.namespace ?? 'default';
    const message = event.message.length > MAX_MESSAGE ? `${event.message.slice(0, MAX_MESSAGE - 1)}…` : event.message;
    const key = [about.metadata.uid, event.type, event.reason, message].join('\u0000');
    const now = this.now();
    const before = this.written.get(key);
    if (before && now.getTime() - before.writtenAt < this.repeatWindowMs) {
      before.count++;
      return;
    }
    try {
      if (before) {
        before.count++;
        await this.api.mergePatch(`${eventsIn(namespace)}/${before.name}`, {
          count: before.count,
          lastTimestamp: now.toISOString(),
        });
        before.writtenAt = now.getTime();
        return;
      }
      const name = `${about.metadata.name ?? 'unknown'}.${randomBytes(8).toString('hex')}`;
      await this.api.create(
        eventsIn(namespace),
        this.event(name, namespace, about, event.type, event.reason, message, now),
      );
      this.remember(key, { name, count: 1, writtenAt: now.getTime() });
    } catch {
      // The event may have expired (Kubernetes keeps them an hour): start a new one next time.
      this.written.delete(key);
    }
  };

  private event(
    name: string,
    namespace: string,
    about: EventTarget,
    type: string,
    reason: string,
    message: string,
    now: Date,
  ): CoreV1Event {
    return {
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: about.apiVersion,
        kind: about.kind,
        name: about.metadata.name ?? '',
        // A cluster-scoped object (a TemporalClusterConnection) has its events in default, and no namespace itself.
        ...(about.metadata.namespace ? { namespace } : {}),
        ...(about.metadata.uid ? { uid: about.metadata.uid } : {}),
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: REPORTING_COMPONENT },
      reportingComponent: REPORTING_COMPONENT,
      reportingInstance: this.instance,
    };
  }

  private remember(key: string, written: Written): void {
    if (this.written.size >= MAX_REMEMBERED) {
      const oldest = this.written.keys().next().value;
      if (oldest !== undefined) this.written.delete(oldest);
    }
    this.written.set(key, written);
  }
}

function eventsIn(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/events`;
}
