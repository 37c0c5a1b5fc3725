import { CustomObjectsApi } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { installCrds } from '../../dev/localenv/crds.ts';
import { kubeConfig, testNamespace, uniqueName } from '../support/environment.ts';

test('CRDs installed from a folder become Established and serve their kind', async (t) => {
  const group = `${uniqueName('smoke')}.example.com`;
  const folder = mkdtempSync(path.join(tmpdir(), 'crds-'));
  writeFileSync(
    path.join(folder, 'widgets.yaml'),
    stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } } },
              },
            },
          },
        ],
      },
    }),
  );
  writeFileSync(path.join(folder, 'README.txt'), 'not YAML: ignored');

  const installed = await installCrds(kubeConfig(), folder);
  assert.deepEqual(installed, [`widgets.${group}`]);

  const namespace = await testNamespace(t, 'crd');
  const objects = kubeConfig().makeApiClient(CustomObjectsApi);
  const created = (await objects.createNamespacedCustomObject({
    group,
    version: 'v1',
    namespace,
    plural: 'widgets',
    body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } },
  })) as { spec: { size: number } };
  assert.equal(created.spec.size, 3);
  await assert.rejects(
    objects.createNamespacedCustomObject({
      group,
      version: 'v1',
      namespace,
      plural: 'widgets',
      body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'bad' }, spec: { size: 0 } },
    }),
    /spec\.size/,
    'the installed schema is enforced',
  );
});
