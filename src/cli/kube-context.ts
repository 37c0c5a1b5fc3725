// Where a command of `twc` acts: the cluster of its kubeconfig (or of the one kubectl would find)
// and the namespace, as kubectl picks them.
import { KubeConfig } from '@kubernetes/client-node';
import { KubernetesApi } from '../runtime/kube/api-client.ts';
import { defaultClusterAccess, kubeconfigAccess } from '../runtime/kube/cluster-access.ts';

export interface CommandScope {
  kubeconfig?: string;
  namespace?: string;
  allNamespaces?: boolean;
}

/** The API client, and the namespace (undefined with --all-namespaces); close the client when done. */
export function commandCluster(scope: CommandScope): { api: KubernetesApi; namespace: string | undefined } {
  const access = scope.kubeconfig ? kubeconfigAccess({ file: scope.kubeconfig }) : defaultClusterAccess();
  const namespace = scope.allNamespaces ? undefined : (scope.namespace ?? contextNamespace(scope.kubeconfig));
  return { api: new KubernetesApi({ access }), namespace };
}

/** The current context's namespace of the kubeconfig (as kubectl finds it, or `file`); `default` when it names none. */
function contextNamespace(file: string | undefined): string {
  const config = new KubeConfig();
  try {
    if (file) config.loadFromFile(file);
    else config.loadFromDefault();
  } catch {
    return 'default';
  }
  return config.getContextObject(config.getCurrentContext())?.namespace ?? 'default';
}
