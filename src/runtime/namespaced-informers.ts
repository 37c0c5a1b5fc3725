// One kind watched in every namespace (one informer) or in each of a list of namespaces (one
// informer each), read as one cache: a controller installed for some namespaces lists and watches
// nothing outside them, so it needs no right outside them.
import { type InformerOptions, type KubernetesObject, SelfHealingInformer } from './informer.ts';

export interface NamespacedInformersOptions<T extends KubernetesObject> extends Omit<InformerOptions<T>, 'path'> {
  /** The API path of the kind in a scope: '' for every namespace, or `/namespaces/<name>`. */
  path: (scope: string) => string;
  /** Default: every namespace. */
  namespaces?: readonly string[];
}

export class NamespacedInformers<T extends KubernetesObject> {
  private readonly byNamespace: Map<string, SelfHealingInformer<T>>;
  /** The one informer of every namespace, when there is no list. */
  private readonly everywhere: SelfHealingInformer<T> | undefined;

  constructor(options: NamespacedInformersOptions<T>) {
    const { path, namespaces, ...rest } = options;
    this.byNamespace = new Map(
      (namespaces ?? []).map((namespace) => [
        namespace,
        new SelfHealingInformer<T>({ ...rest, path: path(`/namespaces/${namespace}`) }),
      ]),
    );
    this.everywhere = namespaces ? undefined : new SelfHealingInformer<T>({ ...rest, path: path('') });
  }

  private all(): SelfHealingInformer<T>[] {
    return this.everywhere ? [this.everywhere] : [...this.byNamespace.values()];
  }

  /** The API path each informer lists and watches. */
  get paths(): string[] {
    return this.all().map((informer) => informer.path);
  }

  async start(): Promise<void> {
    await Promise.all(this.all().map((informer) => informer.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((informer) => informer.stop()));
  }

  get(namespace: string, name: string): T | undefined {
    return (this.everywhere ?? this.byNamespace.get(namespace))?.get(namespace, name);
  }

  list(namespace?: string): readonly T[] {
    if (this.everywhere) return this.everywhere.list(namespace);
    if (namespace !== undefined) return this.byNamespace.get(namespace)?.list(namespace) ?? [];
    return [...this.byNamespace.values()].flatMap((informer) => informer.list());
  }
}
