// What a TemporalWorkerDeployment's status says in numbers, for the gauges of /metrics that the
// chart's alerts and dashboard read (status/figures.ts makes them from the status). Types only.

/** One condition of the status: `true` while its status is True. */
export interface ConditionFigure {
  type: string;
  reason: string;
  true: boolean;
}

/** A count of versions and the limit it is held to. */
export interface VersionsFigure {
  /** temporal: versions Temporal records (--temporal-max-versions-in-deployment); ineligible: older builds that took traffic and are not yet drained and scaled to zero (--max-ineligible-versions). */
  counted: 'temporal' | 'ineligible';
  count: number;
  limit: number;
}

export interface StatusFigures {
  conditions: ConditionFigure[];
  /** Builds the status lists, by state (NotRegistered, Inactive, Ramping, Current, Draining, Drained): each state, 0 where none. */
  builds: Record<string, number>;
  /** The target while it ramps: its share of new workflows. */
  ramp?: { buildId: string; percentage: number };
  versions: VersionsFigure[];
  /** The step of spec.sunset.pinnedWorkflows each old build has reached. */
  ladder: { buildId: string; step: string }[];
}
