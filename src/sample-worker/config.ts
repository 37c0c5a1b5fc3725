// The sample worker is configured only from its environment, the way the controller
// configures every worker container it runs.
export interface SampleWorkerConfig {
  address: string;
  namespace: string;
  deploymentName: string;
  buildId: string;
  taskQueue: string;
  /** `SAMPLE_BEHAVIOUR`: reported by every activity, so builds visibly differ; `fail-gate` fails gates. */
  behaviour: string;
  apiKey?: string;
  /** On with TEMPORAL_TLS=true, an API key, a server name or a server CA. */
  tls?: { serverName?: string; serverCACertificate?: string };
}

export class SampleWorkerConfigError extends Error {
  override name = 'SampleWorkerConfigError';
}

export function readConfig(env: Record<string, string | undefined>): SampleWorkerConfig {
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
  if (env.TEMPORAL_API_KEY) config.apiKey = env.TEMPORAL_API_KEY;
  const serverName = env.TEMPORAL_TLS_SERVER_NAME;
  const serverCACertificate = env.TEMPORAL_TLS_SERVER_CA_CERT_DATA;
  if (env.TEMPORAL_TLS === 'true' || config.apiKey || serverName || serverCACertificate) {
    config.tls = { ...(serverName ? { serverName } : {}), ...(serverCACertificate ? { serverCACertificate } : {}) };
  }
  return config;
}
