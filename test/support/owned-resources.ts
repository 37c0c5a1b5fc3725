// Creating a TemporalWorkerOwnedResource the way a user would, to see what admission says.
import { CustomObjectsApi, setHeaderOptions } from '@kubernetes/client-node';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { kubeConfig, uniqueName } from './environment.ts';

/**
 * Creates a twor owning `object` for the worker deployment `orders`, as `user` (impersonated) or
 * the admin; resolves to the API server's refusal, or '' when it was created.
 */
export async function createOwnedResource(
  namespace: string,
  object: Record<string, unknown>,
  user?: string,
): Promise<string> {
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  try {
    await custom.createNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace,
        plural: KINDS.TemporalWorkerOwnedResource.plural,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'TemporalWorkerOwnedResource',
          metadata: { name: uniqueName('twor') },
          spec: { workerRef: { name: 'orders' }, object },
        },
      },
      user ? setHeaderOptions('Impersonate-User', user) : undefined,
    );
    return '';
  } catch (error) {
    const body = (error as { body?: string }).body ?? String(error);
    return (JSON.parse(body) as { message?: string }).message ?? body;
  }
}
