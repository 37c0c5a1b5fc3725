// Which ConfigMaps and Secrets the Pod templates read, and whose reconcile a change of one queues:
// per holder (a worker deployment's spec, a build's Deployment), what it reads and the keys it
// queues, kept as the watch table's rows report them (watches.ts), so an event costs the holder's
// own change, not a walk of every template.

export type ReadKind = 'ConfigMap' | 'Secret';

export interface NamedObject {
  namespace: string;
  name: string;
}

/** What one holder's Pod templates read; `objects` empty once it is gone. */
export interface HolderReads {
  holder: string;
  /** The queue keys a change of one of its objects queues. */
  keys: string[];
  objects: (NamedObject & { kind: ReadKind })[];
}

export class TemplateReads {
  private readonly byHolder = new Map<string, { keys: string[]; objects: string[] }>();
  /** Per object (`Kind/namespace/name`), the holders that read it. */
  private readonly holders = new Map<string, Set<string>>();

  /** Records what a holder reads now; true when the objects read by anyone changed. */
  set({ holder, keys, objects }: HolderReads): boolean {
    const before = this.byHolder.get(holder)?.objects ?? [];
    const now = [...new Set(objects.map(idOf))];
    if (now.length === 0) this.byHolder.delete(holder);
    else this.byHolder.set(holder, { keys, objects: now });
    let changed = false;
    for (const id of before.filter((id) => !now.includes(id))) {
      const readers = this.holders.get(id);
      readers?.delete(holder);
      if (readers?.size === 0) {
        this.holders.delete(id);
        changed = true;
      }
    }
    for (const id of now.filter((id) => !before.includes(id))) {
      const readers = this.holders.get(id) ?? new Set<string>();
      if (readers.size === 0) changed = true;
      this.holders.set(id, readers.add(holder));
    }
    return changed;
  }

  /** The queue keys of every holder that reads the object, each once. */
  readers(kind: ReadKind, namespace: string, name: string): string[] {
    const holders = this.holders.get(idOf({ kind, namespace, name })) ?? new Set<string>();
    return [...new Set([...holders].flatMap((holder) => this.byHolder.get(holder)?.keys ?? []))];
  }

  /** Every object of the kind that some holder reads. */
  objects(kind: ReadKind): NamedObject[] {
    return [...this.holders.keys()].flatMap((id) => {
      const [idKind, namespace = '', name = ''] = id.split('/');
      return idKind === kind ? [{ namespace, name }] : [];
    });
  }
}

function idOf(object: NamedObject & { kind: ReadKind }): string {
  return `${object.kind}/${object.namespace}/${object.name}`;
}
