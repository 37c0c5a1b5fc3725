// A TemporalConnection's conditions as a test waits for them.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import { eventually, kubeConfig } from './environment.ts';

export type Conditions = Record<string, { status: string; reason: string; message: string }>;

/** The connection's (`temporal` unless named) conditions by type, once `wanted` holds of them. */
export async function connectionUntil(
  namespace: string,
  what: string,
  wanted: (conditions: Conditions) => boolean,
  name = 'temporal',
): Promise<Conditions> {
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  let seen: Conditions = {};
  return eventually(
    `connection ${name}: ${what}`,
    async () => {
      const connection = (await custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: KINDS.TemporalConnection.plural,
        name,
      })) as TemporalConnection;
      seen = Object.fromEntries((connection.status?.conditions ?? []).map((c) => [c.type, c]));
      return wanted(seen) ? seen : undefined;
    },
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; last seen: ${JSON.stringify(seen)}`);
  });
}

export const ready = (status: string, reason: string) => (c: Conditions) =>
  c.Ready?.status === status && c.Ready.reason === reason;
