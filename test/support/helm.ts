// helm, as built into the binaries cache, and what the tests do with what it renders.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { ApiResources } from '../../src/k8s/api-resources.ts';
import { binaryPaths } from '../../dev/localenv/binaries.ts';
import type { KubernetesApi, Query } from '../../src/runtime/kube/api-client.ts';

const run = promisify(execFile);

export const CONTROLLER_CHART = path.join(import.meta.dirname, '../../charts/temporal-worker-controller');
export const CRD_CHART = path.join(import.meta.dirname, '../../charts/temporal-worker-controller-crds');

export async function helm(...args: string[]): Promise<string> {
  const { stdout } = await run(binaryPaths().helm, args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** Creates each object of a rendering, in order, in its own namespace or else `namespace` when it is namespaced; a refusal names the object. */
export async function createRendered(
  api: KubernetesApi,
  rendered: string,
  namespace: string,
  query?: Query,
): Promise<RenderedObject[]> {
  const resources = new ApiResources(api);
  const objects = parseAllDocuments(rendered)
    .map((document) => document.toJS() as RenderedObject | null)
    .filter((object) => object !== null);
  for (const object of objects) {
    const served = await resources.resourceOf(object.apiVersion, object.kind);
    await api
      .request('POST', served.collection(object.metadata.namespace ?? namespace), {
        body: object,
        ...(query ? { query } : {}),
      })
      .catch((error: unknown) => {
        throw new Error(`${object.kind} ${object.metadata.name}: ${String(error)}`, { cause: error });
      });
  }
  return objects;
}
