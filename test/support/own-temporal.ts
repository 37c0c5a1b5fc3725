// A Temporal dev server of the test's own, for dynamic config the shared one must not have
// (a short poller memory, a small cap of versions per deployment).
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { binaryPaths } from '../../src/localenv/binaries.ts';
import { FAST_DYNAMIC_CONFIG, startTemporal } from '../../src/localenv/temporal.ts';

/** Starts a dev server with the shared server's settings plus `dynamicConfig`; stopped when the test ends. */
export async function ownTemporal(t: TestContext, dynamicConfig: Record<string, unknown>): Promise<{ address: string; client: Client }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'twc-temporal-'));
  const server = await startTemporal(dir, binaryPaths(), { ...FAST_DYNAMIC_CONFIG, ...dynamicConfig });
  const connection = await Connection.connect({ address: server.address });
  t.after(async () => {
    await connection.close();
    await server.component.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { address: server.address, client: new Client({ connection, namespace: server.namespace }) };
}
