// Every object of every whole YAML block in README.md and docs/*.md (those not marked
// <!-- fragment -->, see docs/README.md) is admitted by the real API server: created as a
// server-side dry run (dryRun=All, strict field validation), so the schema and CEL rules of our
// CRDs and Kubernetes' own validation judge it and nothing is stored. A namespaced object goes to
// this test's namespace, whatever namespace the block names; a cluster-scoped one gets a name of
// its own, as the shared cluster may hold one of that name. The owned-resource webhook is not
// registered in the shared environment, so a TemporalWorkerOwnedResource meets its CRD only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ApiResources } from '../../src/k8s/api-resources.ts';
import { DOC_FILES, FRAGMENT, manifestsOf, readDoc, type Manifest } from '../support/docs.ts';
import { kubernetesApi, testNamespace } from '../support/environment.ts';

const blocks = DOC_FILES.flatMap((file) => readDoc(file).blocks).filter(
  (b) => (b.lang === 'yaml' || b.lang === 'yml') && b.marker !== FRAGMENT,
);

test('every whole YAML block of the docs is admitted by the API server', async (t) => {
  assert.ok(blocks.length > 0, 'the docs have whole YAML blocks');
  const api = kubernetesApi(t);
  const resources = new ApiResources(api);
  const namespace = await testNamespace(t, 'docs');
  for (const block of blocks) {
    await t.test(`${block.file}:${block.line}`, async () => {
      for (const manifest of manifestsOf(block)) {
        const served = await resources.resourceOf(manifest.apiVersion, manifest.kind);
        const body = served.namespaced ? inNamespace(manifest, namespace) : renamed(manifest);
        const admitted = await api
          .request<Manifest>('POST', served.collection(namespace), {
            query: { dryRun: 'All', fieldValidation: 'Strict' },
            body,
          })
          .catch((error: Error) => {
            throw new Error(`${manifest.kind} ${manifest.metadata.name} is refused: ${error.message}`);
          });
        assert.equal(admitted.kind, manifest.kind);
      }
    });
  }
});

function inNamespace(manifest: Manifest, namespace: string): Manifest {
  return { ...manifest, metadata: { ...manifest.metadata, namespace } };
}

function renamed(manifest: Manifest): Manifest {
  const metadata = {
    ...manifest.metadata,
    name: `${manifest.metadata.name.slice(0, 54)}-${randomBytes(4).toString('hex')}`,
  };
  delete metadata.namespace;
  return { ...manifest, metadata };
}
