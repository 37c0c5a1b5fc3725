// The integration tests' controllers run with the rights the chart gives, nothing more: its
// ServiceAccount and RBAC, rendered by helm from the default values, are installed once in the
// shared cluster, and the controllers authenticate with a token of that ServiceAccount. A right the
// chart forgets fails the test that needs it.
import path from 'node:path';
import type { Environment } from '../../src/localenv/environment.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { kubeconfigWithToken } from './environment.ts';
import { CONTROLLER_CHART, createRendered, helm } from './helm.ts';

/** The release whose rights the suite's controllers have; `fullname` names its objects, as the chart does. */
export const CONTROLLER_RELEASE = { name: 'twc', namespace: 'twc-system', fullname: 'twc-temporal-worker-controller' };
const RELEASE = CONTROLLER_RELEASE;

/** Installs the chart's ServiceAccount and RBAC; resolves with a kubeconfig that acts as that ServiceAccount. */
export async function installControllerRbac(environment: Environment): Promise<string> {
  const api = new KubernetesApi({ access: kubeconfigAccess({ file: environment.kubeconfigPath }) });
  try {
    const rendered = await helm(
      'template',
      RELEASE.name,
      CONTROLLER_CHART,
      '--namespace',
      RELEASE.namespace,
      '--show-only',
      'templates/serviceaccount.yaml',
      '--show-only',
      'templates/rbac.yaml',
    );
    await api.create('/api/v1/namespaces', { metadata: { name: RELEASE.namespace } });
    const objects = await createRendered(api, rendered, RELEASE.namespace);
    const account = objects.find((object) => object.kind === 'ServiceAccount')?.metadata.name ?? '';
    const token = await api.create<{ status: { token: string } }>(
      `/api/v1/namespaces/${RELEASE.namespace}/serviceaccounts/${account}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 24 * 3600 } },
    );
    return kubeconfigWithToken(
      environment.kubeconfigPath,
      token.status.token,
      path.join(environment.dir, 'controller-kubeconfig'),
    );
  } finally {
    api.close();
  }
}
