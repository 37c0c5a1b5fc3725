// What a namespace's admin does for owned resources (docs/owned-resources.md), done for the
// local environment's `default` namespace, where the examples go: the ServiceAccount the controller
// writes the copies as, with the namespace's `edit` role.
import { CoreV1Api, type KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';

/** As the chart's default (controller.ownedResourcesServiceAccount). */
export const OWNED_RESOURCES_ACCOUNT = 'temporal-worker-owned-resources';

export async function grantOwnedResourcesAccount(kubeconfig: KubeConfig, namespace: string): Promise<void> {
  await kubeconfig
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name: OWNED_RESOURCES_ACCOUNT } } });
  await kubeconfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: `${OWNED_RESOURCES_ACCOUNT}-edit` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'ServiceAccount', name: OWNED_RESOURCES_ACCOUNT, namespace }],
    },
  });
}
