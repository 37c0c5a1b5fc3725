// Puts the finalizer on and takes it off (see domain/finalizer.ts).
import { FINALIZER, hasFinalizer } from '../domain/finalizer.ts';
import type { ClusterClient, Finalizable, StoredFinalizable } from '../k8s/cluster-client.ts';
import { httpStatus } from '../runtime/kube/api-errors.ts';

/**
 * Resolves with the object as the write left it (finalizers and resourceVersion). The write
 * carries the resourceVersion, so it fails on a list someone else changed meanwhile instead of
 * dropping their finalizer.
 */
export async function addFinalizer<T extends Finalizable>(
  cluster: ClusterClient,
  plural: string,
  object: T,
): Promise<T> {
  if (hasFinalizer(object)) return object;
  const finalizers = [...(object.metadata.finalizers ?? []), FINALIZER];
  const resourceVersion = await cluster.setFinalizers(plural, object, finalizers);
  return { ...object, metadata: { ...object.metadata, finalizers, ...(resourceVersion ? { resourceVersion } : {}) } };
}

/**
 * The finalizer on an object that many worker deployments put it on, their connection: a thousand
 * created at once find it missing in the cache, and all but the first write are refused (409),
 * each then reading Temporal again in a reconcile of its own. The object as stored says whether the
 * refusal matters: with its spec as planned on and not being deleted, only the finalizer is
 * (still) to be written. Rejects with the refusal otherwise, or when a second write is refused.
 */
export async function addSharedFinalizer(
  cluster: ClusterClient,
  plural: string,
  object: StoredFinalizable,
): Promise<Finalizable> {
  try {
    return await addFinalizer(cluster, plural, object);
  } catch (error) {
    if (httpStatus(error) !== 409) throw error;
    const stored = await cluster.readStored(plural, object);
    if (!stored || stored.metadata.deletionTimestamp || stored.metadata.generation !== object.metadata.generation)
      throw error;
    return addFinalizer(cluster, plural, stored);
  }
}

export async function removeFinalizer(cluster: ClusterClient, plural: string, object: Finalizable): Promise<void> {
  if (!hasFinalizer(object)) return;
  await cluster.setFinalizers(
    plural,
    object,
    (object.metadata.finalizers ?? []).filter((f) => f !== FINALIZER),
  );
}
