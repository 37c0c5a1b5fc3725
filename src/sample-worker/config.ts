// The sample worker is configured only from its environment, the way the controller
// configures every worker container it runs, and from the files its variables point at.
import { readFileSync } from 'node:fs';
import { API_KEY_PATH_ENV } from '../api/reserved-env.ts';

export interface SampleWorkerConfig {
  address: string;
  namespace: string;
  deploymentName: string;
  buildId: string;
  taskQueue: string;
  /**
   * `SAMPLE_BEHAVIOUR`: reported by every activity, so builds visibly differ; `fail-gate` fails
   * gates; `fail-<percent>` fails that share of orders; one that starts with `workflows-only`
   * registers no activities.
   */
  behaviour: string;
  apiKey?: string;
  /** TEMPORAL_API_KEY_PATH: the file apiKey was read from, read again as it is renewed (api-key-file.ts). */
  apiKeyPath?: string;
  /** On with TEMPORAL_TLS=true, an API key, a server name, a server CA or a client certificate. */
  tls?: { serverName?: string; serverCACertificate?: string; clientCertPair?: { crt: string; key: string } };
}

/** The content of a file, undefined when it does not exist; throws on any other failure. */
export type ReadFile = (path: string) => string | undefined;

export class SampleWorkerConfigError extends Error {
  override name = 'SampleWorkerConfigError';
}

export function readConfig(
  env: Record<string, string | undefined>,
  readFile: ReadFile = readIfExists,
): SampleWorkerConfig {
  const required = (...names: string[]): string => {
    for (const name of names) {
      const value = env[name];
      if (value) return value;
    }
    throw new SampleWorkerConfigError(`environment variable ${names.join(' or ')} is not set`);
  };
  const deploymentName = required('TEMPORAL_DEPLOYMENT_NAME');
  const config: SampleWorkerConfig = {
    address: required('TEMPORAL_ADDRESS', 'TEMPORAL_HOST_PORT'),
    namespace: required('TEMPORAL_NAMESPACE'),
    deploymentName,
    buildId: required('TEMPORAL_WORKER_BUILD_ID', 'WORKER_BUILD_ID'),
    taskQueue: env.TEMPORAL_TASK_QUEUE || deploymentName,
    behaviour: env.SAMPLE_BEHAVIOUR || 'default',
  };
  const file = (name: string, required: boolean): string | undefined => {
    const path = env[name];
    if (!path) return undefined;
    const content = readFile(path);
    if (content === undefined && required) throw new SampleWorkerConfigError(`${name}: file ${path} does not exist`);
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
    throw new SampleWorkerConfigError('TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together');
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

/** The start of a SAMPLE_BEHAVIOUR whose worker registers no activities (see worker.ts). */
export const WORKFLOWS_ONLY = 'workflows-only';
