// A routing change as the planner decides it (a `route` action of planner/plan.ts) and the Temporal
// adapter makes it (temporal/routing.ts). Types only.

/** A routing decision as the executor carries it out. */
export type RoutingChange =
  /** `clearingRampOf`: another build ramps; its ramp is cleared first, in the same change. */
  (
    | { action: 'setCurrent'; buildId: string; clearingRampOf?: string }
    | { action: 'setRamp'; buildId: string; percentage: number }
    | { action: 'clearRamp' }
    /** New workflows go to unversioned workers, whether any poll or not: the worker deployment is being deleted. */
    | { action: 'setUnversioned'; clearingRampOf?: string }
  ) & {
    /** Nobody manages the deployment: the controller becomes its manager first. */
    claimManager: boolean;
    /** The token of the state the change was decided on. */
    conflictToken?: Uint8Array;
  };
