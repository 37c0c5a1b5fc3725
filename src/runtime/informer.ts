// A cache of one kind of object kept current by list and watch, as client-go's reflector keeps
// it: it lists (in pages), then watches from the list's resourceVersion for as long as the server
// keeps the watch open, and lists again after 410 Gone or any failure, with backoff, until it is
// stopped. It keeps of each object what its `keep` says (the fields the controller reads).
// Watches stay open while nothing changes: the API server ends each after 5 to 10 minutes
// (spread, so that informers do not come back together) and sends a bookmark about once a
// minute, which moves the resourceVersion on; a connection silent for twice that is given up.
import {
  errorMessage,
  httpStatus,
  KubernetesApiError,
  type KubernetesStatus,
  KubernetesUnreachableError,
} from './kube/api-errors.ts';
import type { KubernetesApi, Query, WatchEvent, WatchStream } from './kube/api-client.ts';
import type { Logger } from './logger.ts';

export type InformerEvent = 'add' | 'update' | 'delete';

/** What the informer needs of an object. */
export interface KubernetesObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

export interface InformerOptions<T extends KubernetesObject> {
  api: KubernetesApi;
  /** API path to list and watch, e.g. /apis/apps/v1/deployments. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  onEvent: (event: InformerEvent, object: T) => void;
  /**
   * What the cache keeps of each object listed or watched, and what its events carry: the fields
   * the controller reads (k8s/cached-objects.ts). Default: the object as the server sent it.
   */
  keep?: (object: T) => T;
  log?: Logger;
  backoff?: { initialMs: number; maxMs: number };
  random?: () => number;
}

/** The API server's watch cache sends each watcher a bookmark about this often. */
const BOOKMARK_PERIOD_MS = 60_000;
const SILENCE_LIMIT_MS = 2 * BOOKMARK_PERIOD_MS;
const SERVER_TIMEOUT_S = { min: 300, max: 600 };
/**
 * Objects a list asks for at a time. client-go's reflector asks for 500; pages of 100 peaked about
 * 20 MiB lower over a thousand worker deployments of 6 Pods each (test/bench/cache-memory.bench.ts).
 */
export const LIST_PAGE = 100;

export class SelfHealingInformer<T extends KubernetesObject> {
  private readonly options: InformerOptions<T>;
  /** By namespace ('' for cluster-scoped objects), then name. */
  private readonly cache = new Map<string, Map<string, T>>();
  private readonly initialDelayMs: number;
  private delayMs: number;
  private resourceVersion: string | undefined;
  private stopped = true;
  private hasSynced = false;
  private firstSync: Promise<void> = Promise.resolve();
  private markSynced: () => void = () => {};
  private watch: WatchStream | undefined;
  private wake: () => void = () => {};
  private running: Promise<void> = Promise.resolve();

  constructor(options: InformerOptions<T>) {
    this.options = options;
    this.initialDelayMs = options.backoff?.initialMs ?? 1000;
    this.delayMs = this.initialDelayMs;
  }

  /** Resolves once a list has reached the cache, however many attempts that takes. */
  async start(): Promise<void> {
    if (!this.stopped) return this.firstSync;
    this.stopped = false;
    this.firstSync = new Promise((resolve) => (this.markSynced = resolve));
    this.running = this.run();
    return this.firstSync;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.markSynced(); // nobody waits forever on a stopped informer
    this.watch?.abort();
    this.wake();
    await this.running;
  }

  /** The API path it lists and watches. */
  get path(): string {
    return this.options.path;
  }

  /** A list has reached the cache: reads from it mean something. */
  get synced(): boolean {
    return this.hasSynced;
  }

  get(namespace: string, name: string): T | undefined {
    return this.cache.get(namespace)?.get(name);
  }

  list(namespace?: string): readonly T[] {
    if (namespace !== undefined) return [...(this.cache.get(namespace)?.values() ?? [])];
    return [...this.cache.values()].flatMap((objects) => [...objects.values()]);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.resourceVersion === undefined) await this.relist();
        if (this.stopped) return;
        await this.watchOnce();
        this.delayMs = this.initialDelayMs;
      } catch (error) {
        if (this.stopped) return;
        const delay = this.delayMs;
        this.delayMs = Math.min(delay * 2, this.options.backoff?.maxMs ?? 30_000);
        // A connection lost or silent loses no event: a watch from the last resourceVersion sends
        // what came since, or 410 when the server no longer has it. A relist reads and holds every
        // object again (2,000 Deployments, to learn that none changed).
        const resumable = error instanceof KubernetesUnreachableError && this.resourceVersion !== undefined;
        this.options.log?.warn(
          {
            path: this.options.path,
            error: errorMessage(error),
            retryInMs: delay,
            ...(resumable ? { resourceVersion: this.resourceVersion } : {}),
          },
          resumable ? 'watch failed; watching again from where it was' : 'watch failed; listing again',
        );
        if (!resumable) this.resourceVersion = undefined;
        await this.sleep(delay);
      }
    }
  }

  private selectors(): Query {
    const { labelSelector, fieldSelector } = this.options;
    return { labelSelector, fieldSelector };
  }

  /** Replaces the cache with a list, reporting what the list says changed since the cache was filled. */
  private async relist(): Promise<void> {
    const listed = await this.listAll();
    if (!listed) return;
    const before = new Map([...this.cache].map(([namespace, objects]) => [namespace, new Map(objects)]));
    this.cache.clear();
    for (const object of listed.items) {
      const previous = before.get(namespaceOf(object))?.get(nameOf(object));
      before.get(namespaceOf(object))?.delete(nameOf(object));
      this.put(object);
      if (!previous) this.options.onEvent('add', object);
      else if (previous.metadata?.resourceVersion !== object.metadata?.resourceVersion)
        this.options.onEvent('update', object);
    }
    for (const objects of before.values()) for (const gone of objects.values()) this.options.onEvent('delete', gone);
    this.resourceVersion = listed.resourceVersion;
    this.hasSynced = true;
    this.markSynced();
  }

  /**
   * Every object, as the cache keeps it, in pages of LIST_PAGE (as client-go's reflector lists):
   * only a page's text and objects are held whole at a time, not those of the whole list. All pages
   * are of the first one's resourceVersion; a continue token that expired meanwhile fails the
   * list (410), and the next attempt starts again. Undefined once stopped.
   */
  private async listAll(): Promise<{ items: T[]; resourceVersion: string } | undefined> {
    const keep = this.options.keep ?? ((object: T) => object);
    const items: T[] = [];
    let next: string | undefined;
    for (;;) {
      const page = await this.options.api.get<{
        metadata?: { resourceVersion?: string; continue?: string };
        items: T[];
      }>(this.options.path, { ...this.selectors(), limit: LIST_PAGE, continue: next });
      if (this.stopped) return undefined;
      // An object unchanged since the cache took it stays the one cached: a relist then holds one
      // page anew at a time, not a second copy of every object until it ends.
      for (const object of page.items) {
        const cached = this.get(namespaceOf(object), nameOf(object));
        const unchanged = cached && cached.metadata?.resourceVersion === object.metadata?.resourceVersion;
        items.push(unchanged ? cached : keep(object));
      }
      next = page.metadata?.continue || undefined;
      if (!next) return { items, resourceVersion: page.metadata?.resourceVersion ?? '' };
    }
  }

  /** One watch, until the server ends it (resolves) or it fails (rejects); 410 Gone clears the resourceVersion. */
  private async watchOnce(): Promise<void> {
    const random = this.options.random ?? Math.random;
    const { min, max } = SERVER_TIMEOUT_S;
    const query: Query = {
      ...this.selectors(),
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: Math.floor(min + random() * (max - min)),
    };
    let expired = false;
    const stream = await this.options.api.watch(
      this.options.path,
      query,
      (event) => {
        if (event.type !== 'ERROR') return this.apply(event);
        const status = event.object as KubernetesStatus;
        if (status.code === 410) expired = true;
        else throw new KubernetesApiError('GET', this.options.path, status.code ?? 500, status);
        stream.abort();
      },
      SILENCE_LIMIT_MS,
    );
    this.watch = stream;
    if (this.stopped) stream.abort();
    try {
      await stream.ended;
    } catch (error) {
      // The server may also answer an expired resourceVersion with 410 before the stream starts.
      if (httpStatus(error) !== 410) throw error;
      expired = true;
    } finally {
      this.watch = undefined;
    }
    // Too old a resourceVersion: the server no longer has the changes since; only a list does.
    if (expired) this.resourceVersion = undefined;
  }

  private apply({ type, object }: WatchEvent): void {
    const sent = object as T;
    this.resourceVersion = sent.metadata?.resourceVersion ?? this.resourceVersion;
    if (type === 'BOOKMARK') return;
    const typed = this.options.keep ? this.options.keep(sent) : sent;
    if (type === 'DELETED') {
      this.cache.get(namespaceOf(typed))?.delete(nameOf(typed));
      this.options.onEvent('delete', typed);
      return;
    }
    const known = this.get(namespaceOf(typed), nameOf(typed)) !== undefined;
    this.put(typed);
    this.options.onEvent(known ? 'update' : 'add', typed);
  }

  private put(object: T): void {
    const namespace = namespaceOf(object);
    const objects = this.cache.get(namespace) ?? new Map<string, T>();
    this.cache.set(namespace, objects);
    objects.set(nameOf(object), object);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

function namespaceOf(object: KubernetesObject): string {
  return object.metadata?.namespace ?? '';
}

function nameOf(object: KubernetesObject): string {
  return object.metadata?.name ?? '';
}
