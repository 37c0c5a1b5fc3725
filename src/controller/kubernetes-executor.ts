// Carries out the Kubernetes part of a plan, in a fixed order: create the new build first (it
// is what traffic will move to), then delete, then scale. It stops at the first failure and says
// which action failed, so the rest waits for the next reconcile instead of acting on a plan
// that may no longer hold.
import { type AppsV1Api, PatchStrategy, setHeaderOptions, type V1Deployment } from '@kubernetes/client-node';
import { unless } from '../k8s/api-errors.ts';
import type { VersionAction } from '../planner/versions.ts';

const ORDER: VersionAction['action'][] = ['create', 'delete', 'scale'];

export interface KubernetesExecution {
  done: VersionAction[];
  failed?: { action: VersionAction; error: unknown };
}

export async function executeVersionActions(
  apps: AppsV1Api,
  namespace: string,
  actions: VersionAction[],
  deploymentsOf: (buildId: string) => V1Deployment[],
): Promise<KubernetesExecution> {
  const done: VersionAction[] = [];
  const ordered = actions.filter((a) => ORDER.includes(a.action)).sort((a, b) => ORDER.indexOf(a.action) - ORDER.indexOf(b.action));
  for (const action of ordered) {
    try {
      await execute(apps, namespace, action, deploymentsOf);
      done.push(action);
    } catch (error) {
      return { done, failed: { action, error } };
    }
  }
  return { done };
}

async function execute(apps: AppsV1Api, namespace: string, action: VersionAction, deploymentsOf: (buildId: string) => V1Deployment[]): Promise<void> {
  switch (action.action) {
    case 'create':
      for (const body of deploymentsOf(action.buildId)) {
        // Already there (an earlier reconcile's create, not yet in the cache): nothing to do.
        await apps.createNamespacedDeployment({ namespace, body }).catch(unless(409));
      }
      return;
    case 'delete':
      await apps.deleteNamespacedDeployment({ namespace, name: action.deployment, body: { propagationPolicy: 'Background' } }).catch(unless(404));
      return;
    case 'scale':
      await apps.patchNamespacedDeploymentScale({ namespace, name: action.deployment, body: { spec: { replicas: action.replicas } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      return;
    default:
      return;
  }
}
