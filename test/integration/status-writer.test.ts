// The status is the controller's memory: a write decided on a stale read of the object must not
// replace what was written since. Against the real API server, with no controller running.
import { CustomObjectsApi } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { writeStatus } from '../../src/controller/status-writer.ts';
import { clusterClient } from '../../src/k8s/cluster-client.ts';
import { progressing } from '../../src/status/conditions.ts';
import { kubeConfig, kubernetesApi, testNamespace } from '../support/environment.ts';
import { create, readManifests } from '../support/manifests.ts';

test('a status write carries the resourceVersion it was decided on: a stale one writes nothing and asks to decide again at once', async (t) => {
  const namespace = await testNamespace(t, 'status-writer');
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const [, manifest] = readManifests(path.join(import.meta.dirname, '../../examples/minimal.yaml'));
  const stale = (await create(manifest!, namespace)) as unknown as TemporalWorkerDeployment;
  const cluster = clusterClient(kubernetesApi(t));
  const writes: [string | undefined, string | undefined][] = [];
  const deps = {
    cluster,
    now: () => new Date(),
    recordEvent: () => Promise.resolve(),
    wroteStatus: (replaced: string | undefined, stored: TemporalWorkerDeployment) =>
      void writes.push([replaced, stored.metadata.resourceVersion]),
  };
  const read = async () =>
    (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: KINDS.TemporalWorkerDeployment.plural,
      name: 'orders',
    })) as TemporalWorkerDeployment;

  assert.equal(
    await writeStatus(deps, stale, { versionCount: 1 }, [progressing('True', 'RollingOut', 'first')]),
    undefined,
    'a fresh read is written',
  );
  const written = await read();
  assert.equal(written.status?.versionCount, 1);
  assert.deepEqual(
    writes,
    [[stale.metadata.resourceVersion, written.metadata.resourceVersion]],
    'the write is told, with the version it replaced and the one it made',
  );

  // Decided on the read from before that write: refused by the API server, nothing replaced.
  assert.deepEqual(await writeStatus(deps, stale, { versionCount: 2 }, [progressing('True', 'RollingOut', 'second')]), {
    requeueAfterMs: 0,
  });
  const after = await read();
  assert.equal(after.metadata.resourceVersion, written.metadata.resourceVersion, 'nothing was written');
  assert.equal(after.status?.versionCount, 1);
  assert.equal(writes.length, 1, 'a refused write is not told');

  // Decided again on the fresh read: written.
  assert.equal(
    await writeStatus(deps, after, { versionCount: 2 }, [progressing('True', 'RollingOut', 'second')]),
    undefined,
  );
  assert.equal((await read()).status?.versionCount, 2);
});
