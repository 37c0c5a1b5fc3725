// A TypeScript worker as the Temporal Worker Controller runs it. Workflow code imports
// `@temporal-worker-controller/worker/workflow` instead (the signal, the replay gate and the
// replay check workflows).
export { replayCheckActivities, MAX_CHECKED_WORKFLOWS } from './replay-check.ts';
export { followApiKeyFile, type ApiKeyHolder } from './api-key-file.ts';
export { watchFiles } from './file-watch.ts';
export { clientConnectionOptions, nativeConnectionOptions } from './connection.ts';
export {
  API_KEY_PATH_ENV,
  readWorkerEnvironment,
  type ReadFile,
  type WorkerEnvironment,
  WorkerEnvironmentError,
} from './environment.ts';
export {
  ACTIVITY_ON_ANOTHER_BUILD,
  divergedEvent,
  replayGateActivities,
  type ReplayGateOptions,
  sdkReason,
} from './replay-gate.ts';
export { runWorker, type RunWorkerOptions, versionedWorkerOptions } from './run-worker.ts';
