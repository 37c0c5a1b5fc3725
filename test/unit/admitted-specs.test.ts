// A spec is defaulted and validated once, however many objects (one per status write) carry it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdmittedSpecs } from '../../src/controller/admitted-specs.ts';
import { workerDeployment } from '../support/recorded-world.ts';

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

test('past its limit, the least recently used spec is forgotten', () => {
  const specs = new AdmittedSpecs(2);
  const v1 = specs.of(workerDeployment({ buildId: 'v1' }));
  const v2 = specs.of(workerDeployment({ buildId: 'v2' }));
  assert.equal(specs.of(workerDeployment({ buildId: 'v1' })), v1, 'v1 used again: v2 is the oldest');
  specs.of(workerDeployment({ buildId: 'v3' }));
  assert.equal(specs.of(workerDeployment({ buildId: 'v1' })), v1);
  assert.notEqual(specs.of(workerDeployment({ buildId: 'v2' })), v2, 'v2 was forgotten');
});
