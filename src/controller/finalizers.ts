// Puts the finalizer on and takes it off (see domain/finalizer.ts).
import { FINALIZER, hasFinalizer } from '../domain/finalizer.ts';
import type { ClusterClient, Finalizable } from '../k8s/cluster-client.ts';

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

export async function removeFinalizer(cluster: ClusterClient, plural: string, object: Finalizable): Promise<void> {
  if (!hasFinalizer(object)) return;
  await cluster.setFinalizers(
    plural,
    object,
    (object.metadata.finalizers ?? []).filter((f) => f !== FINALIZER),
  );
}
