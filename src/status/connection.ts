// The conditions of a TemporalConnection that is not being deleted: whether the controller reached
// Temporal with its address and credentials, as one kstatus-consistent set. Pure.
import { type Condition, progressing, stalled } from './conditions.ts';

export type ConnectionCheck =
  | { reached: true }
  /** TemporalUnreachable may pass with time; the others need a person: a Secret missing, unusable or out of reach, or credentials Temporal refused. */
  | {
      reached: false;
      reason:
        | 'TemporalUnreachable'
        | 'SecretNotFound'
        | 'InvalidSecret'
        | 'InvalidSpec'
        | 'TokenUnavailable'
        | 'TokenRefused'
        | 'TemporalCredentialsRefused';
      message: string;
    };

/** What the check says, for conditionSet to make the whole set of. */
export function connectionConditions(hostPort: string, check: ConnectionCheck): Condition[] {
  if (check.reached)
    return [{ type: 'Ready', status: 'True', reason: 'Connected', message: `reached Temporal at ${hostPort}` }];
  if (check.reason === 'TemporalUnreachable')
    return [progressing('True', check.reason, `${check.message}; trying again with backoff`)];
  return [stalled(check.reason, check.message)];
}
