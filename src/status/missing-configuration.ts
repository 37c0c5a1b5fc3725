// What the status says of ConfigMaps and Secrets the target build's Pods read, not optionally,
// that do not exist: the Pods cannot start (a variable's source is missing, or a volume cannot be
// mounted, which no container status tells), so the rollout waits, and says on what. Pure.
import type { MissingConfiguration } from '../domain/observation.ts';

export const CONFIGURATION_MISSING = 'ConfigurationMissing';

export interface MissingConfigurationSays {
  text: string;
  /** One per object, worded the same at every reconcile: each is written once. */
  events: { reason: string; message: string }[];
}

/** Undefined when nothing is missing. */
export function missingConfigurationSays(
  missing: readonly MissingConfiguration[] | undefined,
  namespace: string,
  buildId: string,
): MissingConfigurationSays | undefined {
  if (!missing || missing.length === 0) return undefined;
  const each = missing.map((m) => `${m.kind} ${namespace}/${m.name} (${m.field})`);
  const advice =
    'create it, or mark the reference optional: true; the running builds keep their Pods, and the new build starts once it exists';
  return {
    text: `build ${buildId}'s Pods cannot start: they read ${each.join(', ')}, which ${missing.length === 1 ? 'does' : 'do'} not exist: ${advice}`,
    events: each.map((object) => ({
      reason: CONFIGURATION_MISSING,
      message: `build ${buildId}'s Pods read ${object}, which does not exist: ${advice}`,
    })),
  };
}
