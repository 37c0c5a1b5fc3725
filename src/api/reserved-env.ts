// Environment variables the controller sets in every worker Pod. A template that sets one of them
// would lose its value without a word, so admission refuses it (temporal-worker-deployment.ts).

/** A file holding the bearer token, read again as it changes (a projected service-account token). */
export const API_KEY_PATH_ENV = 'TEMPORAL_API_KEY_PATH';

/** Set from the TemporalConnection: all are removed before the current connection's are added, so switching auth mode leaves nothing behind. */
export const CONNECTION_ENV = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_HOST_PORT',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_SERVER_NAME',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_API_KEY',
  API_KEY_PATH_ENV,
] as const;

/** Set from the worker deployment and the build: where a worker belongs in Temporal. */
export const PLACEMENT_ENV = [
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_DEPLOYMENT_NAME',
  'TEMPORAL_WORKER_BUILD_ID',
  'WORKER_BUILD_ID',
] as const;

/** The task queue a worker polls for workflows; a pool's taskQueue sets it. */
export const TASK_QUEUE_ENV = 'TEMPORAL_TASK_QUEUE';

/** Names a template may not set. TEMPORAL_TASK_QUEUE is not one: a pool's taskQueue replaces it on purpose. */
export const RESERVED_ENV: readonly string[] = [...CONNECTION_ENV, ...PLACEMENT_ENV];
