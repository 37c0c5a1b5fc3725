// The finalizer that holds a TemporalWorkerDeployment until Temporal is cleaned up, and its
// TemporalConnection while any worker deployment still needs it to do so.

export const FINALIZER = 'temporal.io/delete-protection';

/** Read loosely: client-node types it as a Date, the informers' objects carry the JSON string. */
export function isBeingDeleted(object: { metadata: object }): boolean {
  return Boolean((object.metadata as { deletionTimestamp?: unknown }).deletionTimestamp);
}

export function hasFinalizer(object: { metadata: { finalizers?: string[] } }): boolean {
  return object.metadata.finalizers?.includes(FINALIZER) ?? false;
}
