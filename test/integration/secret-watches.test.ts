// The controller's Secret cache watches only the Secrets it is told about, each by name, and
// stops watching those no longer referenced.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NamedWatches } from '../../src/runtime/named-watches.ts';
import { eventually, kubeConfig, kubernetesApi, testNamespace } from '../support/environment.ts';

test('only the named Secrets are cached and reported, until they are no longer wanted', async (t) => {
  const namespace = await testNamespace(t, 'secrets');
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const changes: string[] = [];
  const secrets = new NamedWatches({
    kind: 'Secret',
    api: kubernetesApi(t),
    onChange: (ns, name) => changes.push(`${ns}/${name}`),
  });
  t.after(() => secrets.stop());
  const touch = (name: string, value: string) =>
    core.patchNamespacedSecret(
      { namespace, name, body: { stringData: { value } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  for (const name of ['wanted', 'other'])
    await core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: { value: '1' } } });

  secrets.watchOnly([{ namespace, name: 'wanted' }]);
  assert.equal((await secrets.get(namespace, 'wanted'))?.metadata?.name, 'wanted');
  await touch('other', '2');
  await touch('wanted', '2');
  await eventually('the change of the wanted Secret', () => Promise.resolve(changes.length >= 2 ? true : undefined));
  assert.deepEqual(new Set(changes), new Set([`${namespace}/wanted`]), 'the other Secret is never reported');

  secrets.watchOnly([]);
  changes.length = 0;
  await touch('wanted', '3');
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'marker' }, stringData: { value: '1' } } });
  secrets.watchOnly([{ namespace, name: 'marker' }]);
  await eventually('the marker Secret to be reported', () =>
    Promise.resolve(changes.includes(`${namespace}/marker`) ? true : undefined),
  );
  assert.deepEqual(changes, [`${namespace}/marker`], 'a Secret no longer wanted is no longer watched');
  assert.equal(await secrets.get(namespace, 'missing'), undefined, 'a Secret that does not exist reads as undefined');
});
