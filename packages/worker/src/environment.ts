// What the Temporal Worker Controller tells each worker container, through its environment and
// the files its variables point at: where Temporal is and how to reach it, and which Worker
// Deployment, build and task queue the worker is.
import { readFileSync } from 'node:fs';

/** A file holding the bearer token, which something else renews (a projected service-account token). */
export const API_KEY_PATH_ENV = 'TEMPORAL_API_KEY_PATH';

export interface WorkerEnvironment {
  address: string;
  namespace: string;
  /** The Worker Deployment's name in Temporal. */
  deploymentName: string;
  buildId: string;
  taskQueue: string;
  apiKey?: string;
  /** The file apiKey was read from: read again as it is renewed (see followApiKeyFile). */
  apiKeyPath?: string;
  /** On with TEMPORAL_TLS=true, an API key, a server name, a server CA or a client certificate. */
  tls?: { serverName?: string; serverCACertificate?: string; clientCertPair?: { crt: string; key: string } };
  /** The files the TLS material was read from, read again as they are rotated. */
  tlsFiles: string[];
}

/** The content of a file, undefined when it does not exist; throws on any other failure. */
export type ReadFile = (path: string) => string | undefined;

export class WorkerEnvironmentError extends Error {
  override name = 'WorkerEnvironmentError';
}

export function readWorkerEnvironment(
  env: Record<string, string | undefined> = process.env,
  readFile: ReadFile = readIfExists,
): WorkerEnvironment {
  const required = (...names: string[]): string => {
    for (const name of names) {
      const value = env[name];
      if (value) return value;
    }
    throw new WorkerEnvironmentError(`environment variable ${names.join(' or ')} is not set`);
  };
  const deploymentName = required('TEMPORAL_DEPLOYMENT_NAME');
  const config: WorkerEnvironment = {
    address: required('TEMPORAL_ADDRESS', 'TEMPORAL_HOST_PORT'),
    namespace: required('TEMPORAL_NAMESPACE'),
    deploymentName,
    buildId: required('TEMPORAL_WORKER_BUILD_ID', 'WORKER_BUILD_ID'),
    taskQueue: env.TEMPORAL_TASK_QUEUE || deploymentName,
    tlsFiles: [],
  };
  const file = (name: string, required: boolean): string | undefined => {
    const path = env[name];
    if (!path) return undefined;
    const content = readFile(path);
    if (content === undefined && required) throw new WorkerEnvironmentError(`${name}: file ${path} does not exist`);
    if (content !== undefined && name !== API_KEY_PATH_ENV) config.tlsFiles.push(path);
    return content;
  };
  if (env.TEMPORAL_API_KEY) config.apiKey = env.TEMPORAL_API_KEY;
  const keyFile = file(API_KEY_PATH_ENV, true)?.trim();
  if (keyFile !== undefined && !env.TEMPORAL_API_KEY) {
    config.apiKey = keyFile;
    config.apiKeyPath = env[API_KEY_PATH_ENV] ?? '';
  }
  const serverName = env.TEMPORAL_TLS_SERVER_NAME;
  // The CA file may be absent (a mutual TLS Secret without ca.crt): the default roots are used then.
  const serverCACertificate = env.TEMPORAL_TLS_SERVER_CA_CERT_DATA || file('TEMPORAL_TLS_SERVER_CA_CERT_PATH', false);
  const crt = file('TEMPORAL_TLS_CLIENT_CERT_PATH', true);
  const key = file('TEMPORAL_TLS_CLIENT_KEY_PATH', true);
  if ((crt === undefined) !== (key === undefined))
    throw new WorkerEnvironmentError('TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together');
  if (env.TEMPORAL_TLS === 'true' || config.apiKey || serverName || serverCACertificate || crt) {
    config.tls = {
      ...(serverName ? { serverName } : {}),
      ...(serverCACertificate ? { serverCACertificate } : {}),
      ...(crt && key ? { clientCertPair: { crt, key } } : {}),
    };
  }
  return config;
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
