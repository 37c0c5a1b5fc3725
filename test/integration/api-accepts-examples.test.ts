// Every example and every seed example is accepted as kubectl would send it, and stored with the
// defaults that the controller's own defaulting produces; kubectl shows the printer columns.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { GROUP, KINDS, VERSION } from '../../src/api/kinds.ts';
import { CONTINUE_AS_NEW_SIGNAL } from '../../src/api/temporal-worker-deployment.ts';
import { validate, withDefaults } from '../../src/api/validate.ts';
import { sharedEnvironment, testNamespace } from '../support/environment.ts';
import { clusterScoped, create, patchWorkerDeploymentStatus, readManifests, remove } from '../support/manifests.ts';

const root = path.join(import.meta.dirname, '../..');
// examples/keda/ needs KEDA's CRDs to run (npm start's cluster has none), not to be accepted.
const files = [
  ...readdirSync(path.join(root, 'examples')).map((f) => path.join(root, 'examples', f)),
  ...readdirSync(path.join(root, 'examples/keda')).map((f) => path.join(root, 'examples/keda', f)),
  ...readdirSync(path.join(root, 'test/fixtures/seeds')).map((f) => path.join(root, 'test/fixtures/seeds', f)),
].filter((f) => f.endsWith('.yaml'));

for (const file of files) {
  test(`${path.relative(root, file)} is accepted with defaults filled in`, async (t) => {
    const namespace = await testNamespace(t, 'example');
    const manifests = readManifests(file);
    assert.ok(
      manifests.some((m) => m.apiVersion === `${GROUP}/${VERSION}`),
      'the file holds a resource of ours',
    );
    for (const manifest of manifests) {
      const stored = await create(manifest, namespace);
      if (clusterScoped(manifest)) t.after(() => remove(manifest));
      const definition = Object.values(KINDS).find((k) => k.kind === manifest.kind);
      if (!definition) continue;
      const expected = withDefaults(definition.schema, manifest) as { spec: unknown };
      assert.deepEqual(
        stored.spec,
        expected.spec,
        `${manifest.kind} ${manifest.metadata?.name}: stored as the controller's defaulting predicts`,
      );
      assert.deepEqual(validate(definition.schema, stored), [], 'and the controller finds it valid');
      if (manifest.kind === 'TemporalWorkerDeployment') {
        const spec = stored.spec as { sunset: unknown; progressDeadlineSeconds: number };
        const sunset = (manifest.spec as { sunset?: Record<string, unknown> }).sunset ?? {};
        const pinned = sunset.pinnedWorkflows as object | undefined;
        assert.deepEqual(spec.sunset, {
          ...sunset,
          scaledownDelay: sunset.scaledownDelay ?? '1h',
          deleteDelay: sunset.deleteDelay ?? '24h',
          unusedBuildDeleteDelay: sunset.unusedBuildDeleteDelay ?? '1h',
          ...(pinned ? { pinnedWorkflows: { signalName: CONTINUE_AS_NEW_SIGNAL, ...pinned } } : {}),
        });
        assert.equal(spec.progressDeadlineSeconds, 600);
      }
    }
  });
}

test('kubectl get shows the printer columns', async (t) => {
  const namespace = await testNamespace(t, 'columns');
  const [connection, worker] = readManifests(path.join(root, 'examples/minimal.yaml'));
  assert.ok(connection && worker);
  await create(connection, namespace);
  await create(worker, namespace);
  await create(readManifests(path.join(root, 'examples/twor-pdb.yaml'))[0]!, namespace);
  await patchWorkerDeploymentStatus(namespace, 'orders', {
    targetVersion: { buildID: 'build-b', status: 'Ramping', rampPercentage: 25 },
    currentVersion: { buildID: 'build-a', status: 'Current' },
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: 'Ramping',
        message: 'ramping build-b',
        lastTransitionTime: new Date().toISOString(),
      },
    ],
  });
  const { kubeBinary, kubeconfigPath } = sharedEnvironment();
  const kubectl = (...args: string[]): string =>
    execFileSync(kubeBinary, ['kubectl', `--kubeconfig=${kubeconfigPath}`, '-n', namespace, ...args], {
      encoding: 'utf8',
    });

  const twd = kubectl('get', 'twd').split('\n');
  assert.match(twd[0] ?? '', /^NAME\s+TARGET\s+CURRENT\s+RAMP %\s+READY\s+AGE/);
  assert.match(twd[1] ?? '', /^orders\s+build-b\s+build-a\s+25\s+False\s+\d+s/);
  assert.match(
    kubectl('get', 'tconn'),
    /^NAME\s+HOST\s+READY\s+AGE\ntemporal\s+temporal-frontend\.temporal\.svc:7233\s+/,
  );
  assert.match(
    kubectl('get', 'twor'),
    /^NAME\s+WORKER\s+KIND\s+READY\s+AGE\norders-pdb\s+orders\s+PodDisruptionBudget\s+/,
  );
});
