// A TemporalClusterConnection's Secrets reach worker Pods as copies in each worker deployment's
// namespace, one set per worker deployment: only the keys the workers read, owned by it, labelled
// as ours and with the connection, never written over a Secret of the user's (whatever its labels);
// the Pods' connection names them.
import type { V1Secret } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalConnection } from '../../src/api/temporal-connection.ts';
import { validate } from '../../src/api/validate.ts';
import { KINDS } from '../../src/api/kinds.ts';
import { withConnection } from '../../src/k8s/versioned-deployment.ts';
import {
  COPIED_FROM_LABEL,
  copyInPlace,
  notOurCopy,
  secretCopies,
  secretCopyNames,
} from '../../src/k8s/secret-copies.ts';
import { workerConnection } from '../../src/k8s/worker-connection.ts';
import { secretCopyActions } from '../../src/planner/kubernetes-actions.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const cluster = (spec: Partial<TemporalConnection['spec']>) => ({
  metadata: { name: 'shared' },
  spec: { hostPort: 'temporal.example:7233', ...spec },
});
const twd = { metadata: { namespace: 'team-a', name: 'orders', uid: 'uid-orders' } };
const sources: Record<string, V1Secret> = {
  'platform/controller-cert': { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } },
  'platform/worker-key': { type: 'Opaque', data: { key: b64('worker'), unrelated: b64('x') } },
  'trust/ca': { data: { 'bundle.pem': b64('ca'), other: b64('y') } },
};
const lookup = (namespace: string, name: string) => sources[`${namespace}/${name}`];
const ownerOf = (secret: V1Secret) => secret.metadata?.ownerReferences?.[0] ?? assert.fail('a copy has its owner');

const apart = cluster({
  tls: { caCertSecretRef: { name: 'ca', namespace: 'trust', key: 'bundle.pem' } },
  mutualTLSSecretRef: { name: 'controller-cert', namespace: 'platform' },
  workerAuth: { apiKeySecretRef: { name: 'worker-key', namespace: 'platform', key: 'key' } },
});

test("a cluster connection's workers get copies of the Secrets they read, in their namespace, with only those keys", () => {
  const copies = secretCopies(apart, twd, lookup);
  assert.deepEqual(
    copies.map(({ source, copy }) => [source, copy.metadata?.namespace, copy.metadata?.name, copy.type, copy.data]),
    [
      ['platform/worker-key', 'team-a', 'orders-temporal-api-key', 'Opaque', { key: b64('worker') }],
      ['trust/ca', 'team-a', 'orders-temporal-ca', 'Opaque', { 'bundle.pem': b64('ca') }],
    ],
    "the controller's certificate is not copied: the workers have their own key",
  );
  for (const { copy } of copies) {
    assert.deepEqual(copy.metadata?.labels, {
      'app.kubernetes.io/managed-by': 'temporal-worker-controller',
      'temporal.io/deployment-name': 'orders',
      [COPIED_FROM_LABEL]: 'shared',
    });
    assert.deepEqual(copy.metadata?.ownerReferences, [
      { apiVersion: 'temporal.io/v1alpha1', kind: 'TemporalWorkerDeployment', name: 'orders', uid: 'uid-orders' },
    ]);
  }
  assert.deepEqual(secretCopyNames(apart, 'orders'), ['orders-temporal-api-key', 'orders-temporal-ca']);
  assert.deepEqual(secretCopies({ ...apart, metadata: { name: 'n', namespace: 'team-a' } }, twd, lookup), []);
  assert.deepEqual(
    secretCopies(cluster({ mutualTLSSecretRef: { name: 'missing', namespace: 'platform' } }), twd, lookup),
    [],
    'nothing to copy yet: the connection says the Secret is missing',
  );
});

test("the Pods' connection names the copies, and rolls when a source's keys change", () => {
  const pods = withConnection({ spec: { containers: [{ name: 'w' }] } }, workerConnection(apart, lookup, 'orders'));
  assert.deepEqual(
    pods.spec?.volumes?.map((v) => v.secret?.secretName),
    ['orders-temporal-ca'],
    'the CA mounted from its copy',
  );
  assert.deepEqual(pods.spec?.containers[0]?.env?.find((e) => e.name === 'TEMPORAL_API_KEY')?.valueFrom, {
    secretKeyRef: { name: 'orders-temporal-api-key', key: 'key' },
  });
  assert.equal(JSON.stringify(pods).includes('platform'), false, 'no namespace of a source reaches the Pods');
  const hash = (secrets: typeof lookup) =>
    withConnection({}, workerConnection(apart, secrets, 'orders')).metadata?.annotations?.[
      'temporal.io/connection-hash'
    ];
  const rotated = (namespace: string, name: string) =>
    name === 'worker-key' ? { data: { key: b64('rotated') } } : lookup(namespace, name);
  assert.notEqual(hash(rotated), hash(lookup));
});

test('a copy is written when missing or different, and never over a Secret of the user, whatever its labels', () => {
  const [copy] = secretCopies(apart, twd, lookup);
  assert.ok(copy);
  const inPlace = structuredClone(copy.copy);
  assert.equal(copyInPlace(copy, inPlace), true);
  assert.equal(copyInPlace(copy, undefined), false);
  assert.equal(copyInPlace(copy, { ...inPlace, data: { key: b64('old') } }), false, 'an older copy');
  assert.equal(notOurCopy(inPlace, twd), undefined);
  assert.equal(
    notOurCopy({ metadata: { ...inPlace.metadata, labels: { [COPIED_FROM_LABEL]: 'another' } } }, twd),
    'it lacks the label app.kubernetes.io/managed-by=temporal-worker-controller',
  );
  assert.equal(
    notOurCopy({ metadata: { ...inPlace.metadata, ownerReferences: [] } }, twd),
    'no owner reference of it names TemporalWorkerDeployment orders',
    "the user's own Secret with our labels",
  );
  assert.equal(
    notOurCopy({ metadata: { ...inPlace.metadata, ownerReferences: [{ ...ownerOf(inPlace), uid: 'uid-old' }] } }, twd),
    'no owner reference of it names TemporalWorkerDeployment orders',
    'a copy of an earlier worker deployment of that name, not yet collected',
  );
  assert.equal(
    notOurCopy(
      { metadata: { ...inPlace.metadata, labels: { ...inPlace.metadata?.labels, [COPIED_FROM_LABEL]: 'another' } } },
      twd,
    ),
    undefined,
    'a copy of the connection the worker deployment used before is its own, rewritten',
  );
  assert.deepEqual(
    secretCopyActions({
      secretCopies: [
        { secret: copy.copy, source: copy.source, inPlace: false, outdated: true },
        { secret: copy.copy, source: copy.source, inPlace: true, outdated: false },
      ],
    }).map((a) => a.action === 'applySecretCopy' && a.reason),
    ['the worker Pods mount Secret orders-temporal-api-key, an outdated copy of Secret platform/worker-key'],
  );
});

test('a cluster connection names the namespace of each Secret; a namespaced one may name only its own', () => {
  const errors = validate(KINDS.TemporalClusterConnection.schema, {
    metadata: { name: 'shared' },
    spec: { hostPort: 'temporal:7233', apiKeySecretRef: { name: 'key', key: 'k' } },
  });
  assert.deepEqual(
    errors.map((e) => `${e.field}: ${e.message}`),
    ['spec.apiKeySecretRef: a TemporalClusterConnection names the namespace of each Secret'],
  );
  assert.deepEqual(validate(KINDS.TemporalClusterConnection.schema, apart), []);
});
