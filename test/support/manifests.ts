// Sends manifests the way `kubectl apply` does on first apply: a create with strict field
// validation, so that unknown fields are refused rather than dropped.
import {
  CustomObjectsApi,
  KubernetesObjectApi,
  type KubernetesObject,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { kubeConfig } from './environment.ts';

export type Manifest = KubernetesObject & Record<string, unknown>;

export function readManifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

function pluralOf(kind: string | undefined): string {
  const definition = Object.values(KINDS).find((k) => k.kind === kind);
  if (!definition) throw new Error(`${kind} is not a kind of ${GROUP}`);
  return definition.plural;
}

/** Of ours and cluster-scoped: a TemporalClusterConnection. */
export function clusterScoped(manifest: Manifest): boolean {
  return (
    manifest.apiVersion === `${GROUP}/${VERSION}` &&
    Object.values(KINDS).some((k) => k.kind === manifest.kind && 'scope' in k && k.scope === 'Cluster')
  );
}

/**
 * Creates the object in `namespace` (a cluster-scoped one in none) and returns it as stored,
 * defaults filled in.
 */
export async function create(manifest: Manifest, namespace: string): Promise<Manifest> {
  const body = { ...manifest, metadata: { ...manifest.metadata, namespace } };
  if (manifest.apiVersion !== `${GROUP}/${VERSION}`)
    return await KubernetesObjectApi.makeApiClient(kubeConfig()).create(body);
  if (clusterScoped(manifest))
    return (await kubeConfig()
      .makeApiClient(CustomObjectsApi)
      .createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: pluralOf(manifest.kind),
        body: manifest,
        fieldValidation: 'Strict',
      })) as Manifest;
  return (await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: pluralOf(manifest.kind),
      body,
      fieldValidation: 'Strict',
    })) as Manifest;
}

/** Replaces an object of ours with `manifest`, keeping the stored resourceVersion. */
export async function replace(manifest: Manifest, stored: Manifest, namespace: string): Promise<Manifest> {
  const body = {
    ...manifest,
    metadata: { ...manifest.metadata, namespace, resourceVersion: stored.metadata?.resourceVersion },
  };
  return (await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .replaceNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: pluralOf(manifest.kind),
      name: manifest.metadata?.name ?? '',
      body,
      fieldValidation: 'Strict',
    })) as Manifest;
}

/** Merges `status` into the status of the TemporalWorkerDeployment `name`, as another writer would. */
export async function patchWorkerDeploymentStatus(
  namespace: string,
  name: string,
  status: Record<string, unknown>,
): Promise<void> {
  await kubeConfig().makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
    {
      group: GROUP,
      version: VERSION,
      namespace,
      plural: KINDS.TemporalWorkerDeployment.plural,
      name,
      body: { status },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** Deletes a cluster-scoped object of ours: a test's namespace takes nothing of that kind with it. */
export async function remove(manifest: Manifest): Promise<void> {
  await kubeConfig()
    .makeApiClient(CustomObjectsApi)
    .deleteClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: pluralOf(manifest.kind),
      name: manifest.metadata?.name ?? '',
    });
}
