import type { V1Container, V1Pod } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContainerEnvError, resolveEnv, type EnvSources } from '../../dev/node-agent/container-env.ts';

const pod: V1Pod = {
  metadata: { name: 'p-1', namespace: 'ns', uid: 'u-1', labels: { app: 'w' } },
  spec: { containers: [] },
};
const sources: EnvSources = {
  secretValue: (namespace, name, key) =>
    Promise.resolve(namespace === 'ns' && name === 's' && key === 'k' ? 'secret-value' : undefined),
  configMapValue: (namespace, name, key) =>
    Promise.resolve(namespace === 'ns' && name === 'c' && key === 'k' ? 'config-value' : undefined),
  secretData: (namespace, name) =>
    Promise.resolve(namespace === 'ns' && name === 's' ? { k: 'secret-value', TOKEN: 't' } : undefined),
  configMapData: (namespace, name) =>
    Promise.resolve(namespace === 'ns' && name === 'c' ? { k: 'config-value', MODE: 'fast' } : undefined),
};

test('values, field references, Secret and ConfigMap keys resolve as a kubelet resolves them', async () => {
  const container: V1Container = {
    name: 'worker',
    env: [
      { name: 'PLAIN', value: 'x' },
      { name: 'EMPTY' },
      { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      { name: 'FROM_CONFIG', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } },
      { name: 'OPTIONAL', valueFrom: { secretKeyRef: { name: 'gone', key: 'k', optional: true } } },
    ],
  };
  assert.deepEqual(await resolveEnv(pod, container, sources), {
    PLAIN: 'x',
    EMPTY: '',
    POD: 'p-1',
    APP: 'w',
    FROM_SECRET: 'secret-value',
    FROM_CONFIG: 'config-value',
  });
});

test('a missing required Secret key names the variable and the Secret', async () => {
  const container: V1Container = {
    name: 'worker',
    env: [{ name: 'TEMPORAL_API_KEY', valueFrom: { secretKeyRef: { name: 'creds', key: 'api-key' } } }],
  };
  await assert.rejects(resolveEnv(pod, container, sources), (error: unknown) => {
    assert.ok(error instanceof ContainerEnvError);
    assert.match(error.message, /TEMPORAL_API_KEY: key api-key of Secret ns\/creds not found/);
    return true;
  });
});

test('envFrom: every key of a ConfigMap or Secret, prefixed if asked, in order, and env over them', async () => {
  const container: V1Container = {
    name: 'worker',
    envFrom: [
      { configMapRef: { name: 'c' } },
      { secretRef: { name: 's' }, prefix: 'S_' },
      { configMapRef: { name: 'gone', optional: true } },
    ],
    env: [{ name: 'MODE', value: 'slow' }],
  };
  assert.deepEqual(await resolveEnv(pod, container, sources), {
    k: 'config-value',
    MODE: 'slow',
    S_k: 'secret-value',
    S_TOKEN: 't',
  });
});

test('envFrom: a missing required ConfigMap names it', async () => {
  const container: V1Container = { name: 'worker', envFrom: [{ configMapRef: { name: 'gone' } }] };
  await assert.rejects(resolveEnv(pod, container, sources), /envFrom\[0\]: ConfigMap ns\/gone not found/);
});
