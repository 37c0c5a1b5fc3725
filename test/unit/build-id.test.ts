import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildIdOf, labelValue, templateHash } from '../../src/k8s/build-id.ts';
import { poolOverlays } from '../../src/k8s/pool-template.ts';

const template = (image: string, extra: Record<string, unknown> = {}) => ({
  spec: { containers: [{ name: 'worker', image, ...extra }] },
});

test('the build ID is pinned: these values must never change between releases', () => {
  // A changed value here means every existing worker deployment would roll to a "new" build on
  // upgrade. The hash is also what Python's json.dumps(sort_keys=True, separators=(',', ':'))
  // and SHA-256 give for this template: the ID follows from RFC 8785, not from our code.
  assert.equal(buildIdOf(template('registry.example.com/orders-worker:1.0.0')), '1.0.0-8681b6fef4');
  assert.equal(templateHash({ b: 1, a: [1, 'x'] }), templateHash({ a: [1, 'x'], b: 1 }), 'key order does not matter');
});

const readable: [string, string][] = [
  ['docker.io/library/busybox:latest', 'latest-'],
  ['docker.io/library/busybox', 'library-busybox-'],
  ['this.is.my_weird/image', 'this.is.my_weird-image-'],
  ['localhost:5000/team/worker:v2.1', 'v2.1-'],
  ['registry.example.com/worker@sha256:0123456789abcdef0123', '0123456789ab-'],
  ['registry.example.com/worker:v3@sha256:0123456789abcdef', 'v3-'],
];
for (const [image, prefix] of readable) {
  test(`an image ${image} gives a build ID starting ${prefix}`, () => {
    const id = buildIdOf(template(image));
    assert.ok(id.startsWith(prefix), id);
    assert.match(id, /-[0-9a-f]{10}$/);
  });
}

test('any change of the template makes a new build ID; the same template the same one', () => {
  const base = buildIdOf(template('w:1'));
  assert.equal(buildIdOf(template('w:1')), base);
  assert.notEqual(buildIdOf(template('w:1', { env: [{ name: 'A', value: '1' }] })), base);
  assert.notEqual(buildIdOf({ metadata: { labels: { a: 'b' } }, ...template('w:1') }), base);
  assert.notEqual(buildIdOf(template('w:2')), base);
});

test('build IDs are valid label values of at most 63 characters', () => {
  for (const image of ['x:' + 'v'.repeat(200), 'UPPER/Case:Tag_1', ':::', '']) {
    const id = buildIdOf(template(image));
    assert.ok(id.length > 0 && id.length <= 63, id);
    assert.match(id, /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, id);
  }
  assert.match(buildIdOf({ spec: { containers: [] } }), /^[0-9a-f]{10}$/, 'no image: the hash alone');
});

const custom: [string, string][] = [
  ['wf-a1b2c3d4', 'wf-a1b2c3d4'],
  ['---my-build-id---', 'my-build-id'],
  ['release 7 / hotfix', 'release-7-hotfix'],
  ['x'.repeat(70), 'x'.repeat(63)],
];
for (const [given, expected] of custom) {
  test(`a custom build ID ${given.slice(0, 20)} is used as ${expected.slice(0, 20)}`, () => {
    assert.equal(buildIdOf(template('w:1'), given), expected);
  });
}

test('a custom build ID with nothing usable falls back to the computed one', () => {
  assert.equal(buildIdOf(template('w:1'), '###$$$%%%'), buildIdOf(template('w:1')));
  assert.equal(labelValue('..__--'), '');
});

test("the pools' own templates are part of the build; without any the build ID is the template's alone", () => {
  const t = template('registry.example.com/orders-worker:1.0.0');
  assert.equal(
    buildIdOf(t, undefined, poolOverlays([{ name: 'cpu' }])),
    '1.0.0-8681b6fef4',
    'as before pool templates',
  );
  const gpu = (image: string) => ({ name: 'gpu', template: { spec: { containers: [{ name: 'worker', image }] } } });
  const a = buildIdOf(t, undefined, poolOverlays([{ name: 'cpu' }, gpu('orders-gpu:1')]));
  const b = buildIdOf(t, undefined, poolOverlays([{ name: 'cpu' }, gpu('orders-gpu:2')]));
  assert.ok(a.startsWith('1.0.0-') && a !== '1.0.0-8681b6fef4', a);
  assert.notEqual(a, b, "one pool's new image is a new build");
  assert.equal(
    buildIdOf(t, undefined, poolOverlays([gpu('orders-gpu:1'), { name: 'cpu' }])),
    a,
    'whatever the order of pools',
  );
  assert.equal(buildIdOf(t, 'mine', poolOverlays([gpu('orders-gpu:2')])), 'mine', 'a custom build ID stays as given');
});

test('with onConfigChange NewBuild the digests of what the templates read are part of the build; none read: as before', () => {
  const t = template('registry.example.com/orders-worker:1.0.0');
  assert.equal(buildIdOf(t, undefined, undefined, {}), '1.0.0-8681b6fef4', 'nothing read: the template alone');
  const a = buildIdOf(t, undefined, undefined, { 'ConfigMap/settings': '0123456789abcdef' });
  const b = buildIdOf(t, undefined, undefined, { 'ConfigMap/settings': 'fedcba9876543210' });
  assert.ok(a.startsWith('1.0.0-') && a !== '1.0.0-8681b6fef4', a);
  assert.notEqual(a, b, 'a changed ConfigMap is a new build');
  assert.equal(buildIdOf(t, 'stable', undefined, { 'ConfigMap/settings': 'x' }), 'stable', 'a custom ID is the ID');
});
