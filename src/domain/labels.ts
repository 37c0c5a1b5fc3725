// The labels on every Kubernetes Deployment the controller makes: which worker deployment, build
// and pool it runs. The informers select on them and the conditions name them in kubectl commands.
export const LABELS = {
  deploymentName: 'temporal.io/deployment-name',
  buildId: 'temporal.io/build-id',
  pool: 'temporal.io/pool',
} as const;
