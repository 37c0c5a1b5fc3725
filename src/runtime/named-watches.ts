// Secrets or ConfigMaps cached one by one, each by a watch of its own name (metadata.name field
// selector): the controller never lists or watches every Secret or ConfigMap it could read. Several
// sources say what to watch (the connections' Secrets, what the Pod templates read): each source's
// set is replaced whole, and an object is watched while any source names it.
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { SelfHealingInformer } from './informer.ts';
import type { KubernetesApi } from './kube/api-client.ts';
import type { Logger } from './logger.ts';

const PLURALS = { Secret: 'secrets', ConfigMap: 'configmaps' } as const;

interface Kinds {
  Secret: V1Secret;
  ConfigMap: V1ConfigMap;
}

export interface NamedWatchesOptions<K extends keyof Kinds> {
  api: KubernetesApi;
  kind: K;
  /** A watched object was added, changed or deleted. */
  onChange: (namespace: string, name: string) => void;
  log?: Logger;
  /** How long get() waits for a new watch's first list. */
  syncTimeoutMs?: number;
}

interface NamedWatch<T extends V1Secret | V1ConfigMap> {
  informer: SelfHealingInformer<T>;
  synced: Promise<void>;
}

export class NamedWatches<K extends keyof Kinds> {
  private readonly options: NamedWatchesOptions<K>;
  private readonly watches = new Map<string, NamedWatch<Kinds[K]>>();
  /** Per source, the keys it wants watched. */
  private readonly wanted = new Map<string, Set<string>>();
  private stopped = false;

  constructor(options: NamedWatchesOptions<K>) {
    this.options = options;
  }

  /** Watches exactly these objects for `source`: starts the new ones, stops those no source names. */
  watchOnly(objects: Iterable<{ namespace: string; name: string }>, source = ''): void {
    if (this.stopped) return;
    const keys = new Set<string>();
    for (const { namespace, name } of objects) {
      keys.add(keyOf(namespace, name));
      this.watch(namespace, name);
    }
    this.wanted.set(source, keys);
    for (const [key, watch] of this.watches) {
      if ([...this.wanted.values()].some((wanted) => wanted.has(key))) continue;
      this.watches.delete(key);
      watch.informer
        .stop()
        .catch((error: unknown) =>
          this.options.log?.warn(
            { kind: this.options.kind, object: key, error: String(error) },
            'stopping the watch of an object failed',
          ),
        );
    }
  }

  /** The object as cached, undefined when it does not exist; the first call for one waits for its watch to list. */
  async get(namespace: string, name: string): Promise<Kinds[K] | undefined> {
    const watch = this.watch(namespace, name);
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = this.options.syncTimeoutMs ?? 10_000;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `${this.options.kind} ${namespace}/${name} could not be read within ${timeoutMs / 1000}s (is the controller allowed to list and watch it?)`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([watch.synced, timedOut]);
    } finally {
      clearTimeout(timer);
    }
    return watch.informer.get(namespace, name);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const watches = [...this.watches.values()];
    this.watches.clear();
    await Promise.all(watches.map((w) => w.informer.stop()));
  }

  private watch(namespace: string, name: string): NamedWatch<Kinds[K]> {
    const key = keyOf(namespace, name);
    const existing = this.watches.get(key);
    if (existing) return existing;
    // A reconcile still running at shutdown must not start a watch that nobody stops.
    if (this.stopped) throw new Error(`${this.options.kind} ${key} is not watched: the controller is stopping`);
    const informer = new SelfHealingInformer<Kinds[K]>({
      api: this.options.api,
      path: `/api/v1/namespaces/${namespace}/${PLURALS[this.options.kind]}`,
      fieldSelector: `metadata.name=${name}`,
      onEvent: () => this.options.onChange(namespace, name),
      ...(this.options.log ? { log: this.options.log } : {}),
    });
    const watch = { informer, synced: informer.start() };
    this.watches.set(key, watch);
    return watch;
  }
}

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
