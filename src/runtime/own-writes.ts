// The controller's own writes of an object, until its informer shows them. A reconcile that runs
// right after the controller wrote a status (it comes back at once after a routing change) would
// otherwise decide on the cache's older copy, without the memory that write added: a failed gate,
// for one, and routing would move traffic again to the build whose gate failed.

interface Versioned {
  metadata: { namespace?: string; name?: string; resourceVersion?: string };
}

export class OwnWrites<T extends Versioned> {
  /**
   * Per `namespace/name`: the object as the controller's last write stored it, and every version
   * its chain of writes replaced. Writes can follow one another faster than the informer: a
   * reconcile decides on the controller's last write, writes again, and the cache still holds the
   * version before the first; each of those versions is older than the last write.
   */
  private readonly written = new Map<string, { replaced: Set<string>; stored: T }>();

  /** `replaced`: the resourceVersion the write carried; `stored`: the object the API server returned. */
  wrote(replaced: string | undefined, stored: T): void {
    if (replaced === undefined) return;
    const key = keyOf(stored);
    const chain = this.written.get(key);
    const earlier = chain?.stored.metadata.resourceVersion === replaced ? chain.replaced : [];
    this.written.set(key, { replaced: new Set([...earlier, replaced]), stored });
  }

  /** The cached object, or what the controller wrote over it while the cache still holds a version its writes replaced. */
  newest(cached: T | undefined): T | undefined {
    if (!cached) return cached;
    this.seen(cached);
    return this.written.get(keyOf(cached))?.stored ?? cached;
  }

  /**
   * The informer shows `cached`: once it is no version the writes replaced, the cache caught up
   * with them or moved past them, and they are let go (a thousand worker deployments that all
   * wrote a status would otherwise each hold it until their next reconcile).
   */
  seen(cached: T): void {
    const key = keyOf(cached);
    if (this.written.get(key)?.replaced.has(cached.metadata.resourceVersion ?? '') === false) this.written.delete(key);
  }

  forget(namespace: string, name: string): void {
    this.written.delete(`${namespace}/${name}`);
  }
}

function keyOf(object: Versioned): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}
