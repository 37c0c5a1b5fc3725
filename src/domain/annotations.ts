// Annotations a user sets on a TemporalWorkerDeployment to ask the controller for something the
// spec does not say.

/** A new value runs the target's failed or stuck gate again, without a change of the spec. */
export const RETRY_GATE_ANNOTATION = 'temporal.io/retry-gate';
