// The Secrets that TemporalConnections reference, each cached by a watch of its own name
// (metadata.name field selector): the controller never lists or watches every Secret it could read.
import type { V1Secret } from '@kubernetes/client-node';
import { SelfHealingInformer } from './informer.ts';
import type { KubernetesApi } from './kube/api-client.ts';
import type { Logger } from './logger.ts';

export interface SecretWatchesOptions {
  api: KubernetesApi;
  /** A watched Secret was added, changed or deleted. */
  onChange: (namespace: string, name: string) => void;
  log?: Logger;
  /** How long get() waits for a new watch's first list. */
  syncTimeoutMs?: number;
}

interface SecretWatch {
  informer: SelfHealingInformer<V1Secret>;
  synced: Promise<void>;
}

export class SecretWatches {
  private readonly options: SecretWatchesOptions;
  private readonly watches = new Map<string, SecretWatch>();
  private stopped = false;

  constructor(options: SecretWatchesOptions) {
    this.options = options;
  }

  /** Watches exactly these Secrets: starts the new ones, stops the others. */
  watchOnly(secrets: Iterable<{ namespace: string; name: string }>): void {
    if (this.stopped) return;
    const wanted = new Set<string>();
    for (const { namespace, name } of secrets) {
      wanted.add(keyOf(namespace, name));
      this.watch(namespace, name);
    }
    for (const [key, watch] of this.watches) {
      if (wanted.has(key)) continue;
      this.watches.delete(key);
      watch.informer
        .stop()
        .catch((error: unknown) =>
          this.options.log?.warn({ secret: key, error: String(error) }, 'stopping the watch of a Secret failed'),
        );
    }
  }

  /** The Secret as cached, undefined when it does not exist; the first call for a Secret waits for its watch to list. */
  async get(namespace: string, name: string): Promise<V1Secret | undefined> {
    const watch = this.watch(namespace, name);
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = this.options.syncTimeoutMs ?? 10_000;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `Secret ${namespace}/${name} could not be read within ${timeoutMs / 1000}s (is the controller allowed to list and watch it?)`,
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

  private watch(namespace: string, name: string): SecretWatch {
    const key = keyOf(namespace, name);
    const existing = this.watches.get(key);
    if (existing) return existing;
    // A reconcile still running at shutdown must not start a watch that nobody stops.
    if (this.stopped) throw new Error(`Secret ${key} is not watched: the controller is stopping`);
    const informer = new SelfHealingInformer<V1Secret>({
      api: this.options.api,
      path: `/api/v1/namespaces/${namespace}/secrets`,
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
