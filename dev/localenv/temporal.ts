// The Temporal half of the local environment: the CLI's dev server, with versioning intervals
// shortened so that drainage and poller changes show within seconds instead of minutes.
import { Connection } from '@temporalio/client';
import path from 'node:path';
import type { Binaries } from './binaries.ts';
import { freePort } from './ports.ts';
import { Component, ComponentError } from './process.ts';

export const TEMPORAL_NAMESPACE = 'default';

/**
 * Server defaults are minutes. Drainage is re-checked every second. A poller counts as present
 * for 10s after its last poll starts or ends, and long polls end every 5s, so a live worker is
 * never mistaken for a gone one while a stopped worker disappears within about 10s.
 */
export const LOCAL_DYNAMIC_CONFIG: Record<string, unknown> = {
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '1s',
  'matching.wv.VersionDrainageStatusRefreshInterval': '1s',
  'matching.longPollExpirationInterval': '5s',
  'matching.PollerHistoryTTL': '10s',
};

export interface TemporalServer {
  address: string;
  namespace: string;
  /** The web UI's address, when it was asked for. */
  uiUrl?: string;
  component: Component;
}

export interface TemporalServerOptions {
  /** The frontend port; default: a free one. A restarted server takes its predecessor's. */
  port?: number;
  /** A SQLite file that keeps the server's state across restarts; default: memory only. */
  dbFilename?: string;
  /** Serve the web UI (default: headless, as tests need no UI). */
  ui?: boolean;
  /** Temporal namespaces created at start besides `default`. */
  namespaces?: string[];
}

/** Tries a few times: a port found free may be taken by another process before the server binds it. */
export async function startTemporal(
  dir: string,
  binaries: Binaries,
  dynamicConfig: Record<string, unknown> = LOCAL_DYNAMIC_CONFIG,
  options: TemporalServerOptions = {},
): Promise<TemporalServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTemporalOnce(dir, binaries, dynamicConfig, options);
    } catch (error) {
      if (!(error instanceof ComponentError) || !error.exitedEarly || attempt === START_ATTEMPTS) throw error;
    }
  }
}

const START_ATTEMPTS = 3;

async function startTemporalOnce(
  dir: string,
  binaries: Binaries,
  dynamicConfig: Record<string, unknown>,
  options: TemporalServerOptions,
): Promise<TemporalServer> {
  const port = options.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const uiPort = options.ui ? await freePort() : undefined;
  const component = new Component({
    name: 'temporal dev server',
    // Through the kube binary's `exec`, which makes the server die with our process.
    command: binaries.kube,
    args: [
      'exec',
      binaries.temporal,
      'server',
      'start-dev',
      ...(uiPort ? [`--ui-port=${uiPort}`] : ['--headless']),
      // Every address: a controller in a Pod of its own dials this machine's address.
      '--ip=0.0.0.0',
      `--port=${port}`,
      `--http-port=${await freePort()}`,
      `--metrics-port=${await freePort()}`,
      ...[TEMPORAL_NAMESPACE, ...(options.namespaces ?? [])].map((n) => `--namespace=${n}`),
      ...(options.dbFilename ? [`--db-filename=${options.dbFilename}`] : []),
      '--log-level=warn',
      ...Object.entries(dynamicConfig).flatMap(([key, value]) => [
        '--dynamic-config-value',
        `${key}=${JSON.stringify(value)}`,
      ]),
    ],
    logFile: path.join(dir, 'temporal.log'),
  });
  try {
    await component.waitUntil(
      'serving namespace default',
      async () => {
        const connection = await Connection.connect({ address, connectTimeout: 1000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: TEMPORAL_NAMESPACE });
          return true;
        } finally {
          await connection.close();
        }
      },
      90_000,
    );
  } catch (error) {
    await component.stop();
    throw error;
  }
  return {
    address,
    namespace: TEMPORAL_NAMESPACE,
    component,
    ...(uiPort ? { uiUrl: `http://127.0.0.1:${uiPort}` } : {}),
  };
}
