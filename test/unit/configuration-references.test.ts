// What a Pod template reads of ConfigMaps and Secrets: every way a template can name one, and
// none of the controller's own connection parts.
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configurationReferences, readObjects } from '../../src/k8s/configuration-references.ts';
import { versionedDeployment } from '../../src/k8s/versioned-deployment.ts';

const template: V1PodTemplateSpec = {
  spec: {
    initContainers: [{ name: 'setup', envFrom: [{ secretRef: { name: 'setup-creds' } }] }],
    containers: [
      {
        name: 'worker',
        env: [
          { name: 'PLAIN', value: 'x' },
          { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password', optional: true } } },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
        envFrom: [{ configMapRef: { name: 'flags' }, prefix: 'FLAG_' }],
      },
    ],
    volumes: [
      { name: 'files', configMap: { name: 'files', items: [{ key: 'a.yaml', path: 'a.yaml' }] } },
      { name: 'certs', secret: { secretName: 'certs' } },
      { name: 'scratch', emptyDir: {} },
      {
        name: 'bundle',
        projected: {
          sources: [
            { configMap: { name: 'settings', items: [{ key: 'extra', path: 'extra' }] } },
            { secret: { name: 'bundle-secret', optional: true } },
            { serviceAccountToken: { path: 'token' } },
          ],
        },
      },
    ],
  },
};

test('every variable, envFrom, volume and projected source that names a ConfigMap or Secret, with its keys and optionality', () => {
  assert.deepEqual(configurationReferences(template), [
    { kind: 'Secret', name: 'setup-creds', optional: false, field: 'init container setup envFrom[0]' },
    { kind: 'ConfigMap', name: 'settings', keys: ['mode'], optional: false, field: 'container worker env MODE' },
    { kind: 'Secret', name: 'db', keys: ['password'], optional: true, field: 'container worker env PASSWORD' },
    { kind: 'ConfigMap', name: 'flags', optional: false, field: 'container worker envFrom[0]' },
    { kind: 'ConfigMap', name: 'files', keys: ['a.yaml'], optional: false, field: 'volume files' },
    { kind: 'Secret', name: 'certs', optional: false, field: 'volume certs' },
    { kind: 'ConfigMap', name: 'settings', keys: ['extra'], optional: false, field: 'volume bundle sources[0]' },
    { kind: 'Secret', name: 'bundle-secret', optional: true, field: 'volume bundle sources[1]' },
  ]);
});

test('per object: the keys of every reference (every key once one reads all), required when one reference is', () => {
  const merged = readObjects([
    { kind: 'ConfigMap', name: 'settings', keys: ['mode'], optional: true, field: 'container a env MODE' },
    { kind: 'ConfigMap', name: 'settings', keys: ['extra'], optional: false, field: 'volume bundle' },
    { kind: 'Secret', name: 'settings', keys: ['k'], optional: true, field: 'container a env K' },
    { kind: 'Secret', name: 'settings', optional: true, field: 'container a envFrom[0]' },
  ]);
  assert.deepEqual(merged, [
    { kind: 'ConfigMap', name: 'settings', keys: ['mode', 'extra'], optional: false, field: 'volume bundle' },
    { kind: 'Secret', name: 'settings', optional: true, field: 'container a env K' },
  ]);
});

test("the controller's own connection parts are not the template's configuration: the connection hash covers them", () => {
  const built = versionedDeployment({
    workerDeployment: {
      metadata: { name: 'orders', namespace: 'shop', uid: 'u' },
      spec: {
        replicas: 1,
        workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'default' },
        template: { spec: { containers: [{ name: 'worker', image: 'w:1' }] } },
      },
    },
    connection: {
      hostPort: 'temporal:7233',
      mutualTLSSecretRef: { name: 'client-cert' },
      apiKeySecretRef: { name: 'key', key: 'api-key' },
      tls: { caCertSecretRef: { name: 'ca' } },
    },
    buildId: 'v1',
  });
  assert.ok(built.spec?.template.spec?.volumes?.length, 'the connection mounts its Secrets');
  assert.deepEqual(configurationReferences(built.spec?.template), []);
});
