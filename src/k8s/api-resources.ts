// Where the API server serves a kind: its resource path, from discovery, cached per group and
// version. An owned resource may be of any kind, a CRD installed after the controller started
// among them, so a kind not found is looked up again, at most once a minute per group and version.
import { KubernetesApiError, httpStatus } from '../runtime/kube/api-errors.ts';

/** The part of the API client discovery needs. */
export interface DiscoveryApi {
  get<T>(path: string): Promise<T>;
}

interface ResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

export interface ServedResource {
  /** The resource's plural name, e.g. `horizontalpodautoscalers`. */
  resource: string;
  /** e.g. `/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers`. */
  collection(namespace: string): string;
  namespaced: boolean;
}

/** The kind is not served (its API or CRD is not installed), or not at that version. */
export class KindNotServedError extends Error {
  override name = 'KindNotServedError';
}

const RELOOK_MS = 60_000;

export class ApiResources {
  private readonly api: DiscoveryApi;
  private readonly now: () => number;
  private readonly lists = new Map<string, { at: number; list: ResourceList | undefined }>();

  constructor(api: DiscoveryApi, now: () => number = Date.now) {
    this.api = api;
    this.now = now;
  }

  async resourceOf(apiVersion: string, kind: string): Promise<ServedResource> {
    let list = await this.list(apiVersion, false);
    let found = list?.resources.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!found) {
      list = await this.list(apiVersion, true);
      found = list?.resources.find((r) => r.kind === kind && !r.name.includes('/'));
    }
    if (!found)
      throw new KindNotServedError(
        `the API server does not serve kind ${kind} of ${apiVersion}${list ? '' : ` (it serves no ${apiVersion})`}: install its API or CustomResourceDefinition, or fix spec.object.apiVersion and kind`,
      );
    const { name, namespaced } = found;
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return {
      resource: name,
      namespaced,
      collection: (namespace) => (namespaced ? `${base}/namespaces/${namespace}/${name}` : `${base}/${name}`),
    };
  }

  private async list(apiVersion: string, again: boolean): Promise<ResourceList | undefined> {
    const cached = this.lists.get(apiVersion);
    if (cached && (!again || this.now() - cached.at < RELOOK_MS)) return cached.list;
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let list: ResourceList | undefined;
    try {
      list = await this.api.get<ResourceList>(path);
    } catch (error) {
      if (!(error instanceof KubernetesApiError) || httpStatus(error) !== 404) throw error;
    }
    this.lists.set(apiVersion, { at: this.now(), list });
    return list;
  }
}
