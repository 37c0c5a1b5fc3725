// `npm start`: the local environment, until Ctrl-C.
import { BinaryBuildError } from './binaries.ts';
import { startEnvironment } from './environment.ts';

const started = Date.now();
let environment;
try {
  environment = await startEnvironment({ keepDir: false });
} catch (error) {
  console.error(error instanceof BinaryBuildError ? error.message : error);
  process.exit(1);
}
const kubectl = `${environment.binaries.kube} kubectl`;
console.log(`local environment ready in ${((Date.now() - started) / 1000).toFixed(1)}s
kubeconfig: ${environment.kubeconfigPath}
temporal:   ${environment.temporalAddress} (namespace ${environment.temporalNamespace})
logs:       ${environment.dir}
try:        KUBECONFIG=${environment.kubeconfigPath} ${kubectl} get nodes
Ctrl-C stops everything.`);

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  console.log('stopping...');
  await environment.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
