// A spec is defaulted and validated once, however many objects (one per status write) carry it;
// one spec is kept per worker deployment, its last.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdmittedSpecs } from '../../src/controller/admitted-specs.ts';
import { NAMESPACE, workerDeployment } from '../support/recorded-world.ts';

test('the same name and spec give the same admitted spec, defaulted and frozen; another spec is admitted anew', () => {
  const specs = new AdmittedSpecs();
  const first = specs.of(workerDeployment({ buildId: 'v1' }, { resourceVersion: '10' }));
  assert.equal(first.spec.sunset?.scaledownDelay, '1h', 'the schema default');
  assert.ok(Object.isFrozen(first.spec) && Object.isFrozen(first.spec.template));
  assert.deepEqual(first.invalid, []);
  const rewritten = workerDeployment({ buildId: 'v1' }, { resourceVersion: '11' });
  assert.equal(specs.of(rewritten), first, 'a status write later: the same spec');
  assert.notEqual(specs.of(workerDeployment({ buildId: 'v2' })), first, 'another template');
  assert.notEqual(specs.of(workerDeployment({ buildId: 'v1' }, { name: 'payments' })), first, 'another name');
});

test('what admission refuses is said of each spec, the name included', () => {
  const specs = new AdmittedSpecs();
  assert.deepEqual(
    specs.of(workerDeployment({ buildId: 'v1', replicas: -1 })).invalid.map((e) => e.field),
    ['spec.replicas'],
  );
  assert.deepEqual(
    specs.of(workerDeployment({ buildId: 'v1' }, { name: 'orders.v1' })).invalid.map((e) => e.field),
    [''],
  );
});

test('one spec a worker deployment: its last; a spec a rollout replaced is worked out again if it comes back', () => {
  const specs = new AdmittedSpecs();
  const v1 = specs.of(workerDeployment({ buildId: 'v1' }));
  assert.equal(specs.of(workerDeployment({ buildId: 'v1' })), v1);
  const v2 = specs.of(workerDeployment({ buildId: 'v2' }));
  assert.equal(specs.of(workerDeployment({ buildId: 'v2' })), v2);
  const again = specs.of(workerDeployment({ buildId: 'v1' }));
  assert.notEqual(again, v1, 'v1 was forgotten when v2 replaced it');
  assert.deepEqual(again, v1);
  const elsewhere = specs.of(workerDeployment({ buildId: 'v1' }, { namespace: 'billing' }));
  assert.notEqual(elsewhere, again, 'another namespace, another worker deployment');
  assert.equal(specs.of(workerDeployment({ buildId: 'v1' })), again, 'each keeps its own');
});

test('past its limit, the least recently used worker deployment is forgotten; one gone, at once', () => {
  const specs = new AdmittedSpecs(2);
  const orders = specs.of(workerDeployment({ buildId: 'v1' }));
  const payments = specs.of(workerDeployment({ buildId: 'v1' }, { name: 'payments' }));
  assert.equal(specs.of(workerDeployment({ buildId: 'v1' })), orders, 'orders used again: payments is the oldest');
  specs.of(workerDeployment({ buildId: 'v1' }, { name: 'billing' }));
  assert.equal(specs.of(workerDeployment({ buildId: 'v1' })), orders);
  assert.notEqual(
    specs.of(workerDeployment({ buildId: 'v1' }, { name: 'payments' })),
    payments,
    'payments was forgotten',
  );
  specs.forget(NAMESPACE, 'orders');
  assert.notEqual(specs.of(workerDeployment({ buildId: 'v1' })), orders, 'orders is gone');
});
