// A cache of one kind of object kept current by list+watch, that heals itself: client-node's
// informer re-watches on its own after a normal watch end and relists after 410 Gone, but stops
// on any other error; this one starts it again with backoff, for as long as it is not stopped.
import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  type Watch,
} from '@kubernetes/client-node';
import { errorMessage } from '../k8s/api-errors.ts';
import { LongWatch } from './long-watch.ts';
import type { Logger } from './logger.ts';

export type InformerEvent = 'add' | 'update' | 'delete';

export interface InformerOptions<T extends KubernetesObject> {
  kubeconfig: KubeConfig;
  /** API path to list and watch, e.g. /apis/apps/v1/deployments. */
  path: string;
  list: () => Promise<KubernetesListObject<T>>;
  labelSelector?: string;
  /** Like labelSelector, applied to the watch; `list` must apply the same to its call. */
  fieldSelector?: string;
  /** How watches are made; default: a LongWatch of kubeconfig. */
  watch?: Watch;
  onEvent: (event: InformerEvent, object: T) => void;
  log?: Logger;
  backoff?: { initialMs: number; maxMs: number };
}

export class SelfHealingInformer<T extends KubernetesObject> {
  private readonly informer: ListWatch<T>;
  private readonly options: InformerOptions<T>;
  private readonly initialDelayMs: number;
  private delayMs: number;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private errors = 0;
  private hasSynced = false;
  private readonly firstSync: Promise<void>;
  private markSynced: () => void = () => {};

  constructor(options: InformerOptions<T>) {
    this.options = options;
    this.initialDelayMs = options.backoff?.initialMs ?? 1000;
    this.delayMs = this.initialDelayMs;
    this.firstSync = new Promise((resolve) => (this.markSynced = resolve));
    // makeInformer takes no field selector; this is what it builds, with one.
    this.informer = new ListWatch<T>(
      options.path,
      options.watch ?? new LongWatch(options.kubeconfig),
      options.list,
      false,
      options.labelSelector,
      options.fieldSelector,
    );
    for (const event of ['add', 'update', 'delete'] as const)
      this.informer.on(event, (object) => options.onEvent(event, object));
    this.informer.on('error', (error: unknown) => this.failed(error));
  }

  /** Resolves once a list has reached the cache, however many attempts that takes. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.attempt();
    await this.firstSync;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.markSynced(); // nobody waits forever on a stopped informer
    await this.informer.stop();
  }

  /** A list has reached the cache: reads from it mean something. */
  get synced(): boolean {
    return this.hasSynced;
  }

  get(namespace: string, name: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace);
  }

  /** client-node reports a failed list or watch as an event, not as a rejection. */
  private async attempt(): Promise<void> {
    const errorsBefore = this.errors;
    try {
      await this.informer.start();
    } catch (error) {
      this.failed(error);
      return;
    }
    if (this.errors !== errorsBefore || this.stopped) return;
    this.hasSynced = true;
    this.delayMs = this.initialDelayMs;
    this.markSynced();
  }

  private failed(error: unknown): void {
    this.errors++;
    if (this.stopped) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(delay * 2, this.options.backoff?.maxMs ?? 30_000);
    this.options.log?.warn(
      { path: this.options.path, error: errorMessage(error), retryInMs: delay },
      'watch failed; listing again',
    );
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.attempt(), delay);
  }
}
