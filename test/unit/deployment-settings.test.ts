// spec.deployment on every build's Deployments: applied, changed and taken off in place, the
// controller's own labels and annotations untouched, and a Deployment whose settings differ rolled.
import type { V1Deployment } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeploymentSettings } from '../../src/api/temporal-worker-deployment.ts';
import { validate, withDefaults } from '../../src/api/validate.ts';
import { KINDS } from '../../src/api/kinds.ts';
import { driftOf, replacementOf } from '../../src/k8s/deployment-drift.ts';
import { SETTINGS_ANNOTATION, withSettings } from '../../src/k8s/deployment-settings.ts';
import { observeDeployment } from '../../src/k8s/observed-deployment.ts';
import { versionedDeployment } from '../../src/k8s/versioned-deployment.ts';

const connection = { hostPort: 'temporal:7233' };
const settings: DeploymentSettings = {
  strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
  labels: { team: 'payments', 'app.kubernetes.io/name': 'should-lose' },
  annotations: { 'example.com/owner': 'payments' },
  revisionHistoryLimit: 2,
};

function build(deployment?: DeploymentSettings): V1Deployment {
  return versionedDeployment({
    workerDeployment: {
      metadata: { name: 'orders', namespace: 'team-a', uid: 'uid-1' },
      spec: {
        replicas: 2,
        workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'ns' },
        template: { spec: { containers: [{ name: 'worker', image: 'w:1' }] } },
        ...(deployment ? { deployment } : {}),
      },
    },
    connection,
    buildId: 'v1',
  });
}

/** As the API server returns it: its own annotation and defaults beside ours. */
function live(deployment: V1Deployment): V1Deployment {
  return {
    ...deployment,
    metadata: {
      ...deployment.metadata,
      resourceVersion: '42',
      annotations: { ...deployment.metadata?.annotations, 'deployment.kubernetes.io/revision': '3' },
    },
    spec: {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      ...deployment.spec!,
    },
  };
}

test("a new build's Deployments carry the settings; the selector's labels and the controller's annotations win", () => {
  const made = build(settings);
  const selector = made.spec?.selector.matchLabels ?? {};
  assert.deepEqual(made.metadata?.labels, { team: 'payments', 'app.kubernetes.io/name': 'should-lose', ...selector });
  assert.equal(made.metadata?.annotations?.['example.com/owner'], 'payments');
  assert.ok(made.metadata?.annotations?.['temporal.io/spec-hash']);
  assert.deepEqual(made.spec?.strategy, settings.strategy);
  assert.equal(made.spec?.revisionHistoryLimit, 2);
  assert.deepEqual(JSON.parse(made.metadata?.annotations?.[SETTINGS_ANNOTATION] ?? '{}'), settings);
  const plain = build();
  assert.equal(plain.metadata?.annotations?.[SETTINGS_ANNOTATION], undefined, 'no settings: no annotation');
  assert.equal(plain.spec?.strategy, undefined, "Kubernetes' default");
});

test('settings changed or taken out roll every build in place: what was set goes, what the server set stays', () => {
  const before = live(build(settings));
  const changed: DeploymentSettings = { labels: { team: 'billing' }, strategy: { type: 'Recreate' } };
  const observed = observeDeployment(before)!;
  for (const wanted of [build(changed), undefined])
    assert.equal(
      driftOf(observed, wanted, connection, changed),
      'spec.deployment changed',
      'the target, and an old build',
    );
  const rolled = replacementOf(before, undefined, connection, changed);
  const selector = before.spec?.selector.matchLabels ?? {};
  assert.deepEqual(rolled.metadata?.labels, { team: 'billing', ...selector }, 'the old labels go');
  assert.equal(rolled.metadata?.annotations?.['example.com/owner'], undefined, 'the old annotation goes');
  assert.equal(rolled.metadata?.annotations?.['deployment.kubernetes.io/revision'], '3', "the server's stays");
  assert.deepEqual(rolled.spec?.strategy, { type: 'Recreate' });
  assert.equal('revisionHistoryLimit' in (rolled.spec ?? {}), false, 'taken out: the server defaults it again');
  assert.equal(
    driftOf(observeDeployment(rolled)!, undefined, connection, changed),
    undefined,
    'and it no longer drifts',
  );

  const cleared = replacementOf(live(build(settings)), undefined, connection, undefined);
  assert.equal(cleared.metadata?.annotations?.[SETTINGS_ANNOTATION], undefined);
  assert.equal(cleared.spec?.strategy, undefined);
  assert.equal(driftOf(observeDeployment(cleared)!, undefined, connection, undefined), undefined);
});

test('a Deployment made before spec.deployment existed, with none in the spec, does not roll', () => {
  const old = live(build());
  assert.equal(driftOf(observeDeployment(old)!, undefined, connection, undefined), undefined);
  assert.equal(driftOf(observeDeployment(old)!, undefined, connection, {}), undefined, 'an empty object is none');
  assert.deepEqual(withSettings(old, undefined).spec?.revisionHistoryLimit, 10, "the server's default kept");
});

test("admission refuses the controller's label and annotation keys and a strategy Kubernetes does not know, naming the field", () => {
  const twd = (deployment: unknown) => ({
    apiVersion: 'temporal.io/v1alpha1',
    kind: 'TemporalWorkerDeployment',
    metadata: { name: 'orders', namespace: 'team-a' },
    spec: {
      workerOptions: { connectionRef: { name: 'temporal' }, temporalNamespace: 'ns' },
      template: { spec: { containers: [{ name: 'worker', image: 'w:1' }] } },
      deployment,
    },
  });
  const schema = KINDS.TemporalWorkerDeployment.schema;
  const errors = (deployment: unknown) =>
    validate(schema, withDefaults(schema, twd(deployment))).map((e) => `${e.field}: ${e.message}`);
  assert.deepEqual(errors(settings), []);
  assert.deepEqual(errors({ strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 2 } } }), []);
  assert.ok(errors({ labels: { 'temporal.io/build-id': 'x' } }).some((e) => e.startsWith('spec.deployment.labels')));
  assert.ok(
    errors({ annotations: { 'temporal.io/spec-hash': 'x' } }).some((e) => e.startsWith('spec.deployment.annotations')),
  );
  assert.ok(errors({ strategy: { type: 'BlueGreen' } }).some((e) => e.startsWith('spec.deployment.strategy.type')));
  assert.ok(
    errors({ strategy: { rollingUpdate: { maxSurge: 'lots' } } }).some((e) =>
      e.startsWith('spec.deployment.strategy.rollingUpdate.maxSurge'),
    ),
  );
});
