// What admission says when a user creates one of our objects: the API server's refusal, or '' when
// it was created.
import { CustomObjectsApi, setHeaderOptions } from '@kubernetes/client-node';
import { GROUP, type KindName, KINDS, VERSION } from '../../src/api/kinds.ts';
import { kubeConfig } from './environment.ts';

/** Creates `body` (its kind's) in `namespace` as `user` (impersonated) or the admin. */
export async function createAs(
  kind: KindName,
  namespace: string,
  body: Record<string, unknown>,
  user?: string,
): Promise<string> {
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  try {
    await custom.createNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace,
        plural: KINDS[kind].plural,
        body: { apiVersion: `${GROUP}/${VERSION}`, kind, ...body },
      },
      user ? setHeaderOptions('Impersonate-User', user) : undefined,
    );
    return '';
  } catch (error) {
    const text = (error as { body?: string }).body ?? String(error);
    return (JSON.parse(text) as { message?: string }).message ?? text;
  }
}
