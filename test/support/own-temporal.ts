// A Temporal dev server of the test's own, for dynamic config the shared one must not have
// (a short poller memory, a small cap of versions per deployment, a namespace rate limit), to
// stop and start again on the same address with its state kept, or of the newer release.
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { binaryPaths, newerTemporal } from '../../dev/localenv/binaries.ts';
import { LOCAL_DYNAMIC_CONFIG, startTemporal, type TemporalServer } from '../../dev/localenv/temporal.ts';

export interface OwnTemporal {
  address: string;
  client: Client;
  /** Stops the server, as a crash or an outage would. */
  stop(): Promise<void>;
  /** Starts it again on the same address; with `keepState`, with the state it had when stopped. */
  start(): Promise<void>;
}

export interface OwnTemporalOptions {
  /** Keeps the state in a SQLite file across stop and start; otherwise it is kept in memory, which stays fast while the whole suite loads the machine. */
  keepState?: boolean;
  /** Runs the newer server (`Binaries.temporalNext`) instead of the shared server's release. */
  newer?: boolean;
}

/** Starts a dev server with the shared server's settings plus `dynamicConfig`; stopped when the test ends. */
export async function ownTemporal(
  t: TestContext,
  dynamicConfig: Record<string, unknown>,
  { keepState = false, newer = false }: OwnTemporalOptions = {},
): Promise<OwnTemporal> {
  const dir = mkdtempSync(path.join(tmpdir(), 'twc-temporal-'));
  const storage = keepState ? { dbFilename: path.join(dir, 'temporal.db') } : {};
  const binaries = binaryPaths();
  const launch = (port?: number) =>
    startTemporal(
      dir,
      newer ? newerTemporal(binaries) : binaries,
      { ...LOCAL_DYNAMIC_CONFIG, ...dynamicConfig },
      { ...storage, ...(port === undefined ? {} : { port }) },
    );
  let server: TemporalServer = await launch();
  const port = Number(server.address.slice(server.address.lastIndexOf(':') + 1));
  const connection = await Connection.connect({ address: server.address });
  t.after(async () => {
    await connection.close();
    await server.component.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    address: server.address,
    client: new Client({ connection, namespace: server.namespace }),
    stop: () => server.component.stop(),
    start: async () => void (server = await launch(port)),
  };
}
