// Carries out the Kubernetes part of a plan, in a fixed order: create the new build first (it
// is what traffic will move to), then roll changed Deployments in place, then delete, then scale.
// It stops at the first failure and says which action failed, so the rest waits for the next
// reconcile instead of acting on a plan that may no longer hold.
import { type AppsV1Api, PatchStrategy, setHeaderOptions, type V1Deployment } from '@kubernetes/client-node';
import { unless } from '../k8s/api-errors.ts';
import type { VersionAction } from '../planner/versions.ts';

const ORDER = ['create', 'update', 'delete', 'scale'] as const;

/** The actions of a plan that write Kubernetes Deployments. */
export type KubernetesAction = Extract<VersionAction, { action: (typeof ORDER)[number] }>;

function isKubernetesAction(action: VersionAction): action is KubernetesAction {
  return (ORDER as readonly string[]).includes(action.action);
}

/** The objects the plan's actions write. */
export interface DeploymentObjects {
  /** The new Deployment of a build (and pool). */
  created(buildId: string, pool: string | undefined): V1Deployment;
  /** What replaces an existing Deployment that drifted. */
  replacement(deployment: string): V1Deployment;
}

export interface KubernetesExecution {
  done: KubernetesAction[];
  failed?: { action: KubernetesAction; error: unknown };
}

export async function executeVersionActions(
  apps: AppsV1Api,
  namespace: string,
  actions: VersionAction[],
  objects: DeploymentObjects,
): Promise<KubernetesExecution> {
  const done: KubernetesAction[] = [];
  const ordered = actions.filter(isKubernetesAction).sort((a, b) => ORDER.indexOf(a.action) - ORDER.indexOf(b.action));
  for (const action of ordered) {
    try {
      await execute(apps, namespace, action, objects);
      done.push(action);
    } catch (error) {
      return { done, failed: { action, error } };
    }
  }
  return { done };
}

async function execute(
  apps: AppsV1Api,
  namespace: string,
  action: KubernetesAction,
  objects: DeploymentObjects,
): Promise<void> {
  switch (action.action) {
    case 'create':
      // Already there (an earlier reconcile's create, not yet in the cache): nothing to do.
      await apps
        .createNamespacedDeployment({ namespace, body: objects.created(action.buildId, action.pool) })
        .catch(unless(409));
      return;
    case 'update':
      // A 409 means the cache was stale: the next reconcile decides again on fresh state.
      await apps.replaceNamespacedDeployment({
        namespace,
        name: action.deployment,
        body: objects.replacement(action.deployment),
      });
      return;
    case 'delete':
      await apps
        .deleteNamespacedDeployment({ namespace, name: action.deployment, body: { propagationPolicy: 'Background' } })
        .catch(unless(404));
      return;
    case 'scale':
      await apps.patchNamespacedDeploymentScale(
        { namespace, name: action.deployment, body: { spec: { replicas: action.replicas } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      return;
  }
}
