// The controller's own writes of an object, until its informer shows them. A reconcile that runs
// right after the controller wrote a status (it comes back at once after a routing change) would
// otherwise decide on the cache's older copy, without the memory that write added: a failed gate,
// for one, and routing would move traffic again to the build whose gate failed.

interface Versioned {
  metadata: { namespace?: string; name?: string; resourceVersion?: string };
}

export class OwnWrites<T extends Versioned> {
  /** Per `namespace/name`: the resourceVersion the write replaced, and the object as stored by it. */
  private readonly written = new Map<string, { replaced: string; stored: T }>();

  /** `replaced`: the resourceVersion the write carried; `stored`: the object the API server returned. */
  wrote(replaced: string | undefined, stored: T): void {
    if (replaced === undefined) return;
    this.written.set(keyOf(stored), { replaced, stored });
  }

  /** The cached object, or what the controller wrote over it while the cache still holds the version it replaced. */
  newest(cached: T | undefined): T | undefined {
    if (!cached) return cached;
    const key = keyOf(cached);
    const own = this.written.get(key);
    if (!own) return cached;
    if (cached.metadata.resourceVersion === own.replaced) return own.stored;
    // The cache caught up with the write, or moved past it.
    this.written.delete(key);
    return cached;
  }

  forget(namespace: string, name: string): void {
    this.written.delete(`${namespace}/${name}`);
  }
}

function keyOf(object: Versioned): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}
