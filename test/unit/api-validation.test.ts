// The controller's validator refuses what admission refuses, naming the same field, and fills in
// the same defaults; the integration test holds the API server to the same table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KINDS } from '../../src/api/kinds.ts';
import { Type } from '@sinclair/typebox';
import { fittingPart, unknownFields, validate, withDefaults } from '../../src/api/validate.ts';
import {
  invalidManifests,
  validConnection,
  validOwnedResource,
  validWorkerDeployment,
} from '../support/invalid-manifests.ts';

for (const c of invalidManifests.filter((c) => !c.apiServerOnly)) {
  test(`the validator refuses ${c.kind}: ${c.title}`, () => {
    const schema = KINDS[c.kind].schema;
    const errors = validate(schema, withDefaults(schema, c.manifest), c.before && withDefaults(schema, c.before));
    const described = errors.map((e) => `${e.field}: ${e.message}`);
    assert.ok(
      described.some((d) => d.includes(c.expect) && d.includes(c.says ?? '')),
      `expected an error naming ${c.expect}${c.says ? ` that says ${c.says}` : ''}, got ${JSON.stringify(described)}`,
    );
  });
}

test('the valid base objects pass, and an unchanged workerRef is no change', () => {
  for (const [kind, manifest] of [
    ['TemporalWorkerDeployment', validWorkerDeployment()],
    ['TemporalConnection', validConnection()],
    ['TemporalWorkerOwnedResource', validOwnedResource()],
  ] as const) {
    const schema = KINDS[kind].schema;
    assert.deepEqual(validate(schema, withDefaults(schema, manifest), withDefaults(schema, manifest)), [], kind);
  }
});

test('defaults: sunset delays, rollout strategy, readiness timings', () => {
  const schema = KINDS.TemporalWorkerDeployment.schema;
  const manifest = validWorkerDeployment();
  (manifest.spec as Record<string, unknown>).rollout = {};
  const spec = withDefaults(schema, manifest).spec as Record<string, unknown>;
  assert.deepEqual(spec.sunset, { scaledownDelay: '1h', deleteDelay: '24h', unusedBuildDeleteDelay: '1h' });
  assert.deepEqual(spec.rollout, { strategy: 'AllAtOnce' });
  assert.equal(spec.minReadySeconds, 0);
  assert.equal(spec.progressDeadlineSeconds, 600);
});

test('a ramp that increases strictly passes, including with a step gate', () => {
  const schema = KINDS.TemporalWorkerDeployment.schema;
  const manifest = validWorkerDeployment();
  (manifest.spec as Record<string, unknown>).rollout = {
    strategy: 'Progressive',
    steps: [
      { rampPercentage: 1, pauseDuration: '30s' },
      { rampPercentage: 50, pauseDuration: '1h30m', gate: { workflowType: 'Check', input: { depth: 2 } } },
    ],
  };
  assert.deepEqual(validate(schema, withDefaults(schema, manifest)), []);
});

test('the part of a value that fits: each misfit is left out, the smallest part that holds it, and said once', () => {
  const schema = Type.Object({
    kept: Type.Optional(Type.String()),
    outer: Type.Optional(
      Type.Object({
        name: Type.String(),
        inner: Type.Optional(Type.Object({ at: Type.String(), n: Type.Optional(Type.Integer()) })),
      }),
    ),
    items: Type.Optional(Type.Array(Type.Object({ id: Type.String() }))),
  });
  const value = { kept: 'yes', outer: { name: 'o', inner: { n: 1 } }, items: [{ id: 'a' }, { id: 2 }] };
  assert.deepEqual(fittingPart(schema, value, 'status'), {
    value: { kept: 'yes', outer: { name: 'o' }, items: [{ id: 'a' }] },
    left: [
      { field: 'status.outer.inner.at', message: 'Expected required property' },
      { field: 'status.items[1].id', message: 'Expected string' },
    ],
  });
  assert.deepEqual(value.items, [{ id: 'a' }, { id: 2 }], 'the value given is left as it was');
  assert.deepEqual(fittingPart(schema, { kept: 'yes' }), { value: { kept: 'yes' }, left: [] });
  assert.equal(fittingPart(schema, 'nothing like it').value, undefined);
});

test('defaults fill a copy, never the value given, with or without defaults in the schema', () => {
  const withDefault = Type.Object({
    a: Type.Optional(Type.String({ default: 'x' })),
    b: Type.Object({ c: Type.Number() }),
  });
  const without = Type.Object({ a: Type.Optional(Type.String()), b: Type.Object({ c: Type.Number() }) });
  const value = { b: { c: 1 } };
  const filled = withDefaults(withDefault, value);
  assert.deepEqual(filled, { a: 'x', b: { c: 1 } });
  const copied = withDefaults(without, value);
  assert.deepEqual(copied, { b: { c: 1 } });
  assert.notEqual(copied.b, value.b, 'a copy, to be frozen apart from the cache');
  assert.deepEqual(value, { b: { c: 1 } });
});

test("the fields of a spec its schema does not name, where it names them: not inside a Pod template, nor a map's keys", () => {
  const schema = Type.Object({
    rollout: Type.Object({ steps: Type.Array(Type.Object({ rampPercentage: Type.Number() })) }),
    labels: Type.Record(Type.String(), Type.String()),
    template: Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true }),
  });
  const spec = {
    rollout: { steps: [{ rampPercentage: 5, hold: true }], approval: 'x' },
    labels: { team: 'payments' },
    template: { spec: { newPodField: 1 } },
    later: {},
  };
  assert.deepEqual(
    unknownFields(schema, spec, 'spec').map((e) => e.field),
    ['spec.rollout.steps[0].hold', 'spec.rollout.approval', 'spec.later'],
  );
  assert.deepEqual(unknownFields(schema, { rollout: { steps: [] } }, 'spec'), []);
});
