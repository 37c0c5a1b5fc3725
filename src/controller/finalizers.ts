// The finalizer that holds a TemporalWorkerDeployment until Temporal is cleaned up, and its
// TemporalConnection while any worker deployment still needs it to do so.
import { type CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../api/kinds.ts';

export const FINALIZER = 'temporal.io/delete-protection';

interface Finalizable {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; finalizers?: string[] };
}

/** Read loosely: client-node types it as a Date, the informers' objects carry the JSON string. */
export function isBeingDeleted(object: { metadata: object }): boolean {
  return Boolean((object.metadata as { deletionTimestamp?: unknown }).deletionTimestamp);
}

export function hasFinalizer(object: Finalizable): boolean {
  return object.metadata.finalizers?.includes(FINALIZER) ?? false;
}

/** Resolves with the object as the write left it (finalizers and resourceVersion), or as given when it had the finalizer. */
export async function addFinalizer<T extends Finalizable>(
  customObjects: CustomObjectsApi,
  plural: string,
  object: T,
): Promise<T> {
  if (hasFinalizer(object)) return object;
  const finalizers = [...(object.metadata.finalizers ?? []), FINALIZER];
  const written = await setFinalizers(customObjects, plural, object, finalizers);
  return { ...object, metadata: { ...object.metadata, finalizers, resourceVersion: written.metadata.resourceVersion } };
}

export async function removeFinalizer(
  customObjects: CustomObjectsApi,
  plural: string,
  object: Finalizable,
): Promise<void> {
  if (!hasFinalizer(object)) return;
  await setFinalizers(
    customObjects,
    plural,
    object,
    (object.metadata.finalizers ?? []).filter((f) => f !== FINALIZER),
  );
}

/** The resourceVersion makes the write fail on a list someone else changed meanwhile, instead of dropping their finalizer. */
async function setFinalizers(
  customObjects: CustomObjectsApi,
  plural: string,
  object: Finalizable,
  finalizers: string[],
): Promise<Finalizable> {
  const { name = '', namespace = '', resourceVersion } = object.metadata;
  return (await customObjects.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace,
      plural,
      name,
      body: { metadata: { finalizers, ...(resourceVersion ? { resourceVersion } : {}) } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  )) as Finalizable;
}
