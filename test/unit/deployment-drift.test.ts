// When a Deployment must be rolled in place, and with what.
import type { V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemporalWorkerDeployment } from '../../src/api/temporal-worker-deployment.ts';
import { readConfiguration, withConfigurationDigests } from '../../src/k8s/configuration-digests.ts';
import { configurationReferences } from '../../src/k8s/configuration-references.ts';
import { driftOf, replacementOf } from '../../src/k8s/deployment-drift.ts';
import { observeDeployment } from '../../src/k8s/observed-deployment.ts';
import { versionedDeployment } from '../../src/k8s/versioned-deployment.ts';
import { type WorkerConnection, workerConnection } from '../../src/k8s/worker-connection.ts';

const plaintext = { hostPort: 'temporal:7233' };
const apiKey = { hostPort: 'cloud:7233', apiKeySecretRef: { name: 'key', key: 'api-key' } };

function build(
  spec: Partial<TemporalWorkerDeployment['spec']> = {},
  connection: WorkerConnection = plaintext,
): V1Deployment {
  return versionedDeployment({
    workerDeployment: {
      metadata: { name: 'orders', namespace: 'team-a', uid: 'uid-1' },
      spec: {
        replicas: 2,
        workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'ns', unsafeCustomBuildID: 'stable' },
        template: { spec: { containers: [{ name: 'worker', image: 'w:1' }] } },
        ...spec,
      },
    },
    connection,
    buildId: 'stable',
  });
}

/** As the API server returns it: with a resourceVersion, status and a replica count an autoscaler may have changed. */
function live(deployment: V1Deployment, replicas = 2): V1Deployment {
  return {
    ...deployment,
    metadata: { ...deployment.metadata, resourceVersion: '42' },
    spec: { ...deployment.spec!, replicas, revisionHistoryLimit: 10 },
  };
}

const observed = (deployment: V1Deployment) => observeDeployment(live(deployment))!;
const template = { spec: { containers: [{ name: 'worker', image: 'w:2' }] } };

/** The API-key connection as the workers see it with this Secret data (values as the API server gives them, base64). */
const keyed = (data: Record<string, string>) =>
  workerConnection({ metadata: { namespace: 'ns' }, spec: apiKey }, () => ({
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  }));
const mtls = { hostPort: 'cloud:7233', mutualTLSSecretRef: { name: 'client-cert' } };
const certified = (crt: string, ca?: string) =>
  workerConnection({ metadata: { namespace: 'ns' }, spec: mtls }, () => ({
    data: { 'tls.crt': crt, 'tls.key': 'k', ...(ca ? { 'ca.crt': ca } : {}) },
  }));

const cases: [string, V1Deployment, V1Deployment | undefined, WorkerConnection, RegExp | undefined][] = [
  ['the target as built: nothing to do', build(), build(), plaintext, undefined],
  ['an old build on the same connection: nothing to do', build(), undefined, plaintext, undefined],
  [
    'the connection changed: the target rolls',
    build(),
    build({}, apiKey),
    apiKey,
    /TemporalConnection or the credentials in its Secret changed/,
  ],
  [
    'the connection changed: an old build rolls too',
    build(),
    undefined,
    apiKey,
    /TemporalConnection or the credentials in its Secret changed/,
  ],
  ['a new template under the custom build ID', build(), build({ template }), plaintext, /unsafeCustomBuildID/],
  ['new timings', build(), build({ minReadySeconds: 10 }), plaintext, /minReadySeconds/],
  [
    'another replica count is not drift: scaling is separate',
    build({ replicas: 2 }),
    build({ replicas: 5 }),
    plaintext,
    undefined,
  ],
  [
    'a rotated API key: the target rolls',
    build({}, keyed({ 'api-key': 'one' })),
    build({}, keyed({ 'api-key': 'two' })),
    keyed({ 'api-key': 'two' }),
    /credentials in its Secret changed/,
  ],
  [
    'a rotated API key: an old build rolls too',
    build({}, keyed({ 'api-key': 'one' })),
    undefined,
    keyed({ 'api-key': 'two' }),
    /credentials in its Secret changed/,
  ],
  [
    'a key the workers do not read changed: nothing to do',
    build({}, keyed({ 'api-key': 'one', other: 'a' })),
    undefined,
    keyed({ 'api-key': 'one', other: 'b' }),
    undefined,
  ],
  [
    'a renewed client certificate: an old build rolls',
    build({}, certified('c1')),
    undefined,
    certified('c2'),
    /credentials in its Secret changed/,
  ],
  [
    'a CA added to the mutual TLS Secret: an old build rolls',
    build({}, certified('c1')),
    undefined,
    certified('c1', 'ca'),
    /credentials in its Secret changed/,
  ],
];

for (const [title, existing, wanted, connection, expected] of cases) {
  test(title, () => {
    const drift = driftOf(observed(existing), wanted, connection);
    if (expected) assert.match(drift ?? '(none)', expected);
    else assert.equal(drift, undefined);
  });
}

test('the replacement of the target is the new build, on the live resourceVersion and replica count', () => {
  const wanted = build({ template }, apiKey);
  const replacement = replacementOf(live(build(), 7), wanted, apiKey);
  assert.equal(replacement.metadata?.resourceVersion, '42');
  assert.equal(replacement.spec?.replicas, 7, "an autoscaler's count is kept");
  assert.equal(replacement.spec?.revisionHistoryLimit, 10, 'server defaults are kept');
  assert.deepEqual(replacement.spec?.template, wanted.spec?.template);
  assert.equal(driftOf(observeDeployment(replacement)!, wanted, apiKey), undefined, 'and it no longer drifts');
});

test('the replacement of an old build keeps its own template with the new connection', () => {
  const replacement = replacementOf(live(build()), undefined, apiKey);
  assert.equal(replacement.spec?.template.spec?.containers[0]?.image, 'w:1');
  assert.ok(replacement.spec?.template.spec?.containers[0]?.env?.some((e) => e.name === 'TEMPORAL_API_KEY'));
  assert.equal(driftOf(observeDeployment(replacement)!, undefined, apiKey), undefined);
});

test('the connection hash carries no credential, only a digest hashed again', () => {
  const deployment = build({}, keyed({ 'api-key': 'the-secret-key' }));
  assert.doesNotMatch(JSON.stringify(deployment), /the-secret-key|dGhlLXNlY3JldC1rZXk/);
});

test('an observed Deployment says which Temporal namespace its workers poll', () => {
  assert.equal(observed(build()).temporalNamespace, 'ns');
  const payments = build({ workerOptions: { connectionRef: { name: 'c' }, temporalNamespace: 'payments' } });
  assert.equal(observed(payments).temporalNamespace, 'payments');
});

/** A build whose template reads ConfigMap `settings`, carrying the digests of `carried`. */
const reading = {
  spec: { containers: [{ name: 'worker', image: 'w:1', envFrom: [{ configMapRef: { name: 'settings' } }] }] },
};
function digestsOf(deployment: V1Deployment, mode: string | undefined) {
  return readConfiguration(configurationReferences(deployment.spec?.template), (kind, name) =>
    kind === 'ConfigMap' && name === 'settings' && mode !== undefined ? { data: { MODE: mode } } : undefined,
  ).digests;
}
function carrying(mode: string): V1Deployment {
  const deployment = build({ template: reading });
  return {
    ...deployment,
    spec: {
      ...deployment.spec!,
      template: withConfigurationDigests(deployment.spec!.template, digestsOf(deployment, mode)),
    },
  };
}

test('a ConfigMap its template reads changed: an old build rolls, and the reason names it', () => {
  const old = carrying('fast');
  assert.equal(driftOf(observed(old), undefined, plaintext, undefined, digestsOf(old, 'fast')), undefined);
  assert.equal(
    driftOf(observed(old), undefined, plaintext, undefined, digestsOf(old, 'slow')),
    'the configuration its Pods read changed: ConfigMap settings changed',
  );
});

test('a ConfigMap its template reads changed: the target rolls too, though its spec is as built', () => {
  const target = carrying('fast');
  assert.match(
    driftOf(observed(target), target, plaintext, undefined, digestsOf(target, 'slow')) ?? '(none)',
    /ConfigMap settings changed/,
  );
});

test('configuration not compared (onConfigChange: NewBuild): no roll, whatever the digests', () => {
  const old = carrying('fast');
  assert.equal(driftOf(observed(old), undefined, plaintext, undefined, undefined), undefined);
});

test('made before digests: a template that reads nothing rolls on no upgrade; one that reads a ConfigMap rolls once', () => {
  const plain = build();
  assert.equal(driftOf(observed(plain), undefined, plaintext, undefined, digestsOf(plain, 'fast')), undefined);
  const legacy = build({ template: reading });
  assert.match(
    driftOf(observed(legacy), undefined, plaintext, undefined, digestsOf(legacy, 'fast')) ?? '(none)',
    /has no digest on it yet/,
  );
});

test("the replacement of an old build keeps its own template and carries the configuration's new digests", () => {
  const old = carrying('fast');
  const now = digestsOf(old, 'slow');
  const replacement = replacementOf(live(old), undefined, plaintext, undefined, now);
  assert.deepEqual(replacement.spec?.template.spec?.containers[0]?.envFrom, [{ configMapRef: { name: 'settings' } }]);
  assert.equal(driftOf(observeDeployment(replacement)!, undefined, plaintext, undefined, now), undefined);
  assert.notDeepEqual(replacement.spec?.template.metadata?.annotations, old.spec?.template.metadata?.annotations);
});
