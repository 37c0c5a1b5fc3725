// Lease-based leader election (coordination.k8s.io/v1), with client-go's semantics: a candidate
// takes the Lease when it is free, released or expired, the leader renews it, and every write
// carries the resourceVersion it read, so two candidates never both win. One departure: the leader
// renews every renew period (5s) rather than every retry period (2s), and tries again a failed
// renewal after the retry period. The lease lasts as long for others, a killed leader is replaced
// no later (a standby counts from when it first saw the last renewal), and the leader still gives
// up at the same deadline: only the writes, each an etcd write and most of an idle controller's
// CPU, are fewer. Expiry
// is judged on the candidate's own clock, from when it first saw the current record, so clocks
// need not agree across nodes. A leader that cannot renew within the renew deadline (shorter than
// the lease duration), or sees another holder, stops leading before anyone else can start.
import { LEADER_ELECTION_DEFAULTS } from '../api/defaults.ts';
import { errorMessage, httpStatus } from './kube/api-errors.ts';
import type { KubernetesApi } from './kube/api-client.ts';
import { type Logger, silentLogger } from './logger.ts';
import { realTimers, type Timers } from './timers.ts';

export interface Lease {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with microseconds. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** The three calls on one Lease that leader election makes; each rejects with the HTTP status as `code`. */
export interface LeaseApi {
  read(namespace: string, name: string): Promise<Lease>;
  create(namespace: string, lease: Lease): Promise<Lease>;
  /** Carries the resourceVersion of the lease it replaces: a stale one is refused with 409. */
  replace(namespace: string, name: string, lease: Lease): Promise<Lease>;
}

export function leaseApi(api: KubernetesApi): LeaseApi {
  const leases = (namespace: string): string => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
  return {
    read: (namespace, name) => api.get(`${leases(namespace)}/${name}`),
    create: (namespace, lease) => api.create(leases(namespace), lease),
    replace: (namespace, name, lease) => api.replace(`${leases(namespace)}/${name}`, lease),
  };
}

export interface LeaderElectionOptions {
  api: LeaseApi;
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** Unique to this process. */
  identity: string;
  /** How long others wait after the last renewal they saw before taking over (client-go: 15s). */
  leaseDurationMs?: number;
  /** How long the leader keeps leading without a successful renewal (client-go: 10s). */
  renewDeadlineMs?: number;
  /** Time between renewals while they succeed; shorter than the renew deadline (5s). */
  renewPeriodMs?: number;
  /** Time between attempts to acquire, and after a failed renewal (client-go: 2s). */
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  /** The lease is lost: stop all work at once. Not called after stop(). */
  onStoppedLeading: (reason: string) => void;
  log?: Logger;
  timers?: Timers;
}

export class LeaderElector {
  private readonly options: Required<LeaderElectionOptions>;
  private leading = false;
  private stopped = false;
  /** Our last successful write of the Lease, for the next renewal and the release. */
  private written: Lease | undefined;
  /** The record last read and when this process first saw it: the base of expiry. */
  private observed: { resourceVersion: string; at: number } | undefined;
  private nextAttempt: unknown;
  private renewDeadline: unknown;
  private running: Promise<void> = Promise.resolve();

  constructor(options: LeaderElectionOptions) {
    this.options = {
      ...LEADER_ELECTION_DEFAULTS,
      log: silentLogger,
      timers: realTimers,
      ...options,
    };
    if (this.options.renewDeadlineMs >= this.options.leaseDurationMs)
      throw new Error('the renew deadline must be shorter than the lease duration');
    if (this.options.renewPeriodMs >= this.options.renewDeadlineMs)
      throw new Error('the renew period must be shorter than the renew deadline');
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops trying, and releases the Lease if held so that a successor takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.options.timers.clearTimeout(this.nextAttempt);
    this.options.timers.clearTimeout(this.renewDeadline);
    await this.running;
    this.leading = false;
    const held = this.written;
    this.written = undefined;
    if (held) await this.release(held);
  }

  private schedule(ms: number): void {
    this.nextAttempt = this.options.timers.setTimeout(() => {
      this.running = this.attempt().then((renewed) => {
        if (!this.stopped) this.schedule(renewed ? this.options.renewPeriodMs : this.options.retryPeriodMs);
      });
    }, ms);
  }

  /**
   * One try to acquire or renew; failures are logged and retried, until the renew deadline.
   * Whether this process leads with the Lease just written.
   */
  private async attempt(): Promise<boolean> {
    const { timers, identity, log } = this.options;
    const sentAt = timers.now();
    let result: { written: Lease } | { holder: string };
    try {
      result = await this.acquireOrRenew(sentAt);
    } catch (error) {
      log.warn(
        `could not ${this.leading ? 'renew' : 'acquire'} the lease: ${httpStatus(error) === 409 ? 'another process wrote it first' : errorMessage(error)}`,
      );
      return false;
    }
    if ('holder' in result) {
      if (this.leading) this.lose(`the lease is now held by ${result.holder}`);
      return false;
    }
    this.written = result.written;
    if (this.stopped) return false;
    // Others count the lease duration from after our request reached the server: counting the
    // deadline from before it was sent keeps this process's leadership inside theirs.
    timers.clearTimeout(this.renewDeadline);
    this.renewDeadline = timers.setTimeout(
      () => this.lose(`the lease was not renewed within ${this.options.renewDeadlineMs / 1000}s`),
      this.options.renewDeadlineMs - (timers.now() - sentAt),
    );
    if (!this.leading) {
      this.leading = true;
      log.info(`${identity} leads, holding lease ${this.options.namespace}/${this.options.name}`);
      this.options.onStartedLeading();
    }
    return true;
  }

  private async acquireOrRenew(now: number): Promise<{ written: Lease } | { holder: string }> {
    const { api, namespace, name, identity } = this.options;
    // client-go's fast path: the leader renews what it last wrote, one request instead of two. A
    // conflict means another process wrote the Lease since: read it and decide as a candidate.
    if (this.leading && this.written) {
      try {
        return {
          written: await api.replace(namespace, name, { ...this.written, spec: this.spec(this.written.spec, now) }),
        };
      } catch (error) {
        if (httpStatus(error) !== 409) throw error;
      }
    }
    let current: Lease;
    try {
      current = await api.read(namespace, name);
    } catch (error) {
      if (httpStatus(error) !== 404) throw error;
      return {
        written: await api.create(namespace, { metadata: { name, namespace }, spec: this.spec(undefined, now) }),
      };
    }
    const holder = current.spec?.holderIdentity;
    if (holder && holder !== identity && !this.expired(current, now)) return { holder };
    // The resourceVersion read travels with the write: a concurrent writer makes it fail with 409.
    return {
      written: await api.replace(namespace, name, { ...current, spec: this.spec(current.spec, now) }),
    };
  }

  private expired(lease: Lease, now: number): boolean {
    const resourceVersion = lease.metadata?.resourceVersion ?? '';
    if (this.observed?.resourceVersion !== resourceVersion) this.observed = { resourceVersion, at: now };
    const durationMs = (lease.spec?.leaseDurationSeconds ?? this.options.leaseDurationMs / 1000) * 1000;
    return now >= this.observed.at + durationMs;
  }

  private spec(previous: LeaseSpec | undefined, now: number): LeaseSpec {
    const renewing = previous?.holderIdentity === this.options.identity;
    const time = microTime(now);
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.options.leaseDurationMs / 1000),
      acquireTime: renewing && previous.acquireTime ? previous.acquireTime : time,
      renewTime: time,
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (previous && !renewing ? 1 : 0),
    };
  }

  private lose(reason: string): void {
    if (!this.leading || this.stopped) return;
    this.leading = false;
    this.stopped = true;
    this.written = undefined;
    this.options.timers.clearTimeout(this.nextAttempt);
    this.options.timers.clearTimeout(this.renewDeadline);
    this.options.log.warn(`${this.options.identity} stopped leading: ${reason}`);
    this.options.onStoppedLeading(reason);
  }

  /** An empty holder lets the next candidate acquire without waiting for expiry. */
  private async release(held: Lease): Promise<void> {
    const { api, namespace, name, timers, log } = this.options;
    const time = microTime(timers.now());
    const spec: LeaseSpec = {
      leaseDurationSeconds: 1,
      leaseTransitions: held.spec?.leaseTransitions ?? 0,
      acquireTime: time,
      renewTime: time,
    };
    try {
      await api.replace(namespace, name, { ...held, spec });
      log.info(`${this.options.identity} released lease ${namespace}/${name}`);
    } catch (error) {
      log.warn(`could not release the lease (it expires on its own): ${errorMessage(error)}`);
    }
  }
}

/** Kubernetes' MicroTime: RFC 3339 in UTC with six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
