// Webhook deliveries sent in the background: one bounded queue per receiver, sent one at a time in
// order, each retried with exponential backoff a bounded number of times. Whoever enqueues never
// waits (a reconcile must not), and nothing is lost unsaid: every delivery ends counted as sent,
// failed (its attempts spent, with a log line) or dropped (pushed out of a full queue).
import { Backoff } from './backoff.ts';
import type { Logger } from './logger.ts';
import type { Timers } from './timers.ts';

export interface Delivery {
  url: string;
  /** Sent as they are: Content-Type and, when the receiver's Secret has one, Authorization. */
  headers: Record<string, string>;
  body: string;
}

/** Sends one delivery; resolves to the HTTP status, rejects when no answer came. */
export type Send = (delivery: Delivery) => Promise<number>;

export type DeliveryResult = 'sent' | 'failed' | 'dropped';

export interface DeliveriesOptions {
  send: Send;
  timers: Timers;
  /** Each delivery's end, for twc_notifications_total. */
  count: (result: DeliveryResult) => void;
  log: Logger;
  /** Tries of one delivery, the first included; default 5. */
  maxAttempts?: number;
  /** Deliveries waiting per receiver; default 100. */
  maxQueued?: number;
  /** Backoff between tries; default 1 s doubling up to 60 s. */
  baseMs?: number;
  maxMs?: number;
  /** Each delay moved by up to this fraction either way, so receivers down together are not all tried again together; default 0.2. */
  jitter?: number;
}

export class DeliveryError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeliveryError';
  }
}

interface Receiver {
  queue: { delivery: Delivery; attempts: number }[];
  /** Sending, or waiting out a backoff: the head of the queue is taken. */
  busy: boolean;
  timer?: unknown;
}

export class Deliveries {
  private readonly options: Required<DeliveriesOptions>;
  private readonly receivers = new Map<string, Receiver>();
  private readonly backoff: Backoff<string>;
  private stopped = false;

  constructor(options: DeliveriesOptions) {
    this.options = { maxAttempts: 5, maxQueued: 100, baseMs: 1_000, maxMs: 60_000, jitter: 0.2, ...options };
    const { baseMs, maxMs, jitter } = this.options;
    this.backoff = new Backoff({ baseMs, maxMs, jitter });
  }

  /** Queues a delivery to `receiver` and returns at once. */
  enqueue(receiver: string, delivery: Delivery): void {
    if (this.stopped) return this.options.count('dropped');
    let r = this.receivers.get(receiver);
    if (!r) {
      r = { queue: [], busy: false };
      this.receivers.set(receiver, r);
    }
    // The oldest waiting goes, not the one being sent: that send is already under way.
    const taken = r.busy ? 1 : 0;
    if (r.queue.length - taken >= this.options.maxQueued) {
      r.queue.splice(taken, 1);
      this.options.count('dropped');
    }
    r.queue.push({ delivery, attempts: 0 });
    if (!r.busy) this.sendNext(receiver, r);
  }

  /** Deliveries waiting or under way, per receiver. */
  queued(receiver: string): number {
    return this.receivers.get(receiver)?.queue.length ?? 0;
  }

  /** Leadership lost or shutdown: what waits is dropped and counted; nothing more is sent. */
  stop(): void {
    this.stopped = true;
    for (const r of this.receivers.values()) {
      if (r.timer !== undefined) this.options.timers.clearTimeout(r.timer);
      for (let i = 0; i < r.queue.length; i++) this.options.count('dropped');
      r.queue = [];
    }
    this.receivers.clear();
  }

  private sendNext(receiver: string, r: Receiver): void {
    const head = r.queue[0];
    if (!head || this.stopped) {
      r.busy = false;
      if (r.queue.length === 0) this.receivers.delete(receiver);
      return;
    }
    r.busy = true;
    head.attempts++;
    void this.attempt(head.delivery).then((failure) => {
      if (this.stopped || r.queue[0] !== head) return;
      if (!failure) {
        this.backoff.reset(receiver);
        this.options.count('sent');
        r.queue.shift();
        return this.sendNext(receiver, r);
      }
      if (head.attempts >= this.options.maxAttempts) {
        this.backoff.reset(receiver);
        this.options.count('failed');
        // The URL stays unlogged: it came from a Secret and may carry a token.
        this.options.log.warn(
          { receiver, attempts: head.attempts, error: failure.message },
          'a notification could not be delivered: given up',
        );
        r.queue.shift();
        return this.sendNext(receiver, r);
      }
      r.timer = this.options.timers.setTimeout(() => {
        delete r.timer;
        this.sendNext(receiver, r);
      }, this.backoff.next(receiver));
    });
  }

  /** Undefined when delivered (a 2xx answer), else why not. */
  private async attempt(delivery: Delivery): Promise<DeliveryError | undefined> {
    try {
      const status = await this.options.send(delivery);
      return status >= 200 && status < 300 ? undefined : new DeliveryError(`the receiver answered HTTP ${status}`);
    } catch (error) {
      // Node's fetch says only "fetch failed": the why (ECONNREFUSED, a timeout) is in its cause.
      const cause = error instanceof Error ? error.cause : undefined;
      const code = (cause as { code?: unknown } | undefined)?.code ?? (error as { name?: unknown }).name;
      return new DeliveryError(`the receiver could not be reached (${String(code)})`, { cause: error });
    }
  }
}

/**
 * Sends by HTTP POST with only the delivery's own headers: no credential of the controller's goes
 * with it. Redirects are not followed (a receiver could otherwise send the request, Authorization
 * and all, where --notification-destinations does not allow), and an answer must come in time.
 */
export function httpSend(timeoutMs = 10_000): Send {
  return async (delivery) => {
    const response = await fetch(delivery.url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Read to the end, so the connection is free for the next one.
    await response.arrayBuffer();
    return response.status;
  };
}
