// Creating a TemporalWorkerOwnedResource the way a user would, to see what admission says.
import { createAs } from './admission.ts';
import { uniqueName } from './environment.ts';

/**
 * Creates a twor owning `object` for the worker deployment `orders`, as `user` (impersonated) or
 * the admin; resolves to the API server's refusal, or '' when it was created.
 */
export async function createOwnedResource(
  namespace: string,
  object: Record<string, unknown>,
  user?: string,
): Promise<string> {
  return createAs(
    'TemporalWorkerOwnedResource',
    namespace,
    { metadata: { name: uniqueName('twor') }, spec: { workerRef: { name: 'orders' }, object } },
    user,
  );
}
