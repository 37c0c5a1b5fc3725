// The connection options of the SDK, for the worker (NativeConnection) and for a client
// (Connection, as the replay gate uses), from one WorkerEnvironment.
import type { ConnectionOptions } from '@temporalio/client';
import type { NativeConnectionOptions } from '@temporalio/worker';
import type { WorkerEnvironment } from './environment.ts';

export function nativeConnectionOptions(config: WorkerEnvironment): NativeConnectionOptions {
  const tls = config.tls && {
    ...(config.tls.serverName ? { serverNameOverride: config.tls.serverName } : {}),
    ...(config.tls.serverCACertificate ? { serverRootCACertificate: Buffer.from(config.tls.serverCACertificate) } : {}),
    ...(config.tls.clientCertPair
      ? {
          clientCertPair: {
            crt: Buffer.from(config.tls.clientCertPair.crt),
            key: Buffer.from(config.tls.clientCertPair.key),
          },
        }
      : {}),
  };
  return { address: config.address, ...(tls ? { tls } : {}), ...(config.apiKey ? { apiKey: config.apiKey } : {}) };
}

/** The same, as @temporalio/client takes them: TLS alike, the API key as the bearer. */
export function clientConnectionOptions(config: WorkerEnvironment): ConnectionOptions {
  const { address, tls, apiKey } = nativeConnectionOptions(config);
  return { address, ...(tls ? { tls } : {}), ...(apiKey ? { apiKey } : {}) };
}
