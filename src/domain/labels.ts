// The labels on every Kubernetes Deployment the controller makes: which worker deployment, build
// and pool it runs. The informers select on them and the conditions name them in kubectl commands.
export const LABELS = {
  deploymentName: 'temporal.io/deployment-name',
  buildId: 'temporal.io/build-id',
  pool: 'temporal.io/pool',
} as const;

/**
 * On every copy the controller makes (of an owned resource, of a cluster connection's Secret). Anyone
 * may put it on an object of their own, so it says an object is ours only with an owner reference
 * that the controller alone sets.
 */
export const MANAGED_BY = { label: 'app.kubernetes.io/managed-by', value: 'temporal-worker-controller' } as const;
