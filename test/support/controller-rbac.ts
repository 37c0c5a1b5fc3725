// The integration tests' controllers run with the rights the chart gives, nothing more: its
// ServiceAccount and RBAC, rendered by helm from the default values, are installed once in the
// shared cluster, and the controllers authenticate with a token of that ServiceAccount. A right the
// chart forgets fails the test that needs it.
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import path from 'node:path';
import type { Environment } from '../../dev/localenv/environment.ts';
import { KubernetesApi } from '../../src/runtime/kube/api-client.ts';
import { kubeconfigAccess } from '../../src/runtime/kube/cluster-access.ts';
import { kubeConfig, kubeconfigWithToken } from './environment.ts';
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

/**
 * What a namespace's admin does for a connection's serviceAccountToken, as the README shows: the
 * ServiceAccount `account`, and the controller's right to request its tokens, that one account's only.
 */
export async function grantAccountTokens(namespace: string, account: string): Promise<void> {
  const config = kubeConfig();
  await config
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name: account } } });
  const rbac = config.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: `${account}-token` },
      rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], resourceNames: [account], verbs: ['create'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: `${account}-token` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${account}-token` },
      subjects: [{ kind: 'ServiceAccount', name: RELEASE.fullname, namespace: RELEASE.namespace }],
    },
  });
}

/** Gives `user` the cluster's `edit` role in `namespace`: a namespace editor, the seat of docs/security.md's threats. */
export async function grantEdit(namespace: string, user: string): Promise<void> {
  await kubeConfig()
    .makeApiClient(RbacAuthorizationV1Api)
    .createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: `${user}-edits` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
    });
}

/** The ServiceAccount the controller writes owned resources' copies as where a twor names none: the chart's default. */
export const COPY_ACCOUNT = 'temporal-worker-owned-resources';

/**
 * What a namespace's admin does for owned resources, as the README shows: the ServiceAccount
 * `account`, which the controller writes the copies as, bound to the ClusterRole `role` there.
 */
export async function grantCopyAccount(namespace: string, account = COPY_ACCOUNT, role = 'edit'): Promise<void> {
  const config = kubeConfig();
  await config
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name: account } } });
  await config.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: `${account}-${role}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
    },
  });
}
