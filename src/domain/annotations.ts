// Annotations a user sets on a TemporalWorkerDeployment to ask the controller for something the
// spec does not say. They do not change the generation: a change of one brings a reconcile only
// because ACTED_ON_ANNOTATIONS lists it (controller/worker-deployment-changes.ts).

/** A new value runs the target's failed or stuck gate again, without a change of the spec. */
export const RETRY_GATE_ANNOTATION = 'temporal.io/retry-gate';

/** Set to "true" on a worker deployment: delete it now, stranding whatever still runs on its builds. */
export const FORCE_DELETE_ANNOTATION = 'temporal.io/force-delete';

/**
 * Every annotation the controller acts on: a change of one calls for a reconcile, a change of any
 * other (kubectl's, another manager's) does not.
 */
export const ACTED_ON_ANNOTATIONS: readonly string[] = [RETRY_GATE_ANNOTATION, FORCE_DELETE_ANNOTATION];
