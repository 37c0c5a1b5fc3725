// What the controller's caches keep of each object they list and watch: the informers hold every
// worker deployment, build Deployment and Pod for as long as they run, so at a thousand worker
// deployments whole objects were most of the controller's memory. Each kind is cut, at the
// informer's edge, to the fields the controller reads. Pure.
//
// - Everything but `metadata.managedFields` (the server's record of who set which field, often
//   as large as the rest), which nothing reads and which a write that leaves it out keeps.
// - A worker deployment's annotations only as far as the controller acts on them: kubectl's
//   last-applied-configuration repeats the whole spec. Its status is written through the status
//   subresource, which takes nothing of the metadata, and its finalizers by a patch of their own.
// - A Deployment's metadata and spec whole but for its managedFields: an old build's is replaced
//   from them (deployment-drift.ts). Of its status only what says whether it is available and why
//   it is stuck (observed-deployment.ts): a write to the Deployment takes nothing of the status.
// - Of a Pod only what says why it cannot run (pod-problems.ts) and whose it is: neither its spec
//   nor most of its status is read, and a Pod is the largest object the controller caches.
import type {
  V1ContainerStatus,
  V1Deployment,
  V1DeploymentCondition,
  V1ObjectMeta,
  V1Pod,
  V1PodCondition,
} from '@kubernetes/client-node';
import { ACTED_ON_ANNOTATIONS } from '../domain/annotations.ts';

interface WithMetadata {
  metadata?: V1ObjectMeta;
}

/** The object without its managedFields (the same object when it has none). */
export function withoutManagedFields<T extends WithMetadata>(object: T): T {
  if (!object.metadata?.managedFields) return object;
  const metadata = { ...object.metadata };
  delete metadata.managedFields;
  return { ...object, metadata };
}

/** A TemporalWorkerDeployment as cached: no managedFields, and only the annotations the controller acts on. */
export function cachedWorkerDeployment<T extends { metadata: V1ObjectMeta }>(twd: T): T {
  const { annotations, ...metadata } = twd.metadata;
  delete metadata.managedFields;
  const kept = Object.entries(annotations ?? {}).filter(([name]) => ACTED_ON_ANNOTATIONS.includes(name));
  return { ...twd, metadata: { ...metadata, ...(kept.length > 0 ? { annotations: Object.fromEntries(kept) } : {}) } };
}

/** A Deployment as cached: all of it but its managedFields and the status no reader reads. */
export function cachedDeployment(deployment: V1Deployment): V1Deployment {
  const kept = withoutManagedFields(deployment);
  if (!deployment.status) return kept;
  const { observedGeneration, replicas, updatedReplicas, availableReplicas, conditions } = deployment.status;
  const read = conditions?.filter((c) => c.type === 'Available' || c.type === 'Progressing').map(deploymentConditionOf);
  return {
    ...kept,
    status: defined({
      observedGeneration,
      replicas,
      updatedReplicas,
      availableReplicas,
      conditions: read?.length ? read : undefined,
    }),
  };
}

/** Since when it has been available; why it stopped progressing (when it has). */
function deploymentConditionOf({ type, status, lastTransitionTime, reason, message }: V1DeploymentCondition) {
  if (type === 'Available') return defined({ type, status, lastTransitionTime }) as V1DeploymentCondition;
  return (status === 'False' ? defined({ type, status, reason, message }) : { type, status }) as V1DeploymentCondition;
}

/** A Pod as cached: whose it is (its labels, uid, deletion) and what its status says of its containers and scheduling. */
export function cachedPod(pod: V1Pod): V1Pod {
  const { name, namespace, uid, resourceVersion, labels, deletionTimestamp } = pod.metadata ?? {};
  const { phase, reason, message, conditions, initContainerStatuses, containerStatuses } = pod.status ?? {};
  const scheduled = conditions?.filter((c) => c.type === 'PodScheduled').map(schedulingOf);
  return {
    metadata: defined({ name, namespace, uid, resourceVersion, labels, deletionTimestamp }),
    ...(pod.status
      ? {
          status: defined({
            phase,
            reason,
            message,
            conditions: scheduled?.length ? scheduled : undefined,
            initContainerStatuses: initContainerStatuses?.map(containerOf),
            containerStatuses: containerStatuses?.map(containerOf),
          }),
        }
      : {}),
  };
}

function schedulingOf({ type, status, reason, message }: V1PodCondition): V1PodCondition {
  return defined({ type, status, reason, message });
}

/** A container's name and states: why it waits, and how it last ended. */
function containerOf({ name, state, lastState }: V1ContainerStatus): V1ContainerStatus {
  return defined({ name, state, lastState }) as V1ContainerStatus;
}

/** The object without its undefined properties, as JSON would have it. */
function defined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
