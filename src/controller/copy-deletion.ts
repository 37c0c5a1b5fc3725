// The copies of a TemporalWorkerOwnedResource, deleted together (the twor goes, or its kind
// changed), or the one of a build (an autoscaler, before its build is scaled to zero): those its
// labels select, and of those only the ones owned by the Deployments given (owned-resource-copies.ts's
// isCopyOf). A user's own object that carries the labels is left alone; each copy is deleted by its
// uid, so one made anew meanwhile stays too. All as the twor's ServiceAccount: with the namespace's
// rights, never the controller's.
import type { ServiceAccountRef } from '../domain/token-policy.ts';
import type { ClusterClient } from '../k8s/cluster-client.ts';
import { copiesOf, isCopyOf } from '../k8s/owned-resource-copies.ts';

export async function deleteCopies(
  cluster: ClusterClient,
  kind: { apiVersion: string; kind: string },
  namespace: string,
  twor: string,
  owners: ReadonlySet<string>,
  as: ServiceAccountRef,
): Promise<void> {
  const listed = await cluster.listObjects(kind, namespace, copiesOf(twor), as);
  for (const object of listed.filter((o) => isCopyOf(o, twor, owners))) await cluster.deleteObject(object, as);
}
