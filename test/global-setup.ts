// Starts the one environment that every test file of a run shares. Test files run in child
// processes, which inherit the environment variable set here.
import { CRD_DIR } from '../scripts/generate.ts';
import { startEnvironment, type Environment } from '../dev/localenv/environment.ts';
import { LOCAL_DYNAMIC_CONFIG } from '../dev/localenv/temporal.ts';
import { SHARED_ENVIRONMENT_VARIABLE, type SharedEnvironment } from './support/environment.ts';
import { installControllerRbac } from './support/controller-rbac.ts';
import { ensureCommand } from './support/system-packages.ts';
import { CONTROLLER_REQUESTS_REPORT, controllerRequestKinds } from './support/audit-log.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

let environment: Environment | undefined;

export async function globalSetup(): Promise<void> {
  const started = Date.now();
  // TLS tests make throwaway certificates with it.
  ensureCommand('openssl', ['version'], 'openssl');
  environment = await startEnvironment({
    crdDir: CRD_DIR,
    // Worker Pods' projected tokens rotate within a rollout (controller-connection-tokens.test.ts).
    tokenRenewAfterSeconds: 3,
    // Every test file makes Worker Deployments in this one Temporal namespace and none is deleted
    // from Temporal: past Temporal's 100 a namespace, the last files' builds would never register.
    temporalDynamicConfig: { ...LOCAL_DYNAMIC_CONFIG, 'matching.maxDeployments': 1000 },
    log: (line) => console.error(`[environment] ${line}`),
  });
  const shared: SharedEnvironment = {
    kubeconfigPath: environment.kubeconfigPath,
    temporalAddress: environment.temporalAddress,
    temporalNamespace: environment.temporalNamespace,
    dir: environment.dir,
    kubeBinary: environment.binaries.kube,
    controllerKubeconfigPath: await installControllerRbac(environment),
    imageStore: environment.imageStore,
    podLogDir: environment.podLogDir,
    auditLogPath: environment.auditLogPath,
    workerMetricsAddress: environment.workerMetricsAddress ?? '',
  };
  process.env[SHARED_ENVIRONMENT_VARIABLE] = JSON.stringify(shared);
  console.error(`[environment] ready in ${((Date.now() - started) / 1000).toFixed(1)}s (logs in ${environment.dir})`);
}

export async function globalTeardown(): Promise<void> {
  // What the controllers asked of the API server, for the RBAC check that runs after the suite.
  if (environment) {
    mkdirSync(path.dirname(CONTROLLER_REQUESTS_REPORT), { recursive: true });
    writeFileSync(
      CONTROLLER_REQUESTS_REPORT,
      JSON.stringify(controllerRequestKinds(environment.auditLogPath), null, 2),
    );
  }
  await environment?.stop();
}
