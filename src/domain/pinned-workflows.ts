// The one rule for whether a build may still hold pinned workflows: what sunset, the ladder,
// deletion and the chaos run all decide on. Temporal dispatches pinned workflows to a build that is
// current, ramping or draining; a build that was active once and whose drainage Temporal has not
// reported yet may hold some; and visibility counting one running is proof, whatever the status
// says (Temporal judges drainage from visibility, which can lag a workflow's first task).
import type { VersionStatus } from './snapshot.ts';

export interface BuildDrainage {
  status: VersionStatus;
  /** Temporal has seen it current or ramping. */
  everActive: boolean;
}

/** `running`: pinned workflows visibility counted running on it; undefined when not counted. */
export function mayHoldPinnedWorkflows({ status, everActive }: BuildDrainage, running?: number): boolean {
  if (running !== undefined && running > 0) return true;
  return status === 'Current' || status === 'Ramping' || status === 'Draining' || (status === 'Inactive' && everActive);
}
